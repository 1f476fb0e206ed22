// ReportService of a real Server over a real gRPC channel: rollups of registered Targets,
// status codes mapped one to one, and WatchFleet's snapshot, summary and changes.
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "test/integration/api_fixture.h"

namespace credledger::testing {
namespace report_api_integration_test {

using ::testing::HasSubstr;
using Kind = v1::WatchFleetResponse;

class ReportApiIntegrationTest : public ApiFixture {
 protected:
  void SetUp() override {
    ApiFixture::SetUp();
    reports_ = v1::ReportService::NewStub(channel_);
  }

  grpc::Status GetStatus(const std::string& ns, const std::string& name,
                         v1::GetTargetStatusResponse* response) {
    grpc::ClientContext context;
    context.set_deadline(absl::ToChronoTime(absl::Now() + absl::Seconds(20)));
    v1::GetTargetStatusRequest request;
    request.set_namespace_(ns);
    request.set_name(name);
    return reports_->GetTargetStatus(&context, request, response);
  }

  grpc::Status ListFleet(const v1::ListFleetStatusRequest& request,
                         v1::ListFleetStatusResponse* response) {
    grpc::ClientContext context;
    context.set_deadline(absl::ToChronoTime(absl::Now() + absl::Seconds(20)));
    return reports_->ListFleetStatus(&context, request, response);
  }

  std::unique_ptr<v1::ReportService::Stub> reports_;
};

TEST_F(ReportApiIntegrationTest, ARegisteredTargetHasARollupWithUnknownReporting) {
  Register("demo", "edge-1", "req-1");
  ASSERT_TRUE(server_->status_projector()->WaitForSeq(HeadSeq(), absl::Seconds(20)));
  v1::GetTargetStatusResponse response;
  grpc::Status status = GetStatus("demo", "edge-1", &response);
  ASSERT_TRUE(status.ok()) << status.error_message();
  EXPECT_TRUE(response.status().active());
  ASSERT_EQ(response.status().conditions_size(), 3);
  EXPECT_EQ(response.status().conditions(0).type(), "Reporting");
  EXPECT_EQ(response.status().conditions(0).status(), "Unknown");
  EXPECT_EQ(response.status().conditions(0).reason(), "NoReport");

  status = GetStatus("demo", "ghost", &response);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::NOT_FOUND);
  status = GetStatus("Demo", "edge-1", &response);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_THAT(status.error_message(), HasSubstr("namespace: "));
}

TEST_F(ReportApiIntegrationTest, ListFleetStatusFiltersAndRejectsAnUnknownConditionType) {
  Register("demo", "edge-1", "req-1");
  Register("lab", "edge-2", "req-2");
  ASSERT_TRUE(server_->status_projector()->WaitForSeq(HeadSeq(), absl::Seconds(20)));
  v1::ListFleetStatusRequest request;
  request.set_condition_type("Reporting");
  request.set_condition_status("Unknown");
  v1::ListFleetStatusResponse response;
  grpc::Status status = ListFleet(request, &response);
  ASSERT_TRUE(status.ok()) << status.error_message();
  ASSERT_EQ(response.targets_size(), 2);
  EXPECT_EQ(response.summary().targets(), 2);
  EXPECT_EQ(response.seq(), HeadSeq());

  request.set_namespace_("lab");
  ASSERT_TRUE(ListFleet(request, &response).ok());
  ASSERT_EQ(response.targets_size(), 1);
  EXPECT_EQ(response.targets(0).name(), "edge-2");

  request.set_condition_type("Healthy");
  status = ListFleet(request, &response);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_THAT(status.error_message(), HasSubstr("condition_type: \"Healthy\""));
}

TEST_F(ReportApiIntegrationTest, WatchFleetStreamsTheSnapshotItsSummaryAndThenChanges) {
  Register("demo", "edge-1", "req-1");
  ASSERT_TRUE(server_->status_projector()->WaitForSeq(HeadSeq(), absl::Seconds(20)));
  grpc::ClientContext context;
  context.set_deadline(absl::ToChronoTime(absl::Now() + absl::Seconds(30)));
  std::unique_ptr<grpc::ClientReader<v1::WatchFleetResponse>> reader =
      reports_->WatchFleet(&context, v1::WatchFleetRequest());
  std::vector<v1::WatchFleetResponse> items(2);
  ASSERT_TRUE(reader->Read(&items[0]));
  ASSERT_TRUE(reader->Read(&items[1]));
  EXPECT_EQ(items[0].kind(), Kind::KIND_SNAPSHOT);
  EXPECT_EQ(items[0].status().name(), "edge-1");
  EXPECT_EQ(items[1].kind(), Kind::KIND_SNAPSHOT_END);
  EXPECT_EQ(items[1].summary().targets(), 1);

  Register("demo", "edge-2", "req-2");
  v1::WatchFleetResponse change;
  ASSERT_TRUE(reader->Read(&change));
  EXPECT_EQ(change.kind(), Kind::KIND_CHANGE);
  EXPECT_EQ(change.status().name(), "edge-2");
  EXPECT_EQ(change.seq(), change.status().last_seq());
  context.TryCancel();
  while (reader->Read(&change)) {
  }
  EXPECT_EQ(reader->Finish().error_code(), grpc::StatusCode::CANCELLED);
}

TEST_F(ReportApiIntegrationTest, OnlyCallersThePolicyAllowsMayPushReports) {
  Register("demo", "edge-1", "req-1");
  RestartWithPolicy(R"(
identities:
  - name: platform
    rpcs: ["ReportService/*", "TargetService/*"]
    allow_declared: true
  - name: "*"
    rpcs: ["ReportService/GetTargetStatus"]
)");
  reports_ = v1::ReportService::NewStub(channel_);
  v1::PushReportRequest push;
  push.set_namespace_("demo");
  push.set_name("edge-1");
  push.set_request_id("push-1");
  push.mutable_report()->mutable_last_report_time()->set_seconds(absl::ToUnixSeconds(absl::Now()));
  const int64_t head = HeadSeq();

  for (const std::string actor : {"mallory", ""}) {
    grpc::ClientContext context;
    if (!actor.empty()) context.AddMetadata("credledger-actor", actor);
    v1::PushReportResponse response;
    grpc::Status denied = reports_->PushReport(&context, push, &response);
    EXPECT_EQ(denied.error_code(), grpc::StatusCode::PERMISSION_DENIED) << actor;
    EXPECT_THAT(denied.error_message(),
                HasSubstr(absl::StrCat("caller \"", actor.empty() ? "anonymous" : actor,
                                       "\" may not call ReportService/PushReport")));
  }
  EXPECT_EQ(HeadSeq(), head);
  // The "*" entry still lets anyone read, and nothing else.
  v1::GetTargetStatusResponse status;
  EXPECT_TRUE(GetStatus("demo", "edge-1", &status).ok());
  v1::ListTargetsResponse targets;
  EXPECT_EQ(Call(&v1::TargetService::Stub::ListTargets, v1::ListTargetsRequest(), &targets,
                 "mallory")
                .error_code(),
            grpc::StatusCode::PERMISSION_DENIED);

  grpc::ClientContext context;
  context.AddMetadata("credledger-actor", "platform");
  v1::PushReportResponse response;
  grpc::Status allowed = reports_->PushReport(&context, push, &response);
  ASSERT_TRUE(allowed.ok()) << allowed.error_message();
  EXPECT_GT(response.seq(), head);
}

}  // namespace report_api_integration_test
}  // namespace credledger::testing
