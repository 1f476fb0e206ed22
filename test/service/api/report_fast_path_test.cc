// ReportIngest's heartbeats decided without the writer, on a real SQLite log with a fake
// clock (docs/reports.md, "How a heartbeat is decided"): a plain heartbeat never enters the
// writer and is recorded as one decided inside it would be; every race that could make the
// answer differ from the writer's sends the heartbeat through the writer instead: a changed
// report of the Target in flight, the Target deleted or registered again, a clock skew in
// force, a request id used before, the space reserve.
#include <atomic>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/synchronization/notification.h"
#include "common/clock.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "projections/proto_time.h"
#include "service/api/report_ingest.h"
#include "service/api/report_scheduler.h"
#include "service/api/space_reserve.h"
#include "service/bus/target_command_bus.h"
#include "test/support/status_matchers.h"
#include "test/support/temp_dir.h"
#include "test/support/test_event_log.h"

namespace credledger::service {
namespace report_fast_path_test {

using ::testing::HasSubstr;
using testing::StatusIs;

constexpr absl::Duration kWait = absl::Seconds(30);  // only reached when a test fails
constexpr uint64_t kReserve = uint64_t{1} << 20;
constexpr char kUid[] = "6f1c2a9e-0b7d-4e52-9c3a-1d2e3f405162";
constexpr char kOtherUid[] = "a0b1c2d3-e4f5-4a6b-8c7d-9e0f1a2b3c4d";

class ReportFastPathTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_OK_AND_ASSIGN(store_, ::credledger::testing::OpenTestEventLog(dir_.path(), &clock_));
    targets_bus_ = std::make_unique<TargetCommandBus>(store_.get());
    ASSERT_OK_AND_ASSIGN(targets_, projections::CredentialProjector::Start(store_.get(), {}));
    ASSERT_OK_AND_ASSIGN(statuses_, projections::StatusProjector::Start(store_.get(), {}));
    bus_ = std::make_unique<ReportCommandBus>(store_.get(), ReportBusDecider(targets_bus_.get()));
    // No --report-min-interval: a changed report is appended at once.
    ingest_ =
        std::make_unique<ReportIngest>(bus_.get(), &liveness_, targets_.get(), &space_, &clock_,
                                       ReportIngest::Limits{.min_interval = absl::ZeroDuration()});
    scheduler_ = std::make_unique<ReportScheduler>(bus_.get(), &liveness_, ingest_.get(), &space_,
                                                   targets_.get(), statuses_.get(), &clock_,
                                                   ReportScheduler::Options{});
    Target(RegisterTarget{kUid, true}, "register");
    // The first report goes through the writer and gives the Target its baseline; the
    // heartbeat after it is the fast path's.
    ASSERT_OK(Push(Report("1.0.0", clock_.Now())).status());
    clock_.Advance(absl::Seconds(30));
    ASSERT_TRUE(IsHeartbeat(Push(Report("1.0.0", clock_.Now()))));
  }

  static bool IsHeartbeat(const absl::StatusOr<ReportIngest::PushResult>& result) {
    return result.ok() && result->heartbeat;
  }

  // Runs `command` on demo/edge-1 under `request_id` and waits for the projectors.
  void Target(const TargetCommand& command, const std::string& request_id) {
    CommandContext context{"demo", "edge-1", clock_.Now(), "alice", request_id, {}};
    ASSERT_OK(targets_bus_->Execute(command, context).status());
    ASSERT_TRUE(targets_->WaitForSeq(store_->HeadSeq(), kWait));
  }

  // A report taken at `report_time` whose one release carries `revision`.
  static v1::TargetReportSpec Report(const std::string& revision, absl::Time report_time) {
    v1::TargetReportSpec report;
    *report.mutable_last_report_time() = projections::ToProto(report_time);
    v1::ReleaseStatus* release = report.add_releases();
    release->set_name("podinfo");
    release->set_namespace_("apps");
    release->set_phase(v1::RELEASE_PHASE_READY);
    release->set_revision(revision);
    return report;
  }

  absl::StatusOr<ReportIngest::PushResult> Push(const v1::TargetReportSpec& report,
                                                const std::string& request_id = "") {
    const std::string id = request_id.empty() ? absl::StrCat("push-", ++pushes_) : request_id;
    return ingest_->Push("demo", "edge-1", report, "agent", {id, ""}, ReportSource::kPushReport);
  }

  // Commands the log's single writer ran so far.
  int64_t WriterCommands() const { return store_->stats().commands; }

  // Number of events of `type` (short message name) in the log.
  int Count(const std::string& type) {
    absl::StatusOr<std::vector<store::RecordedEvent>> events = store_->ReadAll(0, 10000);
    EXPECT_OK(events);
    int n = 0;
    for (const store::RecordedEvent& e : events.value_or(std::vector<store::RecordedEvent>{})) {
      n += e.type == absl::StrCat("credledger.v1.", type);
    }
    return n;
  }

  v1::TargetStatus Status() {
    EXPECT_TRUE(statuses_->WaitForSeq(store_->HeadSeq(), kWait));
    return statuses_->Get("demo", "edge-1").value_or(v1::TargetStatus());
  }

