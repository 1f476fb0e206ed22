// ReportIngest and ReportScheduler on a real SQLite log with a fake clock (docs/reports.md,
// "Ingest" and "Liveness and staleness": heartbeats, LivenessObserved batches, staleness
// found by the scheduler).
#include "service/api/report_scheduler.h"

#include <atomic>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "common/clock.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "projections/proto_time.h"
#include "service/api/report_ingest.h"
#include "service/api/space_reserve.h"
#include "service/bus/target_command_bus.h"
#include "store/event_codec.h"
#include "store/sqlite_event_store.h"
#include "test/kubebridge/await_sleepers.h"
#include "test/support/status_matchers.h"
#include "test/support/temp_dir.h"
#include "test/support/test_event_log.h"

namespace credledger::service {
namespace report_scheduler_test {

using projections::FromProto;
using projections::ToProto;

v1::TargetReportSpec Report(absl::Time last_report_time, const std::string& revision = "1.0.0") {
  v1::TargetReportSpec report;
  *report.mutable_last_report_time() = ToProto(last_report_time);
  v1::ReleaseStatus* release = report.add_releases();
  release->set_name("podinfo");
  release->set_namespace_("apps");
  release->set_phase(v1::RELEASE_PHASE_READY);
  release->set_revision(revision);
  return report;
}

std::string Name(int i) { return absl::StrCat("edge-", i); }

class ReportSchedulerTest : public ::testing::Test {
 protected:
  static constexpr absl::Duration kStaleAfter = absl::Minutes(10);

  void SetUp() override {
    ASSERT_OK_AND_ASSIGN(store_, ::credledger::testing::OpenTestEventLog(dir_.path(), &clock_));
    targets_bus_ = std::make_unique<TargetCommandBus>(store_.get());
    ASSERT_OK_AND_ASSIGN(targets_,
                         projections::CredentialProjector::Start(store_.get(), {0, 1000}));
    ASSERT_OK_AND_ASSIGN(statuses_, projections::StatusProjector::Start(store_.get(), {0, 1000}));
    bus_ = std::make_unique<ReportCommandBus>(store_.get(), ReportBusDecider(targets_bus_.get()));
    ingest_ = std::make_unique<ReportIngest>(bus_.get(), &liveness_, targets_.get(), &space_,
                                             &clock_, ReportIngest::Limits{});
    scheduler_ = std::make_unique<ReportScheduler>(
        bus_.get(), &liveness_, ingest_.get(), &space_, targets_.get(), statuses_.get(), &clock_,
        ReportScheduler::Options{absl::Seconds(5), kStaleAfter, absl::Seconds(30)});
  }

  void Register(const std::string& name) {
    CommandContext context{"demo", name, clock_.Now(), "alice", absl::StrCat("register-", name),
                           {}};
    ASSERT_OK(targets_bus_->Execute(RegisterTarget{}, context).status());
    ASSERT_TRUE(targets_->WaitForSeq(store_->HeadSeq(), absl::Seconds(30)));
  }
  absl::StatusOr<ReportIngest::PushResult> Push(const std::string& name,
                                                const v1::TargetReportSpec& report) {
    return ingest_->Push("demo", name, report, "agent",
                         {absl::StrCat("push-", name, "-", ++pushes_), ""},
                         ReportSource::kPushReport);
  }
  // Number of events of `type` (short message name) in the log.
  int Count(const std::string& type) {
    int n = 0;
    int64_t after = 0;
    while (true) {
      absl::StatusOr<std::vector<store::RecordedEvent>> page = store_->ReadAll(after, 512);
      EXPECT_OK(page);
      if (!page.ok() || page->empty()) return n;
      for (const store::RecordedEvent& e : *page) {
        if (e.type == absl::StrCat("credledger.v1.", type)) ++n;
      }
      after = page->back().seq;
    }
  }
  v1::TargetStatus Status(const std::string& name) {
    EXPECT_TRUE(statuses_->WaitForSeq(store_->HeadSeq(), absl::Seconds(30)));
    return statuses_->Get("demo", name).value_or(v1::TargetStatus());
  }

