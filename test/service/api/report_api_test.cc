// ReportApi without gRPC: validation errors name the field and append nothing; reports and
// bound releases go through ReportIngest and are visible to the next read; GetTargetStatus,
// ListFleetStatus with its filters and summary, and WatchFleet's snapshot and changes.
#include "service/api/report_api.h"

#include <atomic>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "projections/credential_projector.h"
#include "projections/proto_time.h"
#include "service/api/liveness_buffer.h"
#include "service/api/report_ingest.h"
#include "service/api/space_reserve.h"
#include "service/bus/report_command_bus.h"
#include "service/bus/target_command_bus.h"
#include "service/server/service_configuration.h"
#include "store/sqlite_event_store.h"
#include "test/support/status_matchers.h"
#include "test/support/temp_dir.h"
#include "test/support/watch_waiter.h"

namespace credledger::service {
namespace report_api_test {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using testing::StatusIs;
using Kind = v1::WatchFleetResponse;

constexpr absl::Duration kWait = absl::Seconds(10);  // only reached when a test fails

class ReportApiTest : public ::testing::Test {
 protected:
  void SetUp() override {
    store::SqliteEventStoreOptions options;
    options.path = dir_.path() / "events.db";
    options.clock = &clock_;
    ASSERT_OK_AND_ASSIGN(store_, store::SqliteEventStore::Open(options));
    service_.set_agent_token_ttl_seconds(86400);
    ASSERT_OK(RecordServiceConfiguration(*store_, service_, "credledger"));
    target_bus_ = std::make_unique<TargetCommandBus>(store_.get());
    report_bus_ =
        std::make_unique<ReportCommandBus>(store_.get(), ReportBusDecider(target_bus_.get()));
    ASSERT_OK_AND_ASSIGN(targets_, projections::CredentialProjector::Start(store_.get(), {}));
    ASSERT_OK_AND_ASSIGN(statuses_, projections::StatusProjector::Start(store_.get(), {}));
    ingest_ = std::make_unique<ReportIngest>(report_bus_.get(), &liveness_, targets_.get(), &space_,
                                             &clock_, ReportIngest::Limits{});
    api_ = std::make_unique<ReportApi>(ingest_.get(), statuses_.get(), ReportApi::Options{});
  }

  // Registers <ns>/<name> and waits until both projectors have it.
  void Register(const std::string& ns, const std::string& name) {
    CommandContext context{ns,      name, clock_.Now(), "alice", "register-" + ns + "-" + name,
                           service_};
    auto result = target_bus_->Execute(RegisterTarget{Uid(), true}, context);
    ASSERT_OK(result);
    ASSERT_TRUE(targets_->WaitForSeq(store_->HeadSeq(), kWait));
    ASSERT_TRUE(statuses_->WaitForSeq(store_->HeadSeq(), kWait));
  }

  std::string Uid() { return "0f8fad5b-d9cb-469f-a165-7086772895" + std::to_string(10 + uids_++); }

  // A valid report taken now: one Ready release and one passed check.
  v1::TargetReportSpec Report(v1::ReleasePhase phase = v1::RELEASE_PHASE_READY) {
    v1::TargetReportSpec report;
    *report.mutable_last_report_time() = projections::ToProto(clock_.Now());
    v1::ReleaseStatus& release = *report.add_releases();
    release.set_name("app");
    release.set_namespace_("flux-system");
    release.set_phase(phase);
    release.set_revision("1.0.0");
    v1::PreflightCheck& check = *report.add_preflight_checks();
    check.set_type("DiskSpace");
    check.set_status("True");
    check.set_reason("Enough");
    return report;
  }

  v1::PushReportRequest Push(const std::string& ns, const std::string& name,
                             const std::string& request_id) {
    v1::PushReportRequest request;
    request.set_namespace_(ns);
    request.set_name(name);
    request.set_request_id(request_id);
    *request.mutable_report() = Report();
    return request;
  }

  v1::GetTargetStatusRequest Get(const std::string& ns, const std::string& name) {
    v1::GetTargetStatusRequest request;
    request.set_namespace_(ns);
    request.set_name(name);
    return request;
  }

  v1::ListFleetStatusRequest List(const std::string& ns, const std::string& type = "",
                                  const std::string& status = "") {
    v1::ListFleetStatusRequest request;
    request.set_namespace_(ns);
    request.set_condition_type(type);
    request.set_condition_status(status);
    return request;
  }

