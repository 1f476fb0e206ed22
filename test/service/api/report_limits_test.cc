// The limits of the report path through ReportApi, ReportIngest and ReportScheduler on a real
// SQLite log with a fake clock and a fake free-space source (docs/reports.md, "Limits"): the
// byte limit per report, the minimum interval between one Target's ReportAccepted events (held
// reports, newest wins), and the space reserve that refuses reports and heartbeats while a
// revocation still commits.
#include <atomic>
#include <filesystem>
#include <memory>
#include <string>

#include "absl/strings/str_cat.h"
#include "common/clock.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "projections/proto_time.h"
#include "service/api/report_api.h"
#include "service/api/report_ingest.h"
#include "service/api/report_scheduler.h"
#include "service/api/space_reserve.h"
#include "service/bridge/bridge_report_sink.h"
#include "service/bus/target_command_bus.h"
#include "test/support/status_matchers.h"
#include "test/support/temp_dir.h"
#include "test/support/test_event_log.h"

namespace credledger::service {
namespace report_limits_test {

using ::testing::AllOf;
using ::testing::HasSubstr;
using testing::StatusIs;

constexpr absl::Duration kWait = absl::Seconds(30);  // only reached when a test fails
constexpr uint64_t kReserve = uint64_t{256} << 20;

class ReportLimitsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_OK_AND_ASSIGN(store_, ::credledger::testing::OpenTestEventLog(dir_.path(), &clock_));
    targets_bus_ = std::make_unique<TargetCommandBus>(store_.get());
    ASSERT_OK_AND_ASSIGN(targets_, projections::CredentialProjector::Start(store_.get(), {}));
    ASSERT_OK_AND_ASSIGN(statuses_, projections::StatusProjector::Start(store_.get(), {}));
    bus_ = std::make_unique<ReportCommandBus>(store_.get(), ReportBusDecider(targets_bus_.get()));
    ingest_ = std::make_unique<ReportIngest>(bus_.get(), &liveness_, targets_.get(), &space_,
                                             &clock_, ReportIngest::Limits{});
    api_ = std::make_unique<ReportApi>(ingest_.get(), statuses_.get(), ReportApi::Options{});
    scheduler_ = std::make_unique<ReportScheduler>(bus_.get(), &liveness_, ingest_.get(), &space_,
                                                   targets_.get(), statuses_.get(), &clock_,
                                                   ReportScheduler::Options{});
    CommandContext context{"demo", "edge-1", clock_.Now(), "alice", "register", {}};
    ASSERT_OK(targets_bus_->Execute(RegisterTarget{}, context).status());
    ASSERT_TRUE(targets_->WaitForSeq(store_->HeadSeq(), kWait));
  }

  // A report taken now whose one release has `phase` and carries `revision`.
  v1::TargetReportSpec Report(const std::string& revision,
                              v1::ReleasePhase phase = v1::RELEASE_PHASE_PROGRESSING) {
    v1::TargetReportSpec report;
    *report.mutable_last_report_time() = projections::ToProto(clock_.Now());
    v1::ReleaseStatus* release = report.add_releases();
    release->set_name("podinfo");
    release->set_namespace_("apps");
    release->set_phase(phase);
    release->set_revision(revision);
    return report;
  }

  absl::StatusOr<v1::PushReportResponse> Push(const v1::TargetReportSpec& report) {
    v1::PushReportRequest request;
    request.set_namespace_("demo");
    request.set_name("edge-1");
    request.set_request_id(absl::StrCat("push-", ++pushes_));
    *request.mutable_report() = report;
    return api_->PushReport(request, "agent");
  }

  // Number of ReportAccepted events in the log.
  int Accepted() {
    absl::StatusOr<std::vector<store::RecordedEvent>> events = store_->ReadAll(0, 10000);
    EXPECT_OK(events);
    int n = 0;
    for (const store::RecordedEvent& e : events.value_or(std::vector<store::RecordedEvent>{})) {
      n += e.type == "credledger.v1.ReportAccepted";
    }
    return n;
  }

  // Bytes of the database and its -wal and -shm files.
  uint64_t DatabaseBytes() const {
    uint64_t bytes = 0;
    for (const auto& entry : std::filesystem::directory_iterator(dir_.path())) {
      bytes += entry.file_size();
    }
    return bytes;
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
  std::unique_ptr<ReportApi> api_;
  std::unique_ptr<ReportScheduler> scheduler_;
  int pushes_ = 0;
};

// The fault: one agent token updated its own TargetReport 10 times with about 1.4 MB each,
// every one was appended, and the database and its WAL grew by 19.5 MB in 7.7 s.
TEST_F(ReportLimitsTest, TenReportsOfOnePointFourMegabytesAreRefusedAndTheLogBarelyGrows) {
  const int64_t head = store_->HeadSeq();
  const uint64_t before = DatabaseBytes();
  for (int i = 0; i < 10; ++i) {
    clock_.Advance(absl::Milliseconds(770));
    v1::TargetReportSpec report = Report(absl::StrCat("1.0.", i));
    for (int c = 0; c < 32; ++c) {
      for (auto* conditions : {report.mutable_releases(0)->mutable_helm_conditions(),
                               report.mutable_releases(0)->mutable_source_conditions()}) {
        v1::ReportCondition* condition = conditions->Add();
        condition->set_type(absl::StrCat("Check", c));
        condition->set_status("True");
        condition->set_reason("Padded");
        condition->set_message(std::string(22000, 'x'));
      }
    }
    ASSERT_GT(report.ByteSizeLong(), 1400000u);
    EXPECT_THAT(Push(report), StatusIs(absl::StatusCode::kInvalidArgument,
                                       AllOf(HasSubstr("target \"demo/edge-1\": report is 14"),
                                             HasSubstr("above the limit of 262144 bytes"))));
  }
  EXPECT_EQ(store_->HeadSeq(), head);
  EXPECT_LT(DatabaseBytes() - before, 64u * 1024);
  EXPECT_EQ(ingest_->stats().refused_too_large, 10);
}

TEST_F(ReportLimitsTest, AnOversizedReportFromTheWatchIsRefusedAndCounted) {
  BridgeReportSink sink(ingest_.get());
  v1::TargetReportSpec report = Report("1.0.0");
  report.mutable_releases(0)->add_helm_conditions()->set_message(std::string(300000, 'x'));
  EXPECT_THAT(sink.SubmitReport("demo", "edge-1", report, "41"),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("--report-max-bytes")));
  EXPECT_EQ(ingest_->stats().refused_too_large, 1);
}

