#include "common/rfc3339.h"

#include "gtest/gtest.h"

namespace credledger::common {
namespace rfc3339_test {

TEST(FormatRfc3339Test, WholeSecondsInUtcWithZ) {
  EXPECT_EQ(FormatRfc3339(absl::FromUnixSeconds(1767323045)), "2026-01-02T03:04:05Z");
  EXPECT_EQ(FormatRfc3339(absl::UnixEpoch()), "1970-01-01T00:00:00Z");
}

TEST(FormatRfc3339Test, KeepsAFractionOfASecondWithoutTrailingZeros) {
  const absl::Time t = absl::FromUnixSeconds(1767323045);
  EXPECT_EQ(FormatRfc3339(t + absl::Milliseconds(250)), "2026-01-02T03:04:05.25Z");
  EXPECT_EQ(FormatRfc3339(t + absl::Nanoseconds(1)), "2026-01-02T03:04:05.000000001Z");
}

TEST(ParseRfc3339Test, ReadsUtcOffsetsAndFractions) {
  const absl::Time t = absl::FromUnixSeconds(1767323045);  // 2026-01-02T03:04:05Z
  EXPECT_EQ(ParseRfc3339("2026-01-02T03:04:05Z"), t);
  EXPECT_EQ(ParseRfc3339("2026-01-02T05:04:05+02:00"), t);
  EXPECT_EQ(ParseRfc3339("2026-01-01T22:34:05-04:30"), t);
  EXPECT_EQ(ParseRfc3339("2026-01-02t03:04:05.25z"), t + absl::Milliseconds(250));
}

TEST(ParseRfc3339Test, RejectsTextThatIsNotADateTime) {
  EXPECT_EQ(ParseRfc3339(""), std::nullopt);
  EXPECT_EQ(ParseRfc3339("2026-01-02"), std::nullopt);
  EXPECT_EQ(ParseRfc3339("2026-01-02T03:04:05"), std::nullopt);
  EXPECT_EQ(ParseRfc3339("2026-13-02T03:04:05Z"), std::nullopt);
  EXPECT_EQ(ParseRfc3339("tomorrow"), std::nullopt);
}

}  // namespace rfc3339_test
}  // namespace credledger::common