  testing::TempDir dir_;
  common::FakeClock clock_;
  std::unique_ptr<store::SqliteEventStore> store_;
  v1::ServiceConfigured service_;
  std::unique_ptr<TargetCommandBus> target_bus_;
  std::unique_ptr<ReportCommandBus> report_bus_;
  LivenessBuffer liveness_;
  // The free bytes the space reserve reads (a fake file system), and the reserve (1 MiB).
  std::atomic<uint64_t> free_bytes_{uint64_t{1} << 40};
  SpaceReserve space_{[this]() -> absl::StatusOr<uint64_t> { return free_bytes_.load(); },
                      uint64_t{1} << 20};
  std::unique_ptr<projections::CredentialProjector> targets_;
  std::unique_ptr<projections::StatusProjector> statuses_;
  std::unique_ptr<ReportIngest> ingest_;
  std::unique_ptr<ReportApi> api_;
  int uids_ = 0;
};

std::vector<std::string> Names(const v1::ListFleetStatusResponse& response) {
  std::vector<std::string> names;
  for (const v1::TargetStatusView& t : response.targets()) {
    names.push_back(t.namespace_() + "/" + t.name());
  }
  return names;
}

TEST_F(ReportApiTest, PushReportValidationNamesTheFieldAndAppendsNothing) {
  Register("demo", "edge-1");
  const int64_t head = store_->HeadSeq();
  struct Case {
    std::function<void(v1::PushReportRequest&)> mutate;
    std::string actor;
    std::string message;
  };
  const std::vector<Case> cases = {
      {[](v1::PushReportRequest& r) { r.set_namespace_("Demo"); }, "alice", "namespace: "},
      {[](v1::PushReportRequest& r) { r.set_name(""); }, "alice", "name: required"},
      {[](v1::PushReportRequest& r) { r.set_request_id(""); }, "alice", "request_id: "},
      {[](v1::PushReportRequest& r) { r.set_request_id("credledger:x"); }, "alice", "request_id: "},
      {[](v1::PushReportRequest&) {}, "al ice", "credledger-actor: "},
      {[](v1::PushReportRequest& r) { r.clear_report(); }, "alice", "report: required"},
      {[](v1::PushReportRequest& r) { r.mutable_report()->mutable_releases(0)->set_name(""); },
       "alice", "report.releases[0].name"},
  };
  for (const Case& c : cases) {
    v1::PushReportRequest request = Push("demo", "edge-1", "r1");
    c.mutate(request);
    EXPECT_THAT(api_->PushReport(request, c.actor),
                StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr(c.message)));
  }
  EXPECT_EQ(store_->HeadSeq(), head);
}

TEST_F(ReportApiTest, SetBoundReleasesValidationNamesTheReleaseField) {
  Register("demo", "edge-1");
  const int64_t head = store_->HeadSeq();
  v1::SetBoundReleasesRequest request;
  request.set_namespace_("demo");
  request.set_name("edge-1");
  request.set_request_id("b1");
  request.add_releases()->set_name("app");
  request.mutable_releases(0)->set_namespace_("flux-system");
  request.add_releases()->set_name("Bad_Name");
  request.mutable_releases(1)->set_namespace_("flux-system");
  EXPECT_THAT(api_->SetBoundReleases(request, "alice"),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("releases[1].name: ")));
  request.mutable_releases(1)->set_name("monitoring");
  request.mutable_releases(0)->clear_namespace_();
  EXPECT_THAT(
      api_->SetBoundReleases(request, "alice"),
      StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("releases[0].namespace: required")));
  request.mutable_releases(0)->set_namespace_("flux-system");
  request.set_name("Edge");
  EXPECT_THAT(api_->SetBoundReleases(request, "alice"),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("name: ")));
  EXPECT_EQ(store_->HeadSeq(), head);
}

TEST_F(ReportApiTest, APushedReportIsVisibleToTheNextReadAndARepeatIsAHeartbeat) {
  Register("demo", "edge-1");
  clock_.Advance(absl::Seconds(5));
  ASSERT_OK_AND_ASSIGN(v1::PushReportResponse pushed,
                       api_->PushReport(Push("demo", "edge-1", "r1"), "platform"));
  EXPECT_FALSE(pushed.heartbeat());
  EXPECT_GT(pushed.seq(), 0);
  ASSERT_OK_AND_ASSIGN(v1::GetTargetStatusResponse got,
                       api_->GetTargetStatus(Get("demo", "edge-1")));
  EXPECT_EQ(got.status().last_seq(), pushed.seq());
  EXPECT_EQ(got.status().conditions(0).type(), "Reporting");
  EXPECT_EQ(got.status().conditions(0).status(), "True");
  ASSERT_EQ(got.status().releases_size(), 1);
  EXPECT_EQ(got.status().releases(0).phase(), "Ready");

  clock_.Advance(absl::Seconds(30));
  ASSERT_OK_AND_ASSIGN(v1::PushReportResponse again,
                       api_->PushReport(Push("demo", "edge-1", "r2"), "platform"));
  EXPECT_TRUE(again.heartbeat());
  EXPECT_EQ(again.seq(), 0);
}

