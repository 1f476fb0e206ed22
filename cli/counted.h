// Counts in the CLI's text output: "1 event", "2 events".
#pragma once

#include <cstdint>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"

namespace credledger::cli {

// "<n> <noun>", with an "s" added unless n is 1 (nouns with a regular plural only).
inline std::string Counted(int64_t n, absl::string_view noun) {
  return absl::StrCat(n, " ", noun, n == 1 ? "" : "s");
}

}  // namespace credledger::cli
