// The clock skew of a Target's agent in the read models (docs/reports.md, "Clock skew"):
// its offset and words (projections/clock_skew.h), the Reporting condition while it holds
// and after it ends (EvolveStatus), and the timeline's entries for it.
#include "projections/clock_skew.h"

#include <optional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "projections/event_summary.h"
#include "projections/proto_time.h"
#include "projections/report_streams.h"
#include "projections/target_status.h"
#include "projections/timeline.h"
#include "test/support/fleet_target_events.h"
#include "test/support/recorded_events.h"
#include "test/support/status_matchers.h"

namespace credledger::projections {
namespace clock_skew_test {

using v1::Event;
using namespace ::credledger::testing::fleet_target;  // NOLINT: the shared Target

constexpr char kSkewMessage[] =
    "the agent's clock is 10m ahead of the server's (a report of 2026-01-01T00:11:00Z arrived "
    "at 2026-01-01T00:01:00Z): reports more than 5m ahead are refused until the agent's node "
    "syncs its clock (NTP)";

// A report of fleet/edge-1 at `at` with one Ready release.
v1::TargetReportSpec Report(absl::Time at) {
  v1::TargetReportSpec report;
  *report.mutable_last_report_time() = ToProto(at);
  v1::ReleaseStatus& release = *report.add_releases();
  release.set_namespace_("apps");
  release.set_name("web");
  release.set_phase(v1::RELEASE_PHASE_READY);
  return report;
}

TEST(ClockSkewWordsTest, TheOffsetIsWholeSecondsAndTheMessageNamesItTheTimesAndTheFix) {
  // The server's clock has fractions of a second; the offset is rounded to the nearest
  // second and both times are printed in whole seconds.
  const Event late =
      ClockSkewDetected(kT0 + absl::Minutes(11), kT0 + absl::Minutes(1) + absl::Milliseconds(300));
  EXPECT_EQ(ClockSkewOffset(late.report_clock_skew_detected()), absl::Minutes(10));
  EXPECT_EQ(ClockSkewMessage(late.report_clock_skew_detected()), kSkewMessage);
  const Event early =
      ClockSkewDetected(kT0 + absl::Minutes(11), kT0 + absl::Minutes(1) + absl::Milliseconds(600));
  EXPECT_EQ(ClockSkewOffset(early.report_clock_skew_detected()),
            absl::Minutes(9) + absl::Seconds(59));
  const Event exact = ClockSkewDetected(kT0 + absl::Minutes(11), kT0 + absl::Minutes(1));
  EXPECT_EQ(ClockSkewOffset(exact.report_clock_skew_detected()), absl::Minutes(10));
  EXPECT_EQ(ClockSkewMessage(exact.report_clock_skew_detected()), kSkewMessage);
  EXPECT_EQ(SummarizeEvent(exact), absl::StrCat("clock skew detected: ", kSkewMessage));
  EXPECT_EQ(SummarizeEvent(ClockSkewCleared(kT0 + absl::Minutes(3), kT0 + absl::Minutes(4))),
            "clock skew cleared: a report or heartbeat of 2026-01-01T00:03:00Z was accepted "
            "(received 2026-01-01T00:04:00Z)");
}

// Folds events as a log of one Target: event n is at seq n, recorded at kT0 + n minutes.
class ClockSkewFoldTest : public ::testing::Test {
 protected:
  absl::Time Fold(Event event) {
    ++seq_;
    EvolveStatus(status_, event, {seq_, 0, At(seq_)});
    return At(seq_);
  }
  static absl::Time At(int64_t seq) { return kT0 + absl::Minutes(seq); }
  // Registered at minute 1, its first report at minute 2: Reporting True.
  void GivenReporting() {
    Fold(Registered());
    Fold(Accepted(Report(At(2)), At(2)));
  }
  // The agent's report of kT0 + 11 min refused at kT0 + 1 min.
  static Event Skewed() {
    return ClockSkewDetected(kT0 + absl::Minutes(11), kT0 + absl::Minutes(1));
  }
  void ExpectClockSkew(absl::Time since) const {
    EXPECT_TRUE(status_.has_clock_skew());
    EXPECT_EQ(status_.reporting().status(), "False");
    EXPECT_EQ(status_.reporting().reason(), kClockSkewReason);
    EXPECT_EQ(status_.reporting().message(), kSkewMessage);
    EXPECT_EQ(FromProto(status_.reporting().last_transition_time()), since);
  }