// A retried push must repeat its report exactly; another report under the same request id is
// refused instead of being answered as a replay and dropped.
TEST_F(ReportApiTest, ARequestIdReusedWithAnotherReportIsFailedPrecondition) {
  Register("demo", "edge-1");
  clock_.Advance(absl::Seconds(5));
  ASSERT_OK_AND_ASSIGN(v1::PushReportResponse pushed,
                       api_->PushReport(Push("demo", "edge-1", "r1"), "platform"));
  ASSERT_GT(pushed.seq(), 0);
  ASSERT_OK_AND_ASSIGN(v1::PushReportResponse retried,
                       api_->PushReport(Push("demo", "edge-1", "r1"), "platform"));
  EXPECT_TRUE(retried.replayed());
  const int64_t head = store_->HeadSeq();

  v1::PushReportRequest changed = Push("demo", "edge-1", "r1");
  changed.mutable_report()->mutable_last_report_time()->set_seconds(
      changed.report().last_report_time().seconds() + 1);
  EXPECT_THAT(api_->PushReport(changed, "platform"),
              StatusIs(absl::StatusCode::kFailedPrecondition,
                       HasSubstr("request_id \"r1\" was already used for a SubmitReport")));
  EXPECT_EQ(store_->HeadSeq(), head);
}

TEST_F(ReportApiTest, BoundReleasesMissingFromTheReportShowAsPending) {
  Register("demo", "edge-1");
  v1::SetBoundReleasesRequest request;
  request.set_namespace_("demo");
  request.set_name("edge-1");
  request.set_request_id("b1");
  request.add_releases()->set_name("monitoring");
  request.mutable_releases(0)->set_namespace_("flux-system");
  request.set_bootstrap_version("2.0.0");
  ASSERT_OK_AND_ASSIGN(v1::SetBoundReleasesResponse set, api_->SetBoundReleases(request, ""));
  EXPECT_GT(set.seq(), 0);
  ASSERT_OK_AND_ASSIGN(v1::GetTargetStatusResponse got,
                       api_->GetTargetStatus(Get("demo", "edge-1")));
  ASSERT_EQ(got.status().releases_size(), 1);
  EXPECT_EQ(got.status().releases(0).name(), "monitoring");
  EXPECT_EQ(got.status().releases(0).phase(), "Pending");
  EXPECT_TRUE(got.status().releases(0).bound());
  EXPECT_EQ(got.status().bootstrap_version(), "2.0.0");
}

TEST_F(ReportApiTest, GetTargetStatusIsNotFoundForANeverRegisteredTarget) {
  EXPECT_THAT(api_->GetTargetStatus(Get("demo", "ghost")),
              StatusIs(absl::StatusCode::kNotFound, HasSubstr("\"demo/ghost\"")));
  EXPECT_THAT(api_->GetTargetStatus(Get("demo", "")),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("name: required")));
}

TEST_F(ReportApiTest, ListFleetStatusFiltersByNamespaceAndConditionAndSummarizesTheList) {
  Register("demo", "edge-2");
  Register("demo", "edge-1");
  Register("lab", "edge-3");
  clock_.Advance(absl::Seconds(5));
  ASSERT_OK(api_->PushReport(Push("demo", "edge-2", "r1"), "platform"));

  ASSERT_OK_AND_ASSIGN(v1::ListFleetStatusResponse all,
                       api_->ListFleetStatus(List(""), TargetScope::Unrestricted()));
  EXPECT_THAT(Names(all), ElementsAre("demo/edge-1", "demo/edge-2", "lab/edge-3"));
  EXPECT_EQ(all.summary().targets(), 3);
  EXPECT_EQ(all.seq(), store_->HeadSeq());

  ASSERT_OK_AND_ASSIGN(v1::ListFleetStatusResponse lab,
                       api_->ListFleetStatus(List("lab"), TargetScope::Unrestricted()));
  EXPECT_THAT(Names(lab), ElementsAre("lab/edge-3"));

  ASSERT_OK_AND_ASSIGN(
      v1::ListFleetStatusResponse reporting,
      api_->ListFleetStatus(List("", "Reporting", "True"), TargetScope::Unrestricted()));
  EXPECT_THAT(Names(reporting), ElementsAre("demo/edge-2"));
  EXPECT_EQ(reporting.summary().targets(), 1);
  EXPECT_EQ(reporting.summary().release_counts().ready(), 1);

  ASSERT_OK_AND_ASSIGN(
      v1::ListFleetStatusResponse silent,
      api_->ListFleetStatus(List("demo", "Reporting", "Unknown"), TargetScope::Unrestricted()));
  EXPECT_THAT(Names(silent), ElementsAre("demo/edge-1"));
}

