// Guards run on untrusted YAML before yaml-cpp sees it. yaml-cpp 0.7 recurses once per nesting
// level with no limit of its own, so deep input could exhaust the stack; these checks bound the
// input's size and an over-estimate of its nesting depth.
//
// The depth estimate counts, per line, the enclosing block levels (by indentation), the
// compact "- " / "? " entries that open on that line, and the open flow collections
// ("[", "{") outside quoted scalars, comments and block scalars. It never under-counts
// the nesting yaml-cpp will build, and may over-count by a level or two.
//
// Thread-safety: stateless functions.
#pragma once

#include <cstddef>
#include <string_view>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"

namespace credledger::kubebridge {

// Nesting accepted in kubeconfigs (a real one uses 4 or 5 levels).
inline constexpr int kMaxYamlDepth = 64;

// Returns OK when `text` has at most `max_bytes` bytes and its estimated nesting depth is at
// most `max_depth`.
// Errors: kInvalidArgument "larger than the limit of N bytes" or "nested deeper than N
// levels (line L)"; the caller prefixes the file name.
absl::Status CheckYamlLimits(absl::string_view text, size_t max_bytes, int max_depth);

}  // namespace credledger::kubebridge
