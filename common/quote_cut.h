// QuoteCut: how an error message quotes a refused input value, so that a long value keeps the
// message short and a cut value is never mistaken for the whole one.
//
// Thread-safety: a pure function.
#pragma once

#include <cstddef>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"

namespace credledger::common {

// `value` in double quotes when it has at most `max_bytes` bytes; otherwise its first
// `max_bytes` bytes followed by "..." inside the quotes ("edge-aaaaaaaaaaaaaaa...").
// Nothing is escaped: the value is the caller's own input, returned to it.
inline std::string QuoteCut(absl::string_view value, size_t max_bytes) {
  if (value.size() <= max_bytes) return absl::StrCat("\"", value, "\"");
  return absl::StrCat("\"", value.substr(0, max_bytes), "...\"");
}

}  // namespace credledger::common
