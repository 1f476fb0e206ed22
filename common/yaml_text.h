// Loading untrusted YAML text (spec files, kubeconfigs, the authorization policy, Helm
// indexes) with yaml-cpp, bounded as docs/design.md ("Security model", bounded input) and
// docs/api.md ("Bad input") describe: the text's size is checked before yaml-cpp sees it,
// and every exception yaml-cpp throws while loading becomes kInvalidArgument.
//
// Nesting is bounded by yaml-cpp 0.7 itself: its parser counts the nodes it is inside of and
// throws YAML::DeepRecursion at the 500th, for block and flow collections alike, before the
// stack runs out (about 225 KB of stack at the deepest nesting allowed).
//
// Messages never quote the text; the caller prefixes the file's name.
//
// Thread-safety: stateless functions.
#pragma once

#include <yaml-cpp/yaml.h>

#include <cstddef>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace credledger::common {

// The deepest nesting yaml-cpp loads: a collection and the value inside it each count one
// level, so "[[]]" is 2 levels and "- - x" 3.
inline constexpr int kMaxYamlDepth = 499;

// The first document of `text`, or a null node when it has none.
// Errors: kInvalidArgument "larger than the limit of N bytes" when `text` is longer than
// `max_bytes`; "nested deeper than the limit of 499 levels"; "not valid YAML at line L,
// column C: <yaml-cpp's reason>" for malformed text (docs/api.md, "Bad input").
absl::StatusOr<YAML::Node> LoadYaml(absl::string_view text, size_t max_bytes);

// Every document of `text` in order; none for empty text or comments only.
// Errors: as LoadYaml, for any of the documents.
absl::StatusOr<std::vector<YAML::Node>> LoadAllYaml(absl::string_view text, size_t max_bytes);

}  // namespace credledger::common
