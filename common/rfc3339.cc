#include "common/rfc3339.h"

namespace credledger::common {

std::string FormatRfc3339(absl::Time t) {
  return absl::FormatTime("%Y-%m-%dT%H:%M:%E*SZ", t, absl::UTCTimeZone());
}

}  // namespace credledger::common