  testing::TempDir dir_;
  common::FakeClock clock_;
  std::unique_ptr<store::SqliteEventStore> store_;
  std::unique_ptr<TargetCommandBus> targets_bus_;
  std::unique_ptr<projections::CredentialProjector> targets_;
  std::unique_ptr<projections::StatusProjector> statuses_;
  std::unique_ptr<ReportCommandBus> bus_;
  LivenessBuffer liveness_;
  std::atomic<uint64_t> free_bytes_{uint64_t{1} << 40};
  SpaceReserve space_{[this]() -> absl::StatusOr<uint64_t> { return free_bytes_.load(); },
                      kReserve};
  std::unique_ptr<ReportIngest> ingest_;
  std::unique_ptr<ReportScheduler> scheduler_;
  int pushes_ = 0;
};

TEST_F(ReportFastPathTest, HeartbeatsNeverEnterTheWriterAndTheNextBatchRecordsTheNewest) {
  const int64_t commands = WriterCommands();
  for (int i = 0; i < 100; ++i) {
    clock_.Advance(absl::Seconds(1));
    ASSERT_OK_AND_ASSIGN(ReportIngest::PushResult result, Push(Report("1.0.0", clock_.Now())));
    EXPECT_TRUE(result.heartbeat);
    EXPECT_EQ(result.seq, 0);
  }
  EXPECT_EQ(WriterCommands(), commands);
  EXPECT_EQ(liveness_.PendingSeenAt("demo", "edge-1"), clock_.Now());

  ASSERT_OK(scheduler_->FlushLiveness());
  EXPECT_EQ(Count("LivenessObserved"), 1);
  EXPECT_EQ(projections::FromProto(Status().last_seen_at()), clock_.Now());
  EXPECT_EQ(projections::FromProto(Status().last_report_time()), clock_.Now());
  // A report must still be later than the newest heartbeat.
  EXPECT_THAT(Push(Report("2.0.0", clock_.Now() - absl::Seconds(1))),
              StatusIs(absl::StatusCode::kFailedPrecondition, HasSubstr("is not later than")));
}

// The fault this prevents: a changed report waits for the writer while a heartbeat equal to
// the report before it, with a later lastReportTime, is answered from the old baseline; the
// log then holds the changed report as the Target's last one and the heartbeat's time, which
// the agent sent for other content.
TEST_F(ReportFastPathTest, AHeartbeatBehindAChangedReportInFlightIsDecidedByTheWriterAfterIt) {
  absl::Notification entered, release;
  std::thread blocker([&] {
    EXPECT_OK(store_->Execute([&](store::WriteTransaction&) -> absl::Status {
      entered.Notify();
      release.WaitForNotification();
      return absl::OkStatus();
    }));
  });
  entered.WaitForNotification();
  clock_.Advance(absl::Seconds(1));
  const v1::TargetReportSpec changed = Report("1.0.1", clock_.Now());
  std::thread in_flight([&] { EXPECT_OK(Push(changed, "changed").status()); });
  const absl::Time give_up = absl::Now() + kWait;
  while (store_->stats().queue_depth < 1 && absl::Now() < give_up) std::this_thread::yield();
  ASSERT_EQ(store_->stats().queue_depth, 1);

  clock_.Advance(absl::Seconds(1));
  const v1::TargetReportSpec old_content = Report("1.0.0", clock_.Now());
  absl::StatusOr<ReportIngest::PushResult> behind;
  std::atomic<bool> answered{false};
  std::thread heartbeat([&] {
    behind = Push(old_content, "behind");
    answered = true;
  });
  // The heartbeat must queue behind the changed report; answered at once, it did not.
  while (store_->stats().queue_depth < 2 && !answered && absl::Now() < give_up) {
    std::this_thread::yield();
  }
  release.Notify();
  blocker.join();
  in_flight.join();
  heartbeat.join();
  ASSERT_OK(behind.status());
  EXPECT_FALSE(behind->heartbeat);
  EXPECT_GT(behind->seq, 0);
  EXPECT_EQ(Count("ReportAccepted"), 3);
  EXPECT_EQ(Status().last_report().releases(0).revision(), "1.0.0");
  EXPECT_EQ(liveness_.PendingSeenAt("demo", "edge-1"), clock_.Now() - absl::Seconds(2));
}

TEST_F(ReportFastPathTest, AHeartbeatWithAnInvalidLastReportTimeIsRefusedAsTheWriterRefusesIt) {
  clock_.Advance(absl::Seconds(30));
  v1::TargetReportSpec report = Report("1.0.0", clock_.Now());
  report.mutable_last_report_time()->set_nanos(-1);
  EXPECT_THAT(Push(report), StatusIs(absl::StatusCode::kInvalidArgument,
                                     HasSubstr("report.lastReportTime: ")));
}

TEST_F(ReportFastPathTest, AHeartbeatOfATargetBeingDeletedIsRefusedAsTheWriterRefusesIt) {
  Target(DeleteTarget{}, "delete");
  clock_.Advance(absl::Seconds(30));
  EXPECT_THAT(Push(Report("1.0.0", clock_.Now())),
              StatusIs(absl::StatusCode::kFailedPrecondition, HasSubstr("is being deleted")));
}