  testing::TempDir dir_;
  common::FakeClock clock_;
  std::unique_ptr<store::SqliteEventStore> store_;
  std::unique_ptr<TargetCommandBus> targets_bus_;
  std::unique_ptr<projections::CredentialProjector> targets_;
  std::unique_ptr<projections::StatusProjector> statuses_;
  std::unique_ptr<ReportCommandBus> bus_;
  LivenessBuffer liveness_;
  // The free bytes the space reserve reads (a fake file system), and the reserve (1 MiB).
  std::atomic<uint64_t> free_bytes_{uint64_t{1} << 40};
  SpaceReserve space_{[this]() -> absl::StatusOr<uint64_t> { return free_bytes_.load(); },
                      uint64_t{1} << 20};
  std::unique_ptr<ReportIngest> ingest_;
  std::unique_ptr<ReportScheduler> scheduler_;
  int pushes_ = 0;
};

TEST_F(ReportSchedulerTest, HeartbeatsWaitInMemoryAndFlushAsOneBatch) {
  for (int i = 1; i <= 3; ++i) Register(Name(i));
  for (int i = 3; i >= 1; --i) ASSERT_OK(Push(Name(i), Report(clock_.Now())).status());
  clock_.Advance(absl::Seconds(30));
  for (int i = 3; i >= 1; --i) {
    ASSERT_OK_AND_ASSIGN(ReportIngest::PushResult result, Push(Name(i), Report(clock_.Now())));
    EXPECT_TRUE(result.heartbeat);
    EXPECT_EQ(result.seq, 0);
  }
  EXPECT_EQ(liveness_.pending(), 3u);
  EXPECT_EQ(Count("LivenessObserved"), 0);

  ASSERT_OK(scheduler_->FlushLiveness());
  EXPECT_EQ(liveness_.pending(), 0u);
  EXPECT_EQ(Count("LivenessObserved"), 1);
  EXPECT_EQ(Count("ReportAccepted"), 3);
  ASSERT_OK_AND_ASSIGN(std::vector<store::RecordedEvent> batch,
                       store_->ReadStream("liveness", 0, 10));
  ASSERT_EQ(batch.size(), 1u);
  ASSERT_OK_AND_ASSIGN(v1::Event event, store::EventCodec::Default().Decode(batch[0]));
  ASSERT_EQ(event.liveness_observed().entries_size(), 3);
  EXPECT_EQ(event.liveness_observed().entries(0).name(), "edge-1");
  EXPECT_EQ(FromProto(event.liveness_observed().entries(0).received_at()), clock_.Now());
  EXPECT_EQ(FromProto(Status("edge-2").last_seen_at()), clock_.Now());

  // Nothing waits: a flush appends nothing.
  ASSERT_OK(scheduler_->FlushLiveness());
  EXPECT_EQ(Count("LivenessObserved"), 1);
}

TEST_F(ReportSchedulerTest, ARetriedReportIsNoHeartbeat) {
  Register("edge-1");
  const v1::TargetReportSpec report = Report(clock_.Now());
  ASSERT_OK(Push("edge-1", report).status());
  clock_.Advance(absl::Minutes(1));
  // The same object again (a re-list, a client retry): the agent said nothing new.
  ASSERT_OK_AND_ASSIGN(ReportIngest::PushResult result, Push("edge-1", report));
  EXPECT_TRUE(result.heartbeat);
  EXPECT_EQ(liveness_.pending(), 0u);
}

TEST_F(ReportSchedulerTest, AReportMustBeLaterThanAWaitingHeartbeat) {
  Register("edge-1");
  ASSERT_OK(Push("edge-1", Report(clock_.Now())).status());
  clock_.Advance(absl::Minutes(2));
  ASSERT_OK(Push("edge-1", Report(clock_.Now())).status());  // heartbeat, still in memory
  EXPECT_THAT(Push("edge-1", Report(clock_.Now() - absl::Minutes(1), "2.0.0")),
              testing::StatusIs(absl::StatusCode::kFailedPrecondition));
  EXPECT_EQ(Count("ReportAccepted"), 1);
}

TEST_F(ReportSchedulerTest, TenThousandHeartbeatsAppendAHandfulOfEvents) {
  constexpr int kTargets = 1000;
  constexpr int kRounds = 10;
  for (int i = 0; i < kTargets; ++i) Register(Name(i));
  for (int i = 0; i < kTargets; ++i) ASSERT_OK(Push(Name(i), Report(clock_.Now())).status());
  const int64_t before = Count("ReportAccepted");
  for (int round = 1; round <= kRounds; ++round) {
    clock_.Advance(absl::Seconds(1));
    for (int i = 0; i < kTargets; ++i) {
      ASSERT_OK_AND_ASSIGN(ReportIngest::PushResult r, Push(Name(i), Report(clock_.Now())));
      ASSERT_TRUE(r.heartbeat);
    }
    if (round % 5 == 0) ASSERT_OK(scheduler_->RunOnce());  // every 5 s of fake time
  }
  EXPECT_EQ(Count("ReportAccepted"), before);
  EXPECT_EQ(Count("LivenessObserved"), 2);
  EXPECT_EQ(Count("ReportingStale"), 0);
  EXPECT_EQ(FromProto(Status(Name(kTargets - 1)).last_seen_at()), clock_.Now());
}

TEST_F(ReportSchedulerTest, ASilentTargetGoesStaleOnceAndComesBackWithTheNextHeartbeat) {
  Register("edge-1");
  Register("edge-2");
  ASSERT_OK(Push("edge-1", Report(clock_.Now())).status());
  EXPECT_EQ(Status("edge-1").reporting().status(), "True");
  EXPECT_EQ(Status("edge-2").reporting().status(), "Unknown");

  clock_.Advance(kStaleAfter - absl::Seconds(1));
  ASSERT_OK(scheduler_->RunOnce());
  EXPECT_EQ(Count("ReportingStale"), 0);

  clock_.Advance(absl::Seconds(1));
  ASSERT_OK(scheduler_->RunOnce());
  ASSERT_OK(scheduler_->RunOnce());
  EXPECT_EQ(Count("ReportingStale"), 1);
  v1::TargetStatus stale = Status("edge-1");
  EXPECT_EQ(stale.reporting().status(), "False");
  EXPECT_EQ(stale.reporting().reason(), "Stale");
  // A Target that never reported stays Unknown: there is no silence to measure.
  EXPECT_EQ(Status("edge-2").reporting().status(), "Unknown");

  clock_.Advance(absl::Minutes(1));
  ASSERT_OK_AND_ASSIGN(ReportIngest::PushResult heartbeat, Push("edge-1", Report(clock_.Now())));
  EXPECT_TRUE(heartbeat.heartbeat);
  ASSERT_OK(scheduler_->RunOnce());
  EXPECT_EQ(Status("edge-1").reporting().status(), "True");

  // A second silence is marked again, once.
  clock_.Advance(kStaleAfter);
  ASSERT_OK(scheduler_->RunOnce());
  ASSERT_OK(scheduler_->RunOnce());
  EXPECT_EQ(Count("ReportingStale"), 2);
}

TEST_F(ReportSchedulerTest, AHeartbeatWaitingInMemoryCountsAsSeen) {
  Register("edge-1");
  ASSERT_OK(Push("edge-1", Report(clock_.Now())).status());
  clock_.Advance(kStaleAfter - absl::Minutes(1));
  ASSERT_OK(Push("edge-1", Report(clock_.Now())).status());
  clock_.Advance(absl::Minutes(2));
  ASSERT_OK(scheduler_->RunOnce());
  EXPECT_EQ(Count("ReportingStale"), 0);
  EXPECT_EQ(Status("edge-1").reporting().status(), "True");
}

TEST_F(ReportSchedulerTest, StopFlushesWaitingHeartbeats) {
  Register("edge-1");
  ASSERT_OK(Push("edge-1", Report(clock_.Now())).status());
  clock_.Advance(absl::Seconds(30));
  ASSERT_OK(Push("edge-1", Report(clock_.Now())).status());
  scheduler_->Start();
  scheduler_->Stop();
  EXPECT_EQ(Count("LivenessObserved"), 1);
  EXPECT_EQ(liveness_.pending(), 0u);
}

TEST_F(ReportSchedulerTest, TheTimerRunsRoundsByTheClock) {
  Register("edge-1");
  ASSERT_OK(Push("edge-1", Report(clock_.Now())).status());
  clock_.Advance(absl::Seconds(30));
  ASSERT_OK(Push("edge-1", Report(clock_.Now())).status());
  const int64_t head = store_->HeadSeq();
  scheduler_->Start();
  ASSERT_TRUE(kubebridge::AwaitSleepers(clock_, 1));
  EXPECT_EQ(store_->HeadSeq(), head);  // nothing before the period has passed
  clock_.Advance(absl::Seconds(5));
  EXPECT_GT(store_->WaitForHead(head, absl::Seconds(30)), head);
  EXPECT_EQ(Count("LivenessObserved"), 1);
  scheduler_->Stop();
}

}  // namespace report_scheduler_test
}  // namespace credledger::service
