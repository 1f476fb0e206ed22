// PushReport from a caller whose clock runs ahead, on a real Server over a real gRPC channel
// (docs/reports.md, "Clock skew"; docs/api.md, "ReportService"): the report is refused with
// INVALID_ARGUMENT naming report.lastReportTime, the first refusal records the skew and the
// rollup names it (and counts it for the metrics), a retried request and later refusals
// answer the same and append nothing, and the next accepted report ends the skew.
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "projections/report_streams.h"
#include "test/integration/api_fixture.h"

namespace credledger::testing {
namespace report_clock_skew_api_test {

using ::testing::AllOf;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::StartsWith;

constexpr absl::Duration kAhead = absl::Minutes(10);

class ReportClockSkewApiTest : public ApiFixture {
 protected:
  void SetUp() override {
    ApiFixture::SetUp();
    reports_ = v1::ReportService::NewStub(channel_);
    Register("demo", "edge-1", "register-1");
  }

  // Pushes a report of demo/edge-1 taken at `at` (whole seconds) under `request_id`.
  grpc::Status Push(const std::string& request_id, absl::Time at,
                    v1::PushReportResponse* response) {
    v1::PushReportRequest request;
    request.set_namespace_("demo");
    request.set_name("edge-1");
    request.set_request_id(request_id);
    request.mutable_report()->mutable_last_report_time()->set_seconds(absl::ToUnixSeconds(at));
    grpc::ClientContext context;
    context.set_deadline(absl::ToChronoTime(absl::Now() + absl::Seconds(20)));
    return reports_->PushReport(&context, request, response);
  }

  // The Reporting condition of demo/edge-1 once the rollup holds every event of the log.
  v1::StatusCondition Reporting() {
    EXPECT_TRUE(server_->status_projector()->WaitForSeq(HeadSeq(), absl::Seconds(20)));
    grpc::ClientContext context;
    context.set_deadline(absl::ToChronoTime(absl::Now() + absl::Seconds(20)));
    v1::GetTargetStatusRequest request;
    request.set_namespace_("demo");
    request.set_name("edge-1");
    v1::GetTargetStatusResponse response;
    const grpc::Status status = reports_->GetTargetStatus(&context, request, &response);
    EXPECT_TRUE(status.ok()) << status.error_message();
    return response.status().conditions_size() > 0 ? response.status().conditions(0)
                                                   : v1::StatusCondition();
  }

  // The types of demo/edge-1's report stream, without their package.
  std::vector<std::string> ReportStreamTypes() {
    std::vector<std::string> types;
    absl::StatusOr<std::vector<store::RecordedEvent>> events =
        server_->event_store()->ReadStream(projections::ReportStream("demo", "edge-1"), 0, 100);
    EXPECT_TRUE(events.ok()) << events.status();
    if (!events.ok()) return types;
    for (const store::RecordedEvent& e : *events) {
      types.push_back(e.type.substr(std::string("credledger.v1.").size()));
    }
    return types;
  }

  std::unique_ptr<v1::ReportService::Stub> reports_;
};

TEST_F(ReportClockSkewApiTest, ARefusedReportRecordsTheSkewOnceAndTheNextAcceptedOneEndsIt) {
  v1::PushReportResponse response;
  const absl::Time ahead = absl::Now() + kAhead;
  const grpc::Status refused = Push("push-1", ahead, &response);
  EXPECT_EQ(refused.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_THAT(refused.error_message(), AllOf(StartsWith("report.lastReportTime: "),
                                             HasSubstr("ahead of the server's clock")));
  EXPECT_THAT(ReportStreamTypes(), ElementsAre("ReportClockSkewDetected"));
  const v1::StatusCondition skewed = Reporting();
  EXPECT_EQ(skewed.status(), "False");
  EXPECT_EQ(skewed.reason(), "ClockSkew");
  EXPECT_THAT(skewed.message(), AllOf(HasSubstr("the agent's clock is "),
                                      HasSubstr("ahead of the server's"), HasSubstr("NTP")));
  EXPECT_EQ(server_->status_projector()->ClockSkewTargets(), 1);
  EXPECT_EQ(server_->status_projector()->StaleTargets(), 0);

  // The same request again gets the same answer; another refusal appends nothing either.
  const int64_t head = HeadSeq();
  const grpc::Status retried = Push("push-1", ahead, &response);
  EXPECT_EQ(retried.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_EQ(retried.error_message(), refused.error_message());
  const grpc::Status again = Push("push-2", ahead + absl::Seconds(1), &response);
  EXPECT_EQ(again.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_THAT(again.error_message(), StartsWith("report.lastReportTime: "));
  EXPECT_EQ(HeadSeq(), head);

  // A report from a synced clock is accepted and ends the skew.
  const grpc::Status accepted = Push("push-3", absl::Now(), &response);
  ASSERT_TRUE(accepted.ok()) << accepted.error_message();
  EXPECT_EQ(response.seq(), HeadSeq());
  EXPECT_THAT(ReportStreamTypes(),
              ElementsAre("ReportClockSkewDetected", "ReportClockSkewCleared", "ReportAccepted"));
  const v1::StatusCondition reporting = Reporting();
  EXPECT_EQ(reporting.status(), "True");
  EXPECT_EQ(reporting.reason(), "ReportReceived");
  EXPECT_EQ(server_->status_projector()->ClockSkewTargets(), 0);
}

}  // namespace report_clock_skew_api_test
}  // namespace credledger::testing
