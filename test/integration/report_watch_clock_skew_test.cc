// An agent whose clock runs 10 minutes ahead, end to end through the TargetReport watch
// (docs/reports.md, "Clock skew"): the agent (kubebridge/agent) writes its TargetReport on
// the test API server over HTTPS, the ReportWatcher reads it and hands it to ReportIngest
// (BridgeReportSink) on a real SQLite log. The service and the API server share one fake
// clock, the agent has its own, 10 minutes ahead. The first refused report records the skew
// and the Target's Reporting names it, later refusals record nothing, the agent logs the
// offset once, and once the clocks agree the next report ends the skew.
#include <memory>
#include <string>
#include <vector>

#include "absl/synchronization/mutex.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "kubebridge/agent/report_agent.h"
#include "kubebridge/client/kubeconfig.h"
#include "kubebridge/credentials/agent_objects.h"
#include "kubebridge/reports/report_watcher.h"
#include "projections/credential_projector.h"
#include "projections/report_streams.h"
#include "service/api/report_ingest.h"
#include "service/bridge/bridge_report_sink.h"
#include "service/bus/target_command_bus.h"
#include "test/kubeapi/api_server.h"
#include "test/support/captured_log.h"
#include "test/support/status_matchers.h"
#include "test/support/temp_dir.h"
#include "test/support/test_event_log.h"

namespace credledger::testing {
namespace report_watch_clock_skew_test {

using ::testing::AllOf;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::SizeIs;

constexpr char kNs[] = "demo";
constexpr char kTarget[] = "edge-1";
constexpr absl::Duration kAhead = absl::Minutes(10);
constexpr absl::Duration kInterval = absl::Seconds(30);
constexpr absl::Duration kMaxReportAge = absl::Minutes(5);  // the agent's default: 10 intervals
constexpr absl::Duration kWait = absl::Seconds(30);         // only reached when a test fails
constexpr char kAheadLine[] =
    "the agent's clock runs ahead of the API server's; credledger refuses reports more than 5m "
    "ahead";
constexpr char kBackLine[] =
    "the agent's clock is within 5m of the API server's again; credledger accepts its reports";

// The service's sink, answering as BridgeReportSink does and keeping each answer.
class RecordingSink final : public kubebridge::ReportSink {
 public:
  explicit RecordingSink(kubebridge::ReportSink* sink) : sink_(sink) {}

  absl::Status SubmitReport(absl::string_view target_namespace, absl::string_view name,
                            const v1::TargetReportSpec& report,
                            absl::string_view resource_version) override {
    absl::Status answer = sink_->SubmitReport(target_namespace, name, report, resource_version);
    absl::MutexLock lock(&mu_);
    answers_.push_back(answer);
    return answer;
  }

  // The answers once there are `n` of them (fewer after kWait).
  std::vector<absl::Status> AwaitAnswers(size_t n) {
    absl::MutexLock lock(&mu_);
    auto enough = [&]() ABSL_SHARED_LOCKS_REQUIRED(mu_) { return answers_.size() >= n; };
    mu_.AwaitWithTimeout(absl::Condition(&enough), kWait);
    return answers_;
  }

