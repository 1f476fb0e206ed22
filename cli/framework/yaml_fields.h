// Reading the fields of a small YAML document (a CLI spec file) strictly: unknown and
// duplicated keys are refused naming their path ("auth.sshKey.knownHostsRef.kind"), and
// values of the wrong shape are refused instead of converted. yaml-cpp keeps both entries of
// a duplicated key and a lookup silently takes one, so every mapping is checked.
//
// REQUIRES: callers load the text with common/yaml_text.h (bounded size and nesting, yaml-cpp's
// exceptions caught) and catch YAML::Exception around these calls; spec_file.h does both for
// the spec files of the CLI.
//
// Thread-safety: pure functions.
#pragma once

#include <yaml-cpp/yaml.h>

#include <set>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace credledger::cli {

// kInvalidArgument "<path>: <rule>".
absl::Status YamlInvalid(absl::string_view path, absl::string_view rule);

// `path` extended by `key`: "<path>.<key>", or `key` at the root (empty `path`).
std::string YamlChild(absl::string_view path, absl::string_view key);

// Checks that `node` is a mapping whose keys are all in `allowed`, each once.
// Errors: kInvalidArgument "<path>: must be a mapping" ("document" at the root),
// "<path>.<key>: unknown key", "<path>.<key>: duplicate key; each key may appear once".
absl::Status YamlCheckKeys(const YAML::Node& node, absl::string_view path,
                           const std::set<std::string>& allowed);

// Checks that no key of mapping `node` (whose keys are data, such as label keys) is given
// twice. REQUIRES: node.IsMap().
// Errors: kInvalidArgument "<path>.<key>: duplicate key; each key may appear once".
absl::Status YamlCheckUniqueKeys(const YAML::Node& node, absl::string_view path);

// The scalar text of `node`, possibly empty (`""`).
// Errors: kInvalidArgument "<path>: must be a string" for a mapping, list or null.
absl::StatusOr<std::string> YamlString(const YAML::Node& node, absl::string_view path);

// A YAML boolean, strictly: only the plain (unquoted) scalars `true` and `false`, the
// booleans of the YAML 1.2 JSON schema. Refused: YAML 1.1 spellings (`yes`, `no`, `on`,
// `off`, `y`, `n`), the capitalised `True`/`TRUE` of the 1.2 core schema, and quoted strings
// (`"true"`), so that one spelling means one thing whichever YAML library reads the file.
// yaml-cpp marks a plain scalar with the tag "?" and a quoted one with "!".
// Errors: kInvalidArgument "<path>: must be true or false (unquoted)".
absl::StatusOr<bool> YamlBool(const YAML::Node& node, absl::string_view path);

// True when the mapping entry `node` is present with a non-null value.
bool YamlPresent(const YAML::Node& node);

}  // namespace credledger::cli
