// The size flag of a benchmark binary ("--targets=N", "--events=N"), parsed before the
// benchmark library sees the command line.
#pragma once

#include <cstdint>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"

namespace credledger::bench {

// Removes every "--<name>=N" from argv (adjusting argc) and returns the last N, or `fallback`
// when the flag is absent; -1 when a value is not an integer >= `min`.
inline int64_t TakeSizeFlag(absl::string_view name, int64_t fallback, int64_t min, int& argc,
                            char** argv) {
  const std::string prefix = absl::StrCat("--", name, "=");
  int64_t value = fallback;
  int kept = 1;
  for (int a = 1; a < argc; ++a) {
    absl::string_view arg = argv[a];
    if (absl::StartsWith(arg, prefix)) {
      if (!absl::SimpleAtoi(arg.substr(prefix.size()), &value) || value < min) return -1;
    } else {
      argv[kept++] = argv[a];
    }
  }
  argc = kept;
  return value;
}

}  // namespace credledger::bench