 private:
  kubebridge::ReportSink* sink_;
  absl::Mutex mu_;
  std::vector<absl::Status> answers_ ABSL_GUARDED_BY(mu_);
};

class ReportWatchClockSkewTest : public ::testing::Test {
 protected:
  void SetUp() override {
    kubeapi::ApiServerOptions api;
    api.state_dir = dir_.path() / "kubeapi";
    api.clock = &server_clock_;
    api.namespaces = {kNs};
    ASSERT_OK_AND_ASSIGN(api_, kubeapi::ApiServer::Start(api));
    ASSERT_OK_AND_ASSIGN(kubebridge::ConnectionConfig connection,
                         kubebridge::LoadKubeconfig(api_->kubeconfig_path()));
    kubebridge::KubeClientOptions client;
    client.rate_limit = {.qps = 0, .burst = 1};
    ASSERT_OK_AND_ASSIGN(watch_client_, kubebridge::KubeClient::New(connection, client));
    ASSERT_OK_AND_ASSIGN(agent_client_, kubebridge::KubeClient::New(connection, client));
    // What registration leaves on the cluster: the empty TargetReport.
    ASSERT_OK(agent_client_
                  ->Create(kubebridge::TargetReportResource(kNs),
                           kubebridge::TargetReportObject(kNs, kTarget))
                  .status());

    ASSERT_OK_AND_ASSIGN(store_, OpenTestEventLog(dir_.path(), &server_clock_));
    targets_bus_ = std::make_unique<service::TargetCommandBus>(store_.get());
    ASSERT_OK(targets_bus_->Execute(service::RegisterTarget{}, Context("register")).status());
    ASSERT_OK_AND_ASSIGN(projector_, projections::CredentialProjector::Start(store_.get(), {}));
    ASSERT_TRUE(projector_->WaitForSeq(store_->HeadSeq(), kWait));
    report_bus_ = std::make_unique<service::ReportCommandBus>(
        store_.get(), service::ReportBusDecider(targets_bus_.get()));
    ingest_ = std::make_unique<service::ReportIngest>(report_bus_.get(), &liveness_,
                                                      projector_.get(), &space_, &server_clock_,
                                                      service::ReportIngest::Limits{});
    bridge_sink_ = std::make_unique<service::BridgeReportSink>(ingest_.get());
    sink_ = std::make_unique<RecordingSink>(bridge_sink_.get());
    watcher_ = kubebridge::ReportWatcher::Start(watch_client_.get(), sink_.get(), projector_.get());
    agent_ = std::make_unique<kubebridge::ReportAgent>(
        agent_client_.get(), agent_client_.get(), &agent_clock_,
        kubebridge::ReportAgentOptions{
            .target_namespace = kNs, .target_name = kTarget, .interval = kInterval});
  }

  void TearDown() override {
    if (watcher_ != nullptr) watcher_->Stop();
    if (watch_client_ != nullptr) watch_client_->Stop();
    if (agent_client_ != nullptr) agent_client_->Stop();
    if (api_ != nullptr) api_->Stop();
  }

  service::CommandContext Context(const std::string& request_id) const {
    return {kNs, kTarget, server_clock_.Now(), "alice", request_id, {}};
  }

  // One agent tick that writes the TargetReport.
  void Push() {
    ASSERT_OK_AND_ASSIGN(kubebridge::TickOutcome outcome, agent_->Tick());
    ASSERT_EQ(outcome, kubebridge::TickOutcome::kPushed);
  }

  // The types of the Target's report stream, without their package.
  std::vector<std::string> ReportStreamTypes() {
    std::vector<std::string> types;
    absl::StatusOr<std::vector<store::RecordedEvent>> events =
        store_->ReadStream(projections::ReportStream(kNs, kTarget), 0, 100);
    EXPECT_OK(events);
    if (!events.ok()) return types;
    for (const store::RecordedEvent& e : *events) {
      types.push_back(e.type.substr(std::string("credledger.v1.").size()));
    }
    return types;
  }

  // The Target's Reporting condition as the report decider folds it.
  v1::Condition Reporting() {
    absl::StatusOr<service::ReportFolds> folds = report_bus_->LoadState(Context("read"));
    EXPECT_OK(folds);
    return folds.ok() ? folds->status.reporting() : v1::Condition();
  }

