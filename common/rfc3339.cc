#include "common/rfc3339.h"

namespace credledger::common {

std::string FormatRfc3339(absl::Time t) {
  return absl::FormatTime("%Y-%m-%dT%H:%M:%E*SZ", t, absl::UTCTimeZone());
}

std::optional<absl::Time> ParseRfc3339(absl::string_view text) {
  absl::Time t;
  std::string error;
  if (!absl::ParseTime(absl::RFC3339_full, text, &t, &error)) return std::nullopt;
  return t;
}

}  // namespace credledger::common