TEST_F(ReportLimitsTest, ChangedReportsWithinTheIntervalAreHeldTheNewestWinsAndIsAppendedWhenDue) {
  ASSERT_OK(Push(Report("1.0.0")).status());
  const absl::Time first = clock_.Now();
  clock_.Advance(absl::Seconds(2));
  ASSERT_OK_AND_ASSIGN(v1::PushReportResponse held, Push(Report("1.0.1")));
  EXPECT_TRUE(held.held());
  EXPECT_EQ(held.seq(), 0);
  EXPECT_EQ(projections::FromProto(held.held_until()), first + absl::Seconds(10));
  clock_.Advance(absl::Seconds(1));
  const v1::TargetReportSpec newest = Report("1.0.2");
  ASSERT_OK_AND_ASSIGN(held, Push(newest));
  EXPECT_TRUE(held.held());
  EXPECT_EQ(ingest_->stats().held, 1);
  clock_.Advance(absl::Seconds(5));  // 8 s after the first: not due yet
  ASSERT_OK(scheduler_->RunOnce());
  EXPECT_EQ(Accepted(), 1);
  clock_.Advance(absl::Seconds(2));
  ASSERT_OK(scheduler_->RunOnce());
  EXPECT_EQ(Accepted(), 2);
  EXPECT_EQ(ingest_->stats().held, 0);
  ASSERT_TRUE(statuses_->WaitForSeq(store_->HeadSeq(), kWait));
  EXPECT_EQ(statuses_->Get("demo", "edge-1")->last_report().releases(0).revision(), "1.0.2");
  // A newly failed release is not held.
  clock_.Advance(absl::Seconds(1));
  ASSERT_OK_AND_ASSIGN(v1::PushReportResponse failed,
                       Push(Report("1.0.3", v1::RELEASE_PHASE_FAILED)));
  EXPECT_FALSE(failed.held());
  EXPECT_GT(failed.seq(), 0);
}

TEST_F(ReportLimitsTest, AHeldReportIsAppendedAtStopAndAHeartbeatSupersedesIt) {
  const v1::TargetReportSpec first = Report("1.0.0");
  ASSERT_OK(Push(first).status());
  clock_.Advance(absl::Seconds(1));
  ASSERT_TRUE(Push(Report("1.0.1"))->held());
  clock_.Advance(absl::Seconds(1));
  v1::TargetReportSpec heartbeat = first;  // the agent is back at the accepted report
  *heartbeat.mutable_last_report_time() = projections::ToProto(clock_.Now());
  ASSERT_TRUE(Push(heartbeat)->heartbeat());
  EXPECT_EQ(ingest_->stats().held, 0);
  clock_.Advance(absl::Seconds(1));
  ASSERT_TRUE(Push(Report("1.0.2"))->held());
  scheduler_->Stop();
  EXPECT_EQ(Accepted(), 2);
}

TEST_F(ReportLimitsTest, BelowTheReserveReportsAndHeartbeatsAreRefusedWhileARevocationCommits) {
  const v1::TargetReportSpec first = Report("1.0.0");
  ASSERT_OK(Push(first).status());
  free_bytes_ = kReserve - 1;
  const int64_t head = store_->HeadSeq();
  clock_.Advance(absl::Minutes(1));
  const std::string message =
      absl::StrCat("free space on the log's file system is ", kReserve - 1,
                   " bytes, below the reserve of ", kReserve, " bytes (--space-reserve)");
  EXPECT_THAT(Push(Report("1.0.1")),
              StatusIs(absl::StatusCode::kResourceExhausted, HasSubstr(message)));
  v1::TargetReportSpec heartbeat = first;
  *heartbeat.mutable_last_report_time() = projections::ToProto(clock_.Now());
  EXPECT_THAT(Push(heartbeat), StatusIs(absl::StatusCode::kResourceExhausted));
  EXPECT_EQ(liveness_.pending(), 0u);
  EXPECT_EQ(ingest_->stats().refused_no_space, 2);
  EXPECT_EQ(store_->HeadSeq(), head);

  CommandContext context{"demo", "edge-1", clock_.Now(), "alice", "revoke", {}};
  ASSERT_OK_AND_ASSIGN(CommandResult revoked, targets_bus_->Execute(Revoke{"key leaked"}, context));
  EXPECT_FALSE(revoked.events.empty());

  free_bytes_ = kReserve;
  EXPECT_OK(Push(Report("1.0.2")).status());
}

}  // namespace report_limits_test
}  // namespace credledger::service