  int64_t seq_ = 0;
  v1::TargetStatus status_;
};

TEST_F(ClockSkewFoldTest, ADetectedSkewMakesReportingFalseClockSkew) {
  GivenReporting();
  const absl::Time at = Fold(Skewed());
  ExpectClockSkew(at);
  EXPECT_EQ(status_.last_seq(), 3);
  EXPECT_EQ(status_.clock_skew().SerializeAsString(),
            Skewed().report_clock_skew_detected().SerializeAsString());
  EXPECT_TRUE(ChangesStatus("credledger.v1.ReportClockSkewDetected"));
  EXPECT_TRUE(ChangesStatus("credledger.v1.ReportClockSkewCleared"));
}

TEST_F(ClockSkewFoldTest, ReportsHeartbeatsAndStaleMarksFoldedMeanwhileLeaveItClockSkew) {
  GivenReporting();
  const absl::Time since = Fold(Skewed());
  // A heartbeat received before the refusal, batched after it, and a report held from then.
  Fold(Liveness({Heartbeat(At(3), At(3))}));
  EXPECT_EQ(FromProto(status_.last_seen_at()), At(3));
  Event held = Accepted(Report(At(4)), At(4));
  held.mutable_report_accepted()->mutable_report()->mutable_releases(0)->set_phase(
      v1::RELEASE_PHASE_FAILED);
  Fold(held);
  EXPECT_EQ(status_.releases_ready().reason(), "Failed");
  Fold(Stale(At(4)));
  ExpectClockSkew(since);
}

TEST_F(ClockSkewFoldTest, ASkewDetectedWhileStaleReplacesStaleWithoutATransition) {
  GivenReporting();
  const absl::Time stale_since = Fold(Stale(At(2)));
  EXPECT_EQ(status_.reporting().reason(), "Stale");
  Fold(Skewed());
  ExpectClockSkew(stale_since);  // False both times: the transition time stays
}

TEST_F(ClockSkewFoldTest, TheClearingEndsTheSkewAndCountsAsAReportOrHeartbeatReceived) {
  GivenReporting();
  Fold(Skewed());
  const absl::Time at = Fold(ClockSkewCleared(At(6), At(5)));
  EXPECT_FALSE(status_.has_clock_skew());
  EXPECT_EQ(status_.reporting().status(), "True");
  EXPECT_EQ(status_.reporting().reason(), kReportReceivedReason);
  EXPECT_EQ(status_.reporting().message(),
            "last report or heartbeat received at 2026-01-01T00:05:00Z");
  EXPECT_EQ(FromProto(status_.reporting().last_transition_time()), at);
  EXPECT_EQ(FromProto(status_.last_seen_at()), At(5));
  EXPECT_EQ(FromProto(status_.last_report_time()), At(6));
  EXPECT_EQ(status_.last_seq(), 4);
}

TEST_F(ClockSkewFoldTest, ANewIncarnationStartsWithoutTheSkewAndOtherUidsAreIgnored) {
  GivenReporting();
  Event other = Skewed();
  other.mutable_report_clock_skew_detected()->set_target_uid(kOtherUid);
  Fold(other);
  EXPECT_FALSE(status_.has_clock_skew());
  EXPECT_EQ(status_.last_seq(), 2);
  Fold(Skewed());
  Fold(Registered(kOtherUid));
  EXPECT_FALSE(status_.has_clock_skew());
  EXPECT_EQ(status_.reporting().reason(), "NoReport");
}

// `event` of fleet/edge-1's report stream (or of `stream`) at `seq`, recorded `seq` minutes
// after kT0.
store::RecordedEvent Stored(int64_t seq, const Event& event,
                            const std::string& stream = ReportStream(kNamespace, kName)) {
  return ::credledger::testing::StoredEvent(seq, stream, seq,
                                            absl::ToUnixMicros(kT0 + absl::Minutes(seq)), event);
}

TEST(ClockSkewTimelineTest, TheSkewHasEntriesAndItsEndEndsASilence) {
  TimelineBuilder builder(kNamespace, kName);
  std::vector<std::string> rows;
  const std::vector<store::RecordedEvent> log = {
      Stored(1, Registered(), TargetStream(kNamespace, kName)), Stored(2, Stale(kT0)),
      Stored(3, ClockSkewDetected(kT0 + absl::Minutes(11), kT0 + absl::Minutes(1))),
      Stored(4, ClockSkewCleared(kT0 + absl::Minutes(4), kT0 + absl::Minutes(4))),
      Stored(5, Liveness({Heartbeat(kT0 + absl::Minutes(5), kT0 + absl::Minutes(5))}),
             kLivenessStream)};
  for (const store::RecordedEvent& event : log) {
    ASSERT_OK_AND_ASSIGN(std::optional<v1::TimelineEntry> entry, builder.Apply(event));
    if (entry.has_value()) rows.push_back(entry->event_type());
  }
  // The heartbeat after the clearing ends no silence: the clearing did.
  EXPECT_THAT(rows, ::testing::ElementsAre("TargetRegistered", "ReportingStale",
                                           "ReportClockSkewDetected", "ReportClockSkewCleared"));
}

}  // namespace clock_skew_test
}  // namespace credledger::projections
