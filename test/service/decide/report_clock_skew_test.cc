// Given-events / when-command / then-events tests of the report decider for an agent whose
// clock runs ahead of the server's (docs/reports.md, "Clock skew"), on the fixture of
// report_decider_fixture.h: the first refused report records the skew, later refusals record
// nothing, the next accepted report or heartbeat ends it, and staleness waits while it holds.
#include <optional>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "projections/target_status.h"
#include "service/decide/report_decider.h"
#include "test/service/decide/report_decider_fixture.h"
#include "test/support/fleet_target_events.h"
#include "test/support/status_matchers.h"

namespace credledger::service {
namespace report_clock_skew_test {

using ::credledger::testing::StatusIs;
using ::testing::AllOf;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using namespace ::credledger::testing::fleet_target;  // NOLINT: the shared Target
using report_decider_fixture::EqualsEvent;
using report_decider_fixture::Release;
using report_decider_fixture::Report;
using report_decider_fixture::ReportDeciderTest;

constexpr absl::Duration kAhead = absl::Minutes(10);

class ReportClockSkewTest : public ReportDeciderTest {
 protected:
  // A registered Target whose first report was accepted at kT0, then a report 10 minutes
  // ahead refused a minute later: the skew in force. Returns the refused report's time.
  absl::Time GivenSkewed() {
    Given({Registered()});
    GivenAccepted(kT0);
    now_ = kT0 + absl::Minutes(1);
    Given({ClockSkewDetected(now_ + kAhead, now_)});
    return now_ + kAhead;
  }
};

TEST_F(ReportClockSkewTest, TheFirstReportTooFarAheadIsRefusedAndRecordsTheSkew) {
  Given({Registered()});
  GivenAccepted(kT0);
  now_ = kT0 + absl::Minutes(1);
  const absl::StatusOr<ReportDecision> decided =
      When(SubmitReport{Report(now_ + kAhead), now_, std::nullopt});
  Then(decided, {ClockSkewDetected(now_ + kAhead, now_)});
  EXPECT_THAT(decided->refusal,
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("report.lastReportTime: 2026-01-01T00:11:00Z is more than 5m "
                                 "ahead of the server's clock (2026-01-01T00:01:00Z)")));
  EXPECT_FALSE(decided->heartbeat);
}

TEST_F(ReportClockSkewTest, TheRefusalNamesThePathTheSenderWrote) {
  Given({Registered()});
  SubmitReport watched{Report(now_ + kAhead), now_, std::nullopt};
  watched.source = ReportSource::kTargetReport;
  const absl::StatusOr<ReportDecision> decided = When(watched);
  Then(decided, {ClockSkewDetected(now_ + kAhead, now_)});
  EXPECT_THAT(decided->refusal,
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("spec.lastReportTime: ")));
}

TEST_F(ReportClockSkewTest, ARetryIsAnsweredWithTheRefusalTheEventRecords) {
  Given({Registered()});
  now_ = kT0 + absl::Nanoseconds(1500);  // finer than the microseconds the log keeps
  const absl::StatusOr<ReportDecision> decided =
      When(SubmitReport{Report(now_ + kAhead), now_, std::nullopt});
  ASSERT_OK(decided);
  ASSERT_EQ(decided->report_events.size(), 1u);
  const v1::ReportClockSkewDetected& detected =
      decided->report_events[0].report_clock_skew_detected();
  EXPECT_EQ(ClockSkewRefusal(detected, ReportSource::kPushReport), decided->refusal);
  EXPECT_THAT(ClockSkewRefusal(detected, ReportSource::kTargetReport),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("spec.lastReportTime: ")));
}

TEST_F(ReportClockSkewTest, RefusalsWhileTheSkewHoldsRecordNothingMore) {
  const absl::Time refused = GivenSkewed();
  now_ += absl::Minutes(1);
  // A later report, the same report again and a heartbeat of the accepted one: all refused.
  for (const v1::TargetReportSpec& report :
       {Report(refused + absl::Minutes(1), {Release("web", v1::RELEASE_PHASE_FAILED)}),
        Report(refused), Report(now_ + kAhead)}) {
    const absl::StatusOr<ReportDecision> decided = When(SubmitReport{report, now_, std::nullopt});
    Then(decided, {});
    EXPECT_THAT(decided->refusal, StatusIs(absl::StatusCode::kInvalidArgument,
                                           HasSubstr("ahead of the server's clock")));
  }
}

