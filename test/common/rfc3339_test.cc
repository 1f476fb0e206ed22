#include "common/rfc3339.h"

#include "gtest/gtest.h"

namespace credledger::common {
namespace {

TEST(FormatRfc3339Test, WholeSecondsInUtcWithZ) {
  EXPECT_EQ(FormatRfc3339(absl::FromUnixSeconds(1767323045)), "2026-01-02T03:04:05Z");
  EXPECT_EQ(FormatRfc3339(absl::UnixEpoch()), "1970-01-01T00:00:00Z");
}

TEST(FormatRfc3339Test, KeepsAFractionOfASecondWithoutTrailingZeros) {
  const absl::Time t = absl::FromUnixSeconds(1767323045);
  EXPECT_EQ(FormatRfc3339(t + absl::Milliseconds(250)), "2026-01-02T03:04:05.25Z");
  EXPECT_EQ(FormatRfc3339(t + absl::Nanoseconds(1)), "2026-01-02T03:04:05.000000001Z");
}

}  // namespace
}  // namespace credledger::common
