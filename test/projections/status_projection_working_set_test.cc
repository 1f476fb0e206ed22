// Tests of the status projection's working set (projections/status_projection.h,
// projections/working_set.h): on random logs of 40 Targets, a projection that holds only 3
// rollups decoded (every other one leaves encoded and comes back for its next event) answers
// every read as one that holds them all: Get, List, SilentSince, the Reporting tally and the
// snapshot bytes, event by event, after a bulk fold it compacts, and from a snapshot.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "gtest/gtest.h"
#include "projections/status_projection.h"
#include "test/projections/random_status_log.h"
#include "test/support/status_matchers.h"

namespace credledger::projections {
namespace status_projection_working_set_test {

using ::credledger::testing::RandomStatusLog;
using ::credledger::testing::ReportingTally;

constexpr int kTargets = 40;
constexpr size_t kTight = 3;
constexpr size_t kRoomy = 1000;

// SilentSince as text, to compare two projections' answers.
std::string Silent(const StatusProjection& p, absl::Time cutoff) {
  std::string text;
  for (const SilentTarget& t : p.SilentSince(cutoff)) {
    absl::StrAppend(&text, t.target_namespace, "/", t.name, "@", absl::FormatTime(t.last_seen_at),
                    " ");
  }
  return text;
}

// Every Target's rollup (or its absence) as bytes, then List, in one string.
std::string Reads(const StatusProjection& p) {
  std::string text;
  for (int t = 0; t < kTargets; ++t) {
    const std::optional<v1::TargetStatus> status =
        p.Get(t % 2 == 0 ? "fleet-a" : "fleet-b", absl::StrCat("edge-", t));
    absl::StrAppend(&text, t, ":", status.has_value() ? status->SerializeAsString() : "none", ";");
  }
  for (const v1::TargetStatus& status : p.List("")) absl::StrAppend(&text, status.name(), ",");
  return text;
}

// Expects `got` to answer every read as `want` does, with cutoffs around `now`.
void ExpectSameAnswers(const StatusProjection& got, const StatusProjection& want, absl::Time now) {
  ASSERT_EQ(got.seq(), want.seq());
  ASSERT_EQ(got.Serialize(), want.Serialize());
  ASSERT_EQ(ReportingTally(got), ReportingTally(want));
  ASSERT_EQ(Reads(got), Reads(want));
  for (absl::Duration ago : {absl::ZeroDuration(), absl::Seconds(5), absl::Seconds(30)}) {
    ASSERT_EQ(Silent(got, now - ago), Silent(want, now - ago)) << ago;
  }
}

TEST(StatusProjectionWorkingSetTest, ThreeDecodedRollupsAnswerAsEveryRollupDecodedEventByEvent) {
  for (uint32_t seed = 1; seed <= 8; ++seed) {
    RandomStatusLog log(seed, kTargets);
    StatusProjection tight(kTight);
    StatusProjection roomy(kRoomy);
    for (int i = 0; i < 1200; ++i) {
      const store::RecordedEvent event = log.Next();
      SCOPED_TRACE(absl::StrCat("seed ", seed, ", seq ", event.seq));
      ASSERT_OK_AND_ASSIGN(std::vector<std::string> tight_changed, tight.Apply(event));
      ASSERT_OK_AND_ASSIGN(std::vector<std::string> roomy_changed, roomy.Apply(event));
      ASSERT_EQ(tight_changed, roomy_changed);
      ASSERT_LE(tight.decoded_states(), kTight);
      if (i % 20 == 19) {
        ExpectSameAnswers(tight, roomy, absl::FromUnixMicros(event.recorded_at_us));
      }
    }
    // Guards the comparison: most rollups rest encoded in the tight projection.
    EXPECT_GT(roomy.decoded_states(), 10 * kTight);
  }
}

TEST(StatusProjectionWorkingSetTest, ABulkFoldCompactedOrSnapshottedThenFollowedAnswersTheSame) {
  RandomStatusLog log(11, kTargets);
  StatusProjection tight(kTight);
  StatusProjection roomy(kRoomy);
  for (int i = 0; i < 1500; ++i) {
    const store::RecordedEvent event = log.Next();
    ASSERT_OK(tight.ApplyDeferred(event));
    ASSERT_OK(roomy.Apply(event).status());
  }
  ASSERT_OK(tight.Settle());
  // The bulk fold kept every rollup it touched decoded, beyond the bound.
  EXPECT_GT(tight.decoded_states(), kTight);
  tight.Compact();
  EXPECT_EQ(tight.decoded_states(), 0u);
  ExpectSameAnswers(tight, roomy, absl::FromUnixSeconds(1'795'000'000) + absl::Hours(2));

  ASSERT_OK_AND_ASSIGN(StatusProjection loaded, StatusProjection::Deserialize(tight.Serialize()));
  // The snapshot is read one rollup at a time, every rollup left at rest.
  EXPECT_EQ(loaded.decoded_states(), 0u);
  ExpectSameAnswers(loaded, roomy, absl::FromUnixSeconds(1'795'000'000) + absl::Hours(2));
  for (int i = 0; i < 600; ++i) {
    const store::RecordedEvent event = log.Next();
    SCOPED_TRACE(absl::StrCat("seq ", event.seq));
    ASSERT_OK(tight.Apply(event).status());
    ASSERT_OK(loaded.Apply(event).status());
    ASSERT_OK(roomy.Apply(event).status());
    ASSERT_LE(tight.decoded_states(), kTight);
    if (i % 20 != 19) continue;
    const absl::Time now = absl::FromUnixMicros(event.recorded_at_us);
    ExpectSameAnswers(tight, roomy, now);
    ExpectSameAnswers(loaded, roomy, now);
  }
}

}  // namespace status_projection_working_set_test
}  // namespace credledger::projections