TEST_F(ReportClockSkewTest, InvalidContentIsRefusedForItAloneAndRecordsNoSkew) {
  Given({Registered()});
  const v1::TargetReportSpec report =
      Report(now_ + kAhead, {Release("Web", v1::RELEASE_PHASE_READY)});
  EXPECT_THAT(When(SubmitReport{report, now_, std::nullopt}),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("report.releases[0].name")));
}

TEST_F(ReportClockSkewTest, TheNextAcceptedReportEndsTheSkewBeforeItIsAccepted) {
  GivenSkewed();
  now_ += absl::Minutes(1);
  const v1::TargetReportSpec changed = Report(now_, {Release("web", v1::RELEASE_PHASE_DEGRADED)});
  const absl::StatusOr<ReportDecision> decided =
      When(SubmitReport{changed, now_, std::nullopt, absl::Hours(1)});
  // Never held: Reporting is not True during the skew.
  Then(decided, {ClockSkewCleared(now_, now_), testing::fleet_target::Accepted(changed, now_)});
  EXPECT_OK(decided->refusal);
}

TEST_F(ReportClockSkewTest, TheNextHeartbeatEndsTheSkewAndStaysAHeartbeat) {
  GivenSkewed();
  now_ += absl::Minutes(1);
  const absl::StatusOr<ReportDecision> decided =
      When(SubmitReport{Report(now_), now_, std::nullopt});
  Then(decided, {ClockSkewCleared(now_, now_)});
  EXPECT_TRUE(decided->heartbeat);
  EXPECT_OK(decided->refusal);
}

TEST_F(ReportClockSkewTest, AHeartbeatRefusedForLackOfSpaceEndsNothing) {
  GivenSkewed();
  now_ += absl::Minutes(1);
  const absl::StatusOr<ReportDecision> decided = When(
      SubmitReport{Report(now_), now_, std::nullopt, absl::ZeroDuration(), /*space_low=*/true});
  Then(decided, {});
  EXPECT_TRUE(decided->heartbeat);
}

TEST_F(ReportClockSkewTest, AReportReceivedBeforeTheSkewWasDetectedEndsNothing) {
  GivenSkewed();
  // A report held since before the refusal, appended now: accepted, but the skew holds.
  const absl::Time received = now_ - absl::Seconds(5);
  const v1::TargetReportSpec held = Report(received, {Release("web", v1::RELEASE_PHASE_DEGRADED)});
  now_ += absl::Seconds(10);
  Then(When(SubmitReport{held, received, std::nullopt}),
       {testing::fleet_target::Accepted(held, received)});
}

TEST_F(ReportClockSkewTest, TheSkewOutranksStalenessAndNoStaleMarkIsDueWhileItHolds) {
  GivenSkewed();
  EXPECT_EQ(status_.reporting().status(), "False");
  EXPECT_EQ(status_.reporting().reason(), projections::kClockSkewReason);
  // Silent far beyond the stale period since the last accepted report: no mark.
  now_ = kT0 + absl::Hours(1);
  Then(When(MarkStale{kT0, absl::Minutes(10)}), {});
}

TEST_F(ReportClockSkewTest, AStaleTargetWhoseAgentRunsAheadIsRecordedAsSkewed) {
  Given({Registered()});
  GivenAccepted(kT0);
  now_ = kT0 + absl::Minutes(20);
  Given({Stale(kT0)});
  const absl::StatusOr<ReportDecision> decided =
      When(SubmitReport{Report(now_ + kAhead), now_, std::nullopt});
  Then(decided, {ClockSkewDetected(now_ + kAhead, now_)});
  Given(decided->report_events);
  EXPECT_EQ(status_.reporting().reason(), projections::kClockSkewReason);
  EXPECT_THAT(status_.reporting().message(),
              AllOf(HasSubstr("the agent's clock is 10m ahead of the server's"), HasSubstr("NTP")));
  EXPECT_THAT(decided->target_events, IsEmpty());
}

}  // namespace report_clock_skew_test
}  // namespace credledger::service