  CapturedLog log_;
  TempDir dir_;
  common::FakeClock server_clock_;                               // 2026-01-01T00:00:00Z
  common::FakeClock agent_clock_{server_clock_.Now() + kAhead};  // 10 minutes ahead
  std::unique_ptr<kubeapi::ApiServer> api_;
  std::unique_ptr<kubebridge::KubeClient> watch_client_;
  std::unique_ptr<kubebridge::KubeClient> agent_client_;
  std::unique_ptr<store::SqliteEventStore> store_;
  std::unique_ptr<service::TargetCommandBus> targets_bus_;
  std::unique_ptr<projections::CredentialProjector> projector_;
  std::unique_ptr<service::ReportCommandBus> report_bus_;
  service::LivenessBuffer liveness_;
  service::SpaceReserve space_{[]() -> absl::StatusOr<uint64_t> { return uint64_t{1} << 40; }, 0};
  std::unique_ptr<service::ReportIngest> ingest_;
  std::unique_ptr<service::BridgeReportSink> bridge_sink_;
  std::unique_ptr<RecordingSink> sink_;
  std::unique_ptr<kubebridge::ReportWatcher> watcher_;
  std::unique_ptr<kubebridge::ReportAgent> agent_;
};

TEST_F(ReportWatchClockSkewTest, TheSkewIsRecordedOnceNamedInReportingAndEndedByTheNextReport) {
  // The agent's first report, 10 minutes ahead: refused, the skew recorded and named.
  Push();
  std::vector<absl::Status> answers = sink_->AwaitAnswers(1);
  ASSERT_THAT(answers, SizeIs(1));
  EXPECT_THAT(answers[0], StatusIs(absl::StatusCode::kInvalidArgument,
                                   AllOf(HasSubstr("spec.lastReportTime: 2026-01-01T00:10:00Z"),
                                         HasSubstr("ahead of the server's clock"))));
  EXPECT_THAT(ReportStreamTypes(), ElementsAre("ReportClockSkewDetected"));
  const v1::Condition skewed = Reporting();
  EXPECT_EQ(skewed.status(), "False");
  EXPECT_EQ(skewed.reason(), "ClockSkew");
  EXPECT_THAT(skewed.message(), HasSubstr("the agent's clock is 10m ahead of the server's"));
  std::vector<nlohmann::json> ahead = log_.Lines(kAheadLine);
  ASSERT_THAT(ahead, SizeIs(1));
  EXPECT_EQ(ahead[0].value("level", ""), "warning");
  EXPECT_EQ(ahead[0].value("offset", ""), "10m");
  EXPECT_THAT(ahead[0].value("fix", ""), HasSubstr("NTP"));
  // The watcher logs the refusal once the sink has answered.
  EXPECT_THAT(log_.WaitFor(
                  "TargetReport rejected",
                  [](const std::vector<nlohmann::json>& lines) { return !lines.empty(); }, kWait),
              SizeIs(1));

  // Five minutes on, the agent pushes again, still ahead: refused, nothing more recorded or
  // logged by the agent.
  server_clock_.Advance(kMaxReportAge);
  agent_clock_.Advance(kMaxReportAge);
  Push();
  answers = sink_->AwaitAnswers(2);
  ASSERT_THAT(answers, SizeIs(2));
  EXPECT_THAT(answers[1], StatusIs(absl::StatusCode::kInvalidArgument));
  EXPECT_THAT(ReportStreamTypes(), ElementsAre("ReportClockSkewDetected"));
  EXPECT_THAT(log_.Lines(kAheadLine), SizeIs(1));

  // The clocks agree again (the node synced its clock): the next report ends the skew.
  server_clock_.Advance(kAhead + kMaxReportAge);
  agent_clock_.Advance(kMaxReportAge);
  Push();
  answers = sink_->AwaitAnswers(3);
  ASSERT_THAT(answers, SizeIs(3));
  EXPECT_OK(answers[2]);
  EXPECT_THAT(ReportStreamTypes(),
              ElementsAre("ReportClockSkewDetected", "ReportClockSkewCleared", "ReportAccepted"));
  const v1::Condition reporting = Reporting();
  EXPECT_EQ(reporting.status(), "True");
  EXPECT_EQ(reporting.reason(), "ReportReceived");
  const std::vector<nlohmann::json> back = log_.Lines(kBackLine);
  ASSERT_THAT(back, SizeIs(1));
  EXPECT_EQ(back[0].value("offset", ""), "0");
}

}  // namespace report_watch_clock_skew_test
}  // namespace credledger::testing
