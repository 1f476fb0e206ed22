// Tests of the status projection's bulk fold (StatusProjection::ApplyDeferred and Settle,
// projections/status_projection.h): on random logs of registrations, reports whose checks and
// release phases change, bound releases, staleness, clock skews, liveness batches,
// finalizations and re-registrations, it gives byte for byte the projection Apply gives, at
// every point it is settled, and its errors name the event.
#include <algorithm>
#include <cstdint>
#include <functional>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/types/span.h"
#include "common/run_at_once.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "projections/proto_time.h"
#include "projections/report_streams.h"
#include "projections/status_projection.h"
#include "projections/target_state.h"
#include "store/event_codec.h"
#include "test/projections/random_status_log.h"
#include "test/support/status_matchers.h"

namespace credledger::projections {
namespace status_projection_deferred_test {

using ::credledger::testing::ReportingTally;
using ::credledger::testing::StatusIs;
using ::credledger::testing::StoredAt;
using RandomLog = ::credledger::testing::RandomStatusLog;

v1::Event Registered(const std::string& uid) {
  v1::Event event;
  v1::TargetRegistered& e = *event.mutable_target_registered();
  e.set_target_uid(uid);
  e.set_namespace_("fleet-a");
  e.set_name("edge-1");
  return event;
}

TEST(StatusProjectionDeferredTest, SettledBulkFoldsEqualTheEventByEventFoldOnRandomLogs) {
  int compared = 0;
  for (uint32_t seed = 1; seed <= 150; ++seed) {
    RandomLog log(seed);
    StatusProjection eager;
    StatusProjection bulk;
    std::mt19937 settle_points(seed);
    for (int i = 0; i < 400; ++i) {
      const store::RecordedEvent event = log.Next();
      SCOPED_TRACE(absl::StrCat("seed ", seed, ", seq ", event.seq));
      ASSERT_OK(eager.Apply(event).status());
      ASSERT_OK(bulk.ApplyDeferred(event));
      if (settle_points() % 25 != 0 && i != 399) continue;
      ASSERT_OK(bulk.Settle());
      ASSERT_EQ(bulk.seq(), eager.seq());
      ASSERT_EQ(bulk.Serialize(), eager.Serialize());
      ASSERT_EQ(ReportingTally(bulk), ReportingTally(eager));
      ++compared;
    }
  }
  EXPECT_GT(compared, 150 * 10);
}

// Settle in shares, the tasks run at once on their own threads: the same projection and tally
// as the event-by-event fold, with the runs split over several tasks.
TEST(StatusProjectionDeferredTest, SettlingInSharesOnThreadsEqualsTheEventByEventFold) {
  size_t most_tasks = 0;
  for (uint32_t seed = 1; seed <= 3; ++seed) {
    RandomLog log(seed, /*targets=*/400);
    StatusProjection eager;
    StatusProjection bulk;
    for (int i = 0; i < 4000; ++i) {
      const store::RecordedEvent event = log.Next();
      SCOPED_TRACE(absl::StrCat("seed ", seed, ", seq ", event.seq));
      ASSERT_OK(eager.Apply(event).status());
      ASSERT_OK(bulk.ApplyDeferred(event));
      if (i % 1000 != 999) continue;
      ASSERT_OK(bulk.Settle(4, [&most_tasks](absl::Span<const std::function<void()>> tasks) {
        most_tasks = std::max(most_tasks, tasks.size());
        common::RunAtOnce(tasks);
      }));
      ASSERT_EQ(bulk.Serialize(), eager.Serialize());
      ASSERT_EQ(ReportingTally(bulk), ReportingTally(eager));
    }
  }
  // Hundreds of open runs: split over several tasks (at least kMinRunsPerShare runs each).
  EXPECT_GE(most_tasks, 3u);
}

TEST(StatusProjectionDeferredTest, ARunIsFoldedFromItsLastReportWithTheTransitionsOfTheOthers) {
  // Five reports of one Target, PreflightReady False after the second only: settled, the
  // rollup holds the last report, and PreflightReady's transition is the third report's.
  std::vector<store::RecordedEvent> events = {
      StoredAt(1, TargetStream("fleet-a", "edge-1"), Registered("uid-1"))};
  for (int i = 1; i <= 5; ++i) {
    v1::Event event;
    v1::ReportAccepted& e = *event.mutable_report_accepted();
    e.set_target_uid("uid-1");
    *e.mutable_received_at() = ToProto(absl::FromUnixSeconds(1'795'000'000 + i));
    v1::PreflightCheck& check = *e.mutable_report()->add_preflight_checks();
    check.set_type("DiskSpace");
    check.set_status(i == 2 ? "False" : "True");
    check.set_reason("Checked");
    check.set_message(absl::StrCat("report ", i));
    events.push_back(StoredAt(i + 1, ReportStream("fleet-a", "edge-1"), event));
  }
  StatusProjection eager;
  StatusProjection bulk;
  for (const store::RecordedEvent& e : events) {
    ASSERT_OK(eager.Apply(e).status());
    ASSERT_OK(bulk.ApplyDeferred(e));
  }
  ASSERT_OK(bulk.Settle());
  std::optional<v1::TargetStatus> status = bulk.Get("fleet-a", "edge-1");
  ASSERT_TRUE(status.has_value());
  EXPECT_EQ(status->last_report().preflight_checks(0).message(), "report 5");
  EXPECT_EQ(status->preflight_ready().status(), "True");
  EXPECT_EQ(FromProto(status->preflight_ready().last_transition_time()),
            absl::FromUnixMicros(events[3].recorded_at_us));
  EXPECT_EQ(status->last_seq(), 6);
  EXPECT_EQ(bulk.Serialize(), eager.Serialize());
}

TEST(StatusProjectionDeferredTest, ARunWhoseLastReportDoesNotDecodeFailsEverySettle) {
  StatusProjection bulk;
  ASSERT_OK(bulk.ApplyDeferred(StoredAt(1, TargetStream("fleet-a", "edge-1"), Registered("u"))));
  v1::Event event;
  v1::ReportAccepted& e = *event.mutable_report_accepted();
  e.set_target_uid("u");
  v1::PreflightCheck& check = *e.mutable_report()->add_preflight_checks();
  check.set_type("DiskSpace");
  check.set_status("True");
  check.set_message("MARK");
  store::RecordedEvent report = StoredAt(2, ReportStream("fleet-a", "edge-1"), event);
  // The check's message, which the summary skips, becomes invalid UTF-8.
  const size_t mark = report.payload.find("MARK");
  ASSERT_NE(mark, std::string::npos);
  report.payload[mark] = static_cast<char>(0xff);
  ASSERT_OK(bulk.ApplyDeferred(report));
  EXPECT_THAT(bulk.Settle(),
              StatusIs(absl::StatusCode::kDataLoss, ::testing::HasSubstr("event seq 2")));
  EXPECT_THAT(bulk.Settle(), StatusIs(absl::StatusCode::kDataLoss));
}

TEST(StatusProjectionDeferredTest, SettlingInSharesSettlesEveryRunButOneThatDoesNotDecode) {
  constexpr int kTargets = 200;
  constexpr int kBroken = 117;
  StatusProjection eager;
  StatusProjection bulk;
  std::vector<store::RecordedEvent> events;
  for (int t = 0; t < kTargets; ++t) {
    v1::Event event;
    v1::TargetRegistered& e = *event.mutable_target_registered();
    e.set_target_uid(absl::StrCat("uid-", t));
    e.set_namespace_("fleet-a");
    e.set_name(absl::StrCat("edge-", t));
    events.push_back(StoredAt(t + 1, TargetStream("fleet-a", e.name()), event));
  }
  for (int t = 0; t < kTargets; ++t) {
    v1::Event event;
    v1::ReportAccepted& e = *event.mutable_report_accepted();
    e.set_target_uid(absl::StrCat("uid-", t));
    v1::PreflightCheck& check = *e.mutable_report()->add_preflight_checks();
    check.set_type("DiskSpace");
    check.set_status("True");
    check.set_message(absl::StrCat("MARK of edge-", t));
    events.push_back(
        StoredAt(kTargets + t + 1, ReportStream("fleet-a", absl::StrCat("edge-", t)), event));
  }
  for (const store::RecordedEvent& e : events) ASSERT_OK(eager.Apply(e).status());
  // The check's message of one report, which the summary skips, becomes invalid UTF-8.
  store::RecordedEvent& broken = events[kTargets + kBroken];
  const size_t mark = broken.payload.find("MARK");
  ASSERT_NE(mark, std::string::npos);
  broken.payload[mark] = static_cast<char>(0xff);
  for (const store::RecordedEvent& e : events) ASSERT_OK(bulk.ApplyDeferred(e));

  EXPECT_THAT(bulk.Settle(4, common::RunAtOnce),
              StatusIs(absl::StatusCode::kDataLoss,
                       ::testing::HasSubstr(absl::StrCat("event seq ", broken.seq))));
  for (int t = 0; t < kTargets; ++t) {
    if (t == kBroken) continue;
    const std::string name = absl::StrCat("edge-", t);
    std::optional<v1::TargetStatus> settled = bulk.Get("fleet-a", name);
    std::optional<v1::TargetStatus> expected = eager.Get("fleet-a", name);
    ASSERT_TRUE(settled.has_value() && expected.has_value()) << name;
    EXPECT_EQ(settled->SerializeAsString(), expected->SerializeAsString()) << name;
  }
  // The broken Target was counted Reporting True/ReportReceived when its report joined the
  // run, as every settled one is: the tally, taken out and put back, is the eager fold's.
  EXPECT_EQ(ReportingTally(bulk), ReportingTally(eager));
  // The broken run stays open.
  EXPECT_THAT(bulk.Settle(4, common::RunAtOnce), StatusIs(absl::StatusCode::kDataLoss));
}

TEST(StatusProjectionDeferredTest, SettlingWithARunnerThatSkipsATaskLeavesItsRunsOpen) {
  StatusProjection eager;
  StatusProjection bulk;
  RandomLog log(7, /*targets=*/400);
  for (int i = 0; i < 1500; ++i) {
    const store::RecordedEvent event = log.Next();
    ASSERT_OK(eager.Apply(event).status());
    ASSERT_OK(bulk.ApplyDeferred(event));
  }
  size_t tasks_given = 0;
  EXPECT_THAT(bulk.Settle(2,
                          [&tasks_given](absl::Span<const std::function<void()>> tasks) {
                            tasks_given = tasks.size();
                            tasks[0]();  // the second task never runs
                          }),
              StatusIs(absl::StatusCode::kInternal));
  ASSERT_EQ(tasks_given, 2u);
  // The skipped runs stayed open: a settle that runs every task completes the fold.
  ASSERT_OK(bulk.Settle());
  EXPECT_EQ(bulk.Serialize(), eager.Serialize());
  EXPECT_EQ(ReportingTally(bulk), ReportingTally(eager));
}

TEST(StatusProjectionDeferredTest, AReportThatDoesNotReadIsDataLossNamingItsSeq) {
  StatusProjection bulk;
  ASSERT_OK(bulk.ApplyDeferred(StoredAt(1, TargetStream("fleet-a", "edge-1"), Registered("u"))));
  v1::Event event;
  event.mutable_report_accepted()->set_target_uid("u");
  store::RecordedEvent report = StoredAt(2, ReportStream("fleet-a", "edge-1"), event);
  report.payload = std::string("\x12\x05\x0a", 3);  // a report longer than the bytes left
  EXPECT_THAT(bulk.ApplyDeferred(report),
              StatusIs(absl::StatusCode::kDataLoss, ::testing::HasSubstr("event seq 2")));
  EXPECT_EQ(bulk.seq(), 1);
  report.seq = 3;
  EXPECT_THAT(bulk.ApplyDeferred(report),
              StatusIs(absl::StatusCode::kDataLoss, ::testing::HasSubstr("handed seq 3")));
}

}  // namespace status_projection_deferred_test
}  // namespace credledger::projections