TEST_F(ReportFastPathTest, TheSameReportOfATargetRegisteredAgainIsItsFirstReport) {
  Target(DeleteTarget{}, "delete");
  Target(RecordTargetFinalized{}, "finalize");
  Target(RegisterTarget{kOtherUid, true}, "register-again");
  clock_.Advance(absl::Seconds(30));
  ASSERT_OK_AND_ASSIGN(ReportIngest::PushResult result, Push(Report("1.0.0", clock_.Now())));
  EXPECT_FALSE(result.heartbeat);
  EXPECT_GT(result.seq, 0);
  EXPECT_EQ(Status().target_uid(), kOtherUid);
  EXPECT_EQ(projections::FromProto(Status().last_report().last_report_time()), clock_.Now());
}

TEST_F(ReportFastPathTest, AHeartbeatEndsAClockSkewThroughTheWriterAndTheNextIsFastAgain) {
  clock_.Advance(absl::Seconds(30));
  EXPECT_THAT(Push(Report("1.0.0", clock_.Now() + absl::Minutes(10))),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("ahead of the server")));
  EXPECT_EQ(Count("ReportClockSkewDetected"), 1);

  clock_.Advance(absl::Seconds(30));
  ASSERT_OK_AND_ASSIGN(ReportIngest::PushResult ended, Push(Report("1.0.0", clock_.Now())));
  EXPECT_TRUE(ended.heartbeat);
  EXPECT_EQ(Count("ReportClockSkewCleared"), 1);
  EXPECT_EQ(Status().reporting().reason(), "ReportReceived");

  const int64_t commands = WriterCommands();
  clock_.Advance(absl::Seconds(30));
  ASSERT_TRUE(IsHeartbeat(Push(Report("1.0.0", clock_.Now()))));
  EXPECT_EQ(WriterCommands(), commands);
}

TEST_F(ReportFastPathTest, AReportRefusedForClockSkewAndRetriedOnceInRangeIsRefusedAgain) {
  const v1::TargetReportSpec ahead = Report("1.0.0", clock_.Now() + absl::Minutes(10));
  EXPECT_THAT(Push(ahead, "ahead"), StatusIs(absl::StatusCode::kInvalidArgument));
  clock_.Advance(absl::Seconds(30));
  ASSERT_TRUE(IsHeartbeat(Push(Report("1.0.0", clock_.Now()))));  // ends the skew
  clock_.Advance(absl::Minutes(6));  // `ahead` is no longer too far ahead
  ASSERT_TRUE(IsHeartbeat(Push(Report("1.0.0", clock_.Now()))));
  EXPECT_THAT(Push(ahead, "ahead"),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("report.lastReportTime")));
  EXPECT_EQ(liveness_.PendingSeenAt("demo", "edge-1"), clock_.Now());
}

TEST_F(ReportFastPathTest, AHeartbeatUnderTheRequestIdOfAnotherCommandIsFailedPrecondition) {
  clock_.Advance(absl::Seconds(30));
  EXPECT_THAT(Push(Report("1.0.0", clock_.Now()), "register"),
              StatusIs(absl::StatusCode::kFailedPrecondition,
                       HasSubstr("request_id \"register\" was already used for RegisterTarget")));
}

TEST_F(ReportFastPathTest, BelowTheReserveAHeartbeatIsRefusedAndNotRecorded) {
  const absl::Time seen = clock_.Now();
  free_bytes_ = kReserve - 1;
  clock_.Advance(absl::Seconds(30));
  EXPECT_THAT(Push(Report("1.0.0", clock_.Now())),
              StatusIs(absl::StatusCode::kResourceExhausted, HasSubstr("--space-reserve")));
  EXPECT_EQ(liveness_.PendingSeenAt("demo", "edge-1"), seen);
  EXPECT_EQ(ingest_->stats().refused_no_space, 1);
}

TEST_F(ReportFastPathTest, AnIngestThatSendsHeartbeatsThroughTheWriterDoesSoForEachOne) {
  ReportIngest through(bus_.get(), &liveness_, targets_.get(), &space_, &clock_,
                       ReportIngest::Limits{}, ReportIngest::HeartbeatPath::kThroughWriter);
  for (int i = 1; i <= 2; ++i) {
    const int64_t commands = WriterCommands();
    clock_.Advance(absl::Seconds(30));
    ASSERT_OK_AND_ASSIGN(
        ReportIngest::PushResult result,
        through.Push("demo", "edge-1", Report("1.0.0", clock_.Now()), "agent",
                     {absl::StrCat("through-", i), ""}, ReportSource::kPushReport));
    EXPECT_TRUE(result.heartbeat);
    EXPECT_EQ(WriterCommands(), commands + 1);
    EXPECT_EQ(liveness_.PendingSeenAt("demo", "edge-1"), clock_.Now());
  }
}

}  // namespace report_fast_path_test
}  // namespace credledger::service