TEST_F(ReportApiTest, ListFleetStatusRejectsHalfOrUnknownConditionFilters) {
  EXPECT_THAT(
      api_->ListFleetStatus(List("", "Reporting", ""), TargetScope::Unrestricted()),
      StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("condition_status: required")));
  EXPECT_THAT(api_->ListFleetStatus(List("", "", "True"), TargetScope::Unrestricted()),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("condition_type: required")));
  EXPECT_THAT(api_->ListFleetStatus(List("", "Ready", "True"), TargetScope::Unrestricted()),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("condition_type: \"Ready\" is not one of Reporting, "
                                 "PreflightReady, ReleasesReady")));
  EXPECT_THAT(api_->ListFleetStatus(List("", "Reporting", "true"), TargetScope::Unrestricted()),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("condition_status: \"true\" is not one of True, False, Unknown")));
  EXPECT_THAT(api_->ListFleetStatus(List("Demo"), TargetScope::Unrestricted()),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("namespace: ")));
}

TEST_F(ReportApiTest, WatchFleetSendsTheSnapshotWithItsSummaryThenChanges) {
  WatchWaiter waiter;
  Register("demo", "edge-1");
  Register("lab", "edge-3");
  v1::WatchFleetRequest request;
  request.set_namespace_("demo");
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<FleetWatch> watch,
                       api_->WatchFleet(request, TargetScope::Unrestricted(), waiter.wake()));
  clock_.Advance(absl::Seconds(5));
  ASSERT_OK(api_->PushReport(Push("lab", "edge-3", "r0"), "platform"));
  ASSERT_OK_AND_ASSIGN(v1::PushReportResponse pushed,
                       api_->PushReport(Push("demo", "edge-1", "r1"), "platform"));

  std::vector<v1::WatchFleetResponse> items;
  for (int i = 0; i < 3; ++i) {
    ASSERT_OK_AND_ASSIGN(std::optional<v1::WatchFleetResponse> item, waiter.Next(*watch, kWait));
    ASSERT_TRUE(item.has_value());
    items.push_back(*item);
  }
  EXPECT_EQ(items[0].kind(), Kind::KIND_SNAPSHOT);
  EXPECT_EQ(items[0].status().name(), "edge-1");
  EXPECT_EQ(items[0].status().conditions(0).status(), "Unknown");
  EXPECT_EQ(items[1].kind(), Kind::KIND_SNAPSHOT_END);
  EXPECT_EQ(items[1].summary().targets(), 1);
  EXPECT_EQ(items[1].seq(), items[0].seq());
  EXPECT_EQ(items[2].kind(), Kind::KIND_CHANGE);
  EXPECT_EQ(items[2].seq(), pushed.seq());
  EXPECT_EQ(items[2].status().conditions(0).status(), "True");
  EXPECT_TRUE(items[2].status().active());
  ASSERT_OK_AND_ASSIGN(std::optional<v1::WatchFleetResponse> none, watch->Poll());
  EXPECT_EQ(none, std::nullopt);
}

TEST_F(ReportApiTest, WatchFleetRejectsANegativeAfterSeqAndAnUnkeptOne) {
  v1::WatchFleetRequest request;
  request.set_after_seq(-1);
  EXPECT_THAT(api_->WatchFleet(request, TargetScope::Unrestricted(), [] {}),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("after_seq: ")));
  Register("demo", "edge-1");
  // A projector started now (as after a restart) keeps no change up to the head.
  api_.reset();
  statuses_.reset();
  ASSERT_OK_AND_ASSIGN(statuses_, projections::StatusProjector::Start(store_.get(), {}));
  api_ = std::make_unique<ReportApi>(ingest_.get(), statuses_.get(), ReportApi::Options{});
  request.set_after_seq(0);
  ASSERT_OK(api_->WatchFleet(request, TargetScope::Unrestricted(), [] {}));
  request.set_after_seq(store_->HeadSeq() - 1);
  EXPECT_THAT(api_->WatchFleet(request, TargetScope::Unrestricted(), [] {}),
              StatusIs(absl::StatusCode::kResourceExhausted, HasSubstr("WatchFleet")));
}

}  // namespace report_api_test
}  // namespace credledger::service
