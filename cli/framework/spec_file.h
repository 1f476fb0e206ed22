// Spec files: the YAML files that `-f` hands to the client commands (identity create|update,
// cluster register, source verify). One reader for all of them, so that every command bounds,
// loads and refuses input the same way:
// - the file is read whole, at most 1 MiB (common::ReadSmallFile);
// - the text is loaded by common/yaml_text.h: its size is checked before yaml-cpp sees it,
//   and nesting deeper than yaml-cpp's limit of 499 levels is refused;
// - the text holds exactly one non-empty YAML document: a second one after `---` would
//   otherwise be ignored without a word. Empty documents (nothing or only comments after a
//   `---`, as a file ending in `---` has; `~`; `null`) are skipped;
// - yaml-cpp's exceptions, thrown while loading or while the caller's parser walks the
//   nodes, become kInvalidArgument.
// The caller's parser turns the root node into the spec (yaml_fields.h reads the fields).
//
// Thread-safety: pure functions.
#pragma once

#include <yaml-cpp/yaml.h>

#include <string>
#include <utility>

#include "absl/functional/function_ref.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace credledger::cli {

// Turns the root node of a spec document into `Spec`; errors name the path of the field.
template <typename Spec>
using SpecNodeParser = absl::StatusOr<Spec> (*)(const YAML::Node& root);

// Loads `yaml`, the text of a spec file, and calls `parse` with the root node of its single
// document; returns what `parse` returns.
// Errors: kInvalidArgument for text over the limits ("larger than the limit of N bytes",
// "nested deeper than the limit of 499 levels"), "not valid UTF-8; a spec file is UTF-8 text",
// "not valid YAML at line L, column C: <reason>", "not valid YAML: <yaml-cpp's message>"
// (for exceptions thrown inside `parse`), "no YAML document found; one is expected" (empty text or
// comments only), "N YAML documents found (separated by ---); one is expected"
// (N counts the non-empty ones), "the document is empty; one mapping is expected" (only empty
// documents: a lone `---`, `~` or `null`); `parse`'s errors.
absl::Status ParseSpecDocument(absl::string_view yaml,
                               absl::FunctionRef<absl::Status(const YAML::Node& root)> parse);

// Reads the file at `path` and parses it as ParseSpecDocument does.
// Errors: ReadSmallFile's (kNotFound, kFailedPrecondition; they name the file);
// ParseSpecDocument's, with the message prefixed by "\"<path>\": ".
absl::Status ReadSpecDocument(const std::string& path,
                              absl::FunctionRef<absl::Status(const YAML::Node& root)> parse);

namespace spec_file_internal {
// Adapts a SpecNodeParser to the callbacks above, storing its spec in `*out`.
template <typename Spec>
auto StoreInto(Spec* out, SpecNodeParser<Spec> parse) {
  return [out, parse](const YAML::Node& root) -> absl::Status {
    absl::StatusOr<Spec> spec = parse(root);
    if (!spec.ok()) return spec.status();
    *out = *std::move(spec);
    return absl::OkStatus();
  };
}
}  // namespace spec_file_internal

// The spec in `yaml` (ParseSpecDocument's rules and errors).
template <typename Spec>
absl::StatusOr<Spec> ParseSpecYaml(absl::string_view yaml, SpecNodeParser<Spec> parse) {
  Spec spec;
  absl::Status status = ParseSpecDocument(yaml, spec_file_internal::StoreInto(&spec, parse));
  if (!status.ok()) return status;
  return spec;
}

// The spec in the file at `path` (ReadSpecDocument's rules and errors).
template <typename Spec>
absl::StatusOr<Spec> ReadSpecFile(const std::string& path, SpecNodeParser<Spec> parse) {
  Spec spec;
  absl::Status status = ReadSpecDocument(path, spec_file_internal::StoreInto(&spec, parse));
  if (!status.ok()) return status;
  return spec;
}

}  // namespace credledger::cli
