// BridgeReportSink, the way TargetReports read by the watch enter ReportIngest, on a real
// SQLite log with a fake clock: a refused report names the fields of the TargetReport the
// agent wrote (`spec.…`), as docs/reports.md ("Validation") promises, not those of the
// PushReport request.
#include "service/bridge/bridge_report_sink.h"

#include <memory>
#include <string>

#include "common/clock.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "projections/proto_time.h"
#include "service/api/report_ingest.h"
#include "service/api/space_reserve.h"
#include "service/bus/target_command_bus.h"
#include "test/support/status_matchers.h"
#include "test/support/temp_dir.h"
#include "test/support/test_event_log.h"

namespace credledger::service {
namespace bridge_report_sink_test {

using ::testing::AllOf;
using ::testing::HasSubstr;
using ::testing::Not;
using testing::StatusIs;

constexpr absl::Duration kWait = absl::Seconds(30);  // only reached when a test fails

class BridgeReportSinkTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_OK_AND_ASSIGN(store_, ::credledger::testing::OpenTestEventLog(dir_.path(), &clock_));
    targets_bus_ = std::make_unique<TargetCommandBus>(store_.get());
    ASSERT_OK_AND_ASSIGN(targets_, projections::CredentialProjector::Start(store_.get(), {}));
    bus_ = std::make_unique<ReportCommandBus>(store_.get(), ReportBusDecider(targets_bus_.get()));
    ingest_ = std::make_unique<ReportIngest>(bus_.get(), &liveness_, targets_.get(), &space_,
                                             &clock_, ReportIngest::Limits{});
    sink_ = std::make_unique<BridgeReportSink>(ingest_.get());
    CommandContext context{"demo", "edge-1", clock_.Now(), "alice", "register", {}};
    ASSERT_OK(targets_bus_->Execute(RegisterTarget{}, context).status());
    ASSERT_TRUE(targets_->WaitForSeq(store_->HeadSeq(), kWait));
  }

  // A report taken at `at` with one Ready release apps/podinfo.
  static v1::TargetReportSpec Report(absl::Time at) {
    v1::TargetReportSpec report;
    *report.mutable_last_report_time() = projections::ToProto(at);
    v1::ReleaseStatus* release = report.add_releases();
    release->set_name("podinfo");
    release->set_namespace_("apps");
    release->set_phase(v1::RELEASE_PHASE_READY);
    return report;
  }

  absl::Status Submit(const v1::TargetReportSpec& report) {
    return sink_->SubmitReport("demo", "edge-1", report, std::to_string(++revisions_));
  }

  ::credledger::testing::TempDir dir_;
  common::FakeClock clock_;
  std::unique_ptr<store::SqliteEventStore> store_;
  std::unique_ptr<TargetCommandBus> targets_bus_;
  std::unique_ptr<projections::CredentialProjector> targets_;
  std::unique_ptr<ReportCommandBus> bus_;
  LivenessBuffer liveness_;
  SpaceReserve space_{[]() -> absl::StatusOr<uint64_t> { return uint64_t{1} << 40; }, 0};
  std::unique_ptr<ReportIngest> ingest_;
  std::unique_ptr<BridgeReportSink> sink_;
  int revisions_ = 0;
};

TEST_F(BridgeReportSinkTest, AnInvalidReleaseIsNamedByItsPathInTheSpec) {
  v1::TargetReportSpec report = Report(clock_.Now());
  report.mutable_releases(0)->set_name("Podinfo");
  EXPECT_THAT(Submit(report), StatusIs(absl::StatusCode::kInvalidArgument,
                                       AllOf(HasSubstr("spec.releases[0].name: \"Podinfo\""),
                                             Not(HasSubstr("report.")))));
}

TEST_F(BridgeReportSinkTest, AReleaseListedTwiceIsNamedByTheNameOfTheSecondEntry) {
  v1::TargetReportSpec report = Report(clock_.Now());
  *report.add_releases() = report.releases(0);
  EXPECT_THAT(Submit(report),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("spec.releases[1].name: release \"apps/podinfo\" duplicates "
                                 "releases[0]")));
}

TEST_F(BridgeReportSinkTest, ATimeTooFarAheadIsNamedAsTheSpecsLastReportTime) {
  EXPECT_THAT(Submit(Report(clock_.Now() + absl::Minutes(10))),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       AllOf(HasSubstr("spec.lastReportTime: "),
                             HasSubstr("ahead of the server's clock"))));
}

TEST_F(BridgeReportSinkTest, ATimeNotLaterThanTheLastAcceptedIsNamedAsTheSpecsLastReportTime) {
  ASSERT_OK(Submit(Report(clock_.Now())));
  v1::TargetReportSpec older = Report(clock_.Now() - absl::Minutes(1));
  older.mutable_releases(0)->set_phase(v1::RELEASE_PHASE_FAILED);
  EXPECT_THAT(Submit(older),
              StatusIs(absl::StatusCode::kFailedPrecondition, HasSubstr("spec.lastReportTime: ")));
}

}  // namespace bridge_report_sink_test
}  // namespace credledger::service
