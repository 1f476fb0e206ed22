// The agent loop against the test API server, which plays both the target cluster (Flux
// pairs, Nodes, Pods) and the SolAr side (the TargetReport), with a FakeClock for ticks:
// push on change, the MaxReportAge floor, retries after failed pushes, conflicts, invalid
// reports, the never-create rule, token file rotation and the Run loop.
#include "kubebridge/agent/report_agent.h"

#include <filesystem>
#include <memory>
#include <string>
#include <thread>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "kubebridge/client/json_util.h"
#include "kubebridge/client/kubeconfig.h"
#include "kubebridge/credentials/agent_objects.h"
#include "test/kubebridge/api_server_fixture.h"
#include "test/kubebridge/await_sleepers.h"
#include "test/kubebridge/fake_transport.h"
#include "test/kubebridge/target_cluster_objects.h"
#include "test/kubebridge/test_files.h"
#include "test/support/status_matchers.h"

namespace credledger::kubebridge {
namespace report_agent_test {

using ::testing::HasSubstr;
using testing::StatusIs;

constexpr char kNs[] = "demo";
constexpr char kTarget[] = "edge-1";
constexpr absl::Duration kInterval = absl::Seconds(30);

class ReportAgentTest : public ApiServerFixture {
 protected:
  void SetUp() override {
    ApiServerFixture::SetUp();
    ASSERT_OK(
        client_
            ->Create(Core("namespaces", "", ""),
                     {{"apiVersion", "v1"}, {"kind", "Namespace"}, {"metadata", {{"name", kNs}}}})
            .status());
    CreateTargetReport();
    objects_ = std::make_unique<TargetClusterObjects>(*client_, config_);
    objects_->CreateFluxPair("healthy", kNs, "web");
    objects_->Create(NodeResource(), TargetClusterObjects::Node("worker-1", "4", "16Gi"));
  }

  // What credledger does when the Target is registered: the empty TargetReport.
  void CreateTargetReport() {
    ASSERT_OK(
        client_->Create(TargetReportResource(kNs), TargetReportObject(kNs, kTarget)).status());
  }

  static ReportAgentOptions Options() {
    return {.target_namespace = kNs, .target_name = kTarget, .interval = kInterval};
  }

  std::unique_ptr<ReportAgent> NewAgent(KubeClient* solar) {
    return std::make_unique<ReportAgent>(client_.get(), solar, &clock_, Options());
  }

  // The TargetReport as stored.
  nlohmann::json Report() {
    absl::StatusOr<nlohmann::json> report = client_->Get(TargetReportResource(kNs, kTarget));
    EXPECT_TRUE(report.ok()) << report.status();
    return report.ok() ? *report : nlohmann::json();
  }
  std::string LastReportTime() { return StringAt(Report(), {"spec", "lastReportTime"}); }

  void AddNode(const std::string& name) {
    objects_->Create(NodeResource(), TargetClusterObjects::Node(name, "2", "4Gi"));
  }

  common::FakeClock clock_;  // 2026-01-01T00:00:00Z
  std::unique_ptr<TargetClusterObjects> objects_;
};

TEST_F(ReportAgentTest, FirstTickPushesTheCollectedReportStampedWithTheClock) {
  std::unique_ptr<ReportAgent> agent = NewAgent(client_.get());
  EXPECT_EQ(agent->max_report_age(), 10 * kInterval);
  ASSERT_OK_AND_ASSIGN(TickOutcome outcome, agent->Tick());
  EXPECT_EQ(outcome, TickOutcome::kPushed);
  nlohmann::json report = Report();
  EXPECT_EQ(report["spec"]["lastReportTime"], "2026-01-01T00:00:00Z");
  ASSERT_EQ(report["spec"]["releases"].size(), 1u);
  EXPECT_EQ(report["spec"]["releases"][0]["name"], "web");
  EXPECT_EQ(report["spec"]["releases"][0]["namespace"], kNs);
  EXPECT_EQ(report["spec"]["releases"][0]["phase"], "Ready");
  EXPECT_EQ(report["spec"]["releases"][0]["revision"], "1.2.0");
  EXPECT_EQ(report["spec"]["capacity"]["nodeCount"], 1);
}

TEST_F(ReportAgentTest, AnUnchangedReportIsPushedAgainOnlyOnceMaxReportAgeIsReached) {
  std::unique_ptr<ReportAgent> agent = NewAgent(client_.get());
  ASSERT_OK(agent->Tick().status());
  const std::string first_version = StringAt(Report(), {"metadata", "resourceVersion"});
  for (int tick = 1; tick < 10; ++tick) {
    clock_.Advance(kInterval);
    ASSERT_OK_AND_ASSIGN(TickOutcome outcome, agent->Tick());
    EXPECT_EQ(outcome, TickOutcome::kUnchanged) << "tick " << tick;
  }
  EXPECT_EQ(StringAt(Report(), {"metadata", "resourceVersion"}), first_version);
  EXPECT_EQ(LastReportTime(), "2026-01-01T00:00:00Z");

  clock_.Advance(kInterval);  // 300s = 10 intervals since the push
  ASSERT_OK_AND_ASSIGN(TickOutcome outcome, agent->Tick());
  EXPECT_EQ(outcome, TickOutcome::kPushed);
  EXPECT_EQ(LastReportTime(), "2026-01-01T00:05:00Z");
}

TEST_F(ReportAgentTest, AChangedReportIsPushedAtTheNextTick) {
  std::unique_ptr<ReportAgent> agent = NewAgent(client_.get());
  ASSERT_OK(agent->Tick().status());
  AddNode("worker-2");
  clock_.Advance(kInterval);
  ASSERT_OK_AND_ASSIGN(TickOutcome outcome, agent->Tick());
  EXPECT_EQ(outcome, TickOutcome::kPushed);
  nlohmann::json report = Report();
  EXPECT_EQ(report["spec"]["lastReportTime"], "2026-01-01T00:00:30Z");
  EXPECT_EQ(report["spec"]["capacity"]["nodeCount"], 2);
}

TEST_F(ReportAgentTest, LastReportTimeHasWholeSeconds) {
  std::unique_ptr<ReportAgent> agent = NewAgent(client_.get());
  clock_.Advance(absl::Milliseconds(1750));
  ASSERT_OK(agent->Tick().status());
  EXPECT_EQ(LastReportTime(), "2026-01-01T00:00:01Z");
}

TEST_F(ReportAgentTest, AMissingTargetReportIsNeverCreatedAndTheFailedPushIsRetried) {
  std::unique_ptr<ReportAgent> agent = NewAgent(client_.get());
  ASSERT_OK(agent->Tick().status());
  ASSERT_OK(client_->Delete(TargetReportResource(kNs, kTarget)));
  AddNode("worker-2");
  clock_.Advance(kInterval);
  EXPECT_THAT(agent->Tick(),
              StatusIs(absl::StatusCode::kNotFound,
                       "TargetReport demo/edge-1 does not exist; credledger creates it when the "
                       "Target is registered"));
  EXPECT_EQ(client_->Get(TargetReportResource(kNs, kTarget)).status().code(),
            absl::StatusCode::kNotFound);

  // Credledger re-creates it. The collected report equals the one of the failed tick, but the
  // last successful push is older: the next tick pushes it.
  CreateTargetReport();
  clock_.Advance(kInterval);
  ASSERT_OK_AND_ASSIGN(TickOutcome outcome, agent->Tick());
  EXPECT_EQ(outcome, TickOutcome::kPushed);
  EXPECT_EQ(LastReportTime(), "2026-01-01T00:01:00Z");
  EXPECT_EQ(Report()["spec"]["capacity"]["nodeCount"], 2);
}

TEST_F(ReportAgentTest, AnInvalidReportIsNotPushed) {
  // The release annotation gives a name that is not a DNS label.
  nlohmann::json helm =
      TargetClusterObjects::FluxFixture("healthy", "helmrelease.json", kNs, "bad", "Not_A_Label");
  objects_->Create(HelmReleaseResource(), helm);
  std::unique_ptr<ReportAgent> agent = NewAgent(client_.get());
  EXPECT_THAT(agent->Tick(),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("spec.releases[0].name")));
  EXPECT_EQ(LastReportTime(), "");
}

nlohmann::json StoredReport(const std::string& resource_version) {
  nlohmann::json report = TargetReportObject(kNs, kTarget);
  report["metadata"]["resourceVersion"] = resource_version;
  return report;
}

nlohmann::json Conflict() {
  return {{"kind", "Status"},
          {"apiVersion", "v1"},
          {"status", "Failure"},
          {"code", 409},
          {"reason", "Conflict"},
          {"message",
           "Operation cannot be fulfilled on targetreports.solar.opendefense.cloud \"edge-1\": "
           "the object has been modified; please apply your changes to the latest version and "
           "try again"}};
}

TEST_F(ReportAgentTest, AConflictIsRetriedOnceWithinTheTickOnAFreshRead) {
  StepClock solar_clock;
  FakeClient solar = MakeFakeClient(&solar_clock);
  solar.transport->Push(FakeReply::Json(200, StoredReport("5")));
  solar.transport->Push(FakeReply::Json(409, Conflict()));
  solar.transport->Push(FakeReply::Json(200, StoredReport("6")));
  nlohmann::json updated = StoredReport("7");
  solar.transport->Push(FakeReply::Json(200, updated));
  std::unique_ptr<ReportAgent> agent = NewAgent(solar.client.get());
  ASSERT_OK_AND_ASSIGN(TickOutcome outcome, agent->Tick());
  EXPECT_EQ(outcome, TickOutcome::kPushed);

  std::vector<HttpRequest> requests = solar.transport->requests();
  ASSERT_EQ(requests.size(), 4u);
  EXPECT_EQ(requests[0].method, "GET");
  EXPECT_EQ(requests[1].method, "PUT");
  EXPECT_EQ(requests[2].method, "GET");
  EXPECT_EQ(requests[3].method, "PUT");
  EXPECT_EQ(requests[3].path,
            "/apis/solar.opendefense.cloud/v1alpha1/namespaces/demo/targetreports/edge-1");
  nlohmann::json put = nlohmann::json::parse(requests[3].body);
  EXPECT_EQ(put["metadata"]["resourceVersion"], "6");
  EXPECT_EQ(put["spec"]["lastReportTime"], "2026-01-01T00:00:00Z");
}

TEST_F(ReportAgentTest, ASecondConflictFailsTheTickAndTheNextTickRetries) {
  StepClock solar_clock;
  FakeClient solar = MakeFakeClient(&solar_clock);
  for (const char* version : {"5", "6"}) {
    solar.transport->Push(FakeReply::Json(200, StoredReport(version)));
    solar.transport->Push(FakeReply::Json(409, Conflict()));
  }
  std::unique_ptr<ReportAgent> agent = NewAgent(solar.client.get());
  EXPECT_THAT(agent->Tick(), StatusIs(absl::StatusCode::kAborted,
                                      HasSubstr("update TargetReport demo/edge-1: PUT ")));
  EXPECT_EQ(solar.transport->requests().size(), 4u);

  solar.transport->Push(FakeReply::Json(200, StoredReport("8")));
  solar.transport->Push(FakeReply::Json(200, StoredReport("9")));
  clock_.Advance(kInterval);
  ASSERT_OK_AND_ASSIGN(TickOutcome outcome, agent->Tick());
  EXPECT_EQ(outcome, TickOutcome::kPushed);
}

// The agent's SolAr-side identity as credledger sets it up: a ServiceAccount whose Role
// allows get and update on this TargetReport only, and tokens bound to Secrets.
class ReportAgentTokenTest : public ReportAgentTest {
 protected:
  void SetUp() override {
    ReportAgentTest::SetUp();
    ASSERT_OK(
        client_->Create(ServiceAccountResource(kNs), ServiceAccountObject(kNs, kTarget)).status());
    ASSERT_OK(client_->Create(RoleResource(kNs), RoleObject(kNs, kTarget)).status());
    ASSERT_OK(client_->Create(RoleBindingResource(kNs), RoleBindingObject(kNs, kTarget)).status());
  }

  // A token of the agent's ServiceAccount bound to a new Secret `secret`.
  std::string IssueToken(const std::string& secret) {
    absl::StatusOr<nlohmann::json> stored = client_->Create(
        SecretResource(kNs),
        {{"apiVersion", "v1"}, {"kind", "Secret"}, {"metadata", {{"name", secret}}}});
    EXPECT_TRUE(stored.ok()) << stored.status();
    if (!stored.ok()) return "";
    nlohmann::json request = {{"apiVersion", "authentication.k8s.io/v1"},
                              {"kind", "TokenRequest"},
                              {"spec",
                               {{"expirationSeconds", 3600},
                                {"boundObjectRef",
                                 {{"kind", "Secret"},
                                  {"apiVersion", "v1"},
                                  {"name", secret},
                                  {"uid", StringAt(*stored, {"metadata", "uid"})}}}}}};
    absl::StatusOr<nlohmann::json> answer = client_->CreateSubresource(
        ServiceAccountResource(kNs, AgentIdentityName(kTarget)), "token", request);
    EXPECT_TRUE(answer.ok()) << answer.status();
    return answer.ok() ? StringAt(*answer, {"status", "token"}) : "";
  }

  // Replaces the token file by renaming a new file over it, as a Secret volume update does.
  void WriteToken(const std::string& token) {
    WriteTestFile(dir_.path() / "solar" / "token.new", token);
    std::filesystem::rename(dir_.path() / "solar" / "token.new", dir_.path() / "solar" / "token");
  }

  // The agent's kubeconfig for the SolAr side: the server's CA and a relative tokenFile.
  std::filesystem::path WriteKubeconfig() {
    return WriteTestFile(
        dir_.path() / "solar" / "kubeconfig",
        absl::StrCat("apiVersion: v1\nkind: Config\nclusters:\n- name: solar\n"
                     "  cluster:\n    server: ",
                     server_->url(), "\n    certificate-authority: ", server_->ca_path().string(),
                     "\nusers:\n- name: agent\n  user:\n    tokenFile: token\n"
                     "contexts:\n- name: agent\n  context:\n    cluster: solar\n"
                     "    user: agent\ncurrent-context: agent\n"));
  }
};

TEST_F(ReportAgentTokenTest, ARotatedTokenFileIsUsedWithoutRestart) {
  const std::string old_token = IssueToken("solar-agent-edge-1-1");
  const std::string new_token = IssueToken("solar-agent-edge-1-2");
  WriteToken(old_token);
  ASSERT_OK_AND_ASSIGN(ConnectionConfig config, LoadKubeconfig(WriteKubeconfig()));
  std::unique_ptr<KubeClient> solar = NewClient(config, ClientOptions());
  std::unique_ptr<ReportAgent> agent = NewAgent(solar.get());

  ::testing::internal::CaptureStderr();
  ASSERT_OK(agent->Tick().status());
  EXPECT_EQ(LastReportTime(), "2026-01-01T00:00:00Z");

  // Revoking the old token (its Secret is deleted) makes the next push fail...
  ASSERT_OK(client_->Delete(SecretResource(kNs, "solar-agent-edge-1-1")));
  AddNode("worker-2");
  clock_.Advance(kInterval);
  EXPECT_THAT(agent->Tick(), StatusIs(absl::StatusCode::kUnauthenticated));

  // ...until the new token lands in the file; the same client picks it up.
  WriteToken(new_token);
  clock_.Advance(kInterval);
  ASSERT_OK_AND_ASSIGN(TickOutcome outcome, agent->Tick());
  const std::string logs = ::testing::internal::GetCapturedStderr();
  EXPECT_EQ(outcome, TickOutcome::kPushed);
  EXPECT_EQ(LastReportTime(), "2026-01-01T00:01:00Z");
  EXPECT_THAT(logs, HasSubstr("\"targetReport\":\"demo/edge-1\""));
  EXPECT_FALSE(absl::StrContains(logs, old_token));
  EXPECT_FALSE(absl::StrContains(logs, new_token));
}

TEST_F(ReportAgentTokenTest, TheAgentsRoleAllowsEverythingAPushNeeds) {
  WriteToken(IssueToken("solar-agent-edge-1-1"));
  ASSERT_OK_AND_ASSIGN(ConnectionConfig config, LoadKubeconfig(WriteKubeconfig()));
  std::unique_ptr<KubeClient> solar = NewClient(config, ClientOptions());
  ASSERT_OK(client_->Delete(TargetReportResource(kNs, kTarget)));
  std::unique_ptr<ReportAgent> agent = NewAgent(solar.get());
  EXPECT_THAT(agent->Tick(), StatusIs(absl::StatusCode::kNotFound));
  CreateTargetReport();
  clock_.Advance(kInterval);
  EXPECT_OK(agent->Tick().status());
}

TEST_F(ReportAgentTest, RunTicksEveryIntervalUntilStopped) {
  std::unique_ptr<ReportAgent> agent = NewAgent(client_.get());
  Cancellation stop;
  std::thread runner([&] { agent->Run(stop); });
  ASSERT_TRUE(agent->WaitTicks(1, absl::Seconds(30)));
  EXPECT_EQ(LastReportTime(), "2026-01-01T00:00:00Z");

  AddNode("worker-2");
  ASSERT_TRUE(AwaitSleepers(clock_, 1));
  clock_.Advance(kInterval - absl::Seconds(1));
  ASSERT_TRUE(AwaitSleepers(clock_, 1));
  EXPECT_EQ(agent->ticks(), 1);  // the deadline is not reached yet
  clock_.Advance(absl::Seconds(1));
  ASSERT_TRUE(agent->WaitTicks(2, absl::Seconds(30)));
  EXPECT_EQ(LastReportTime(), "2026-01-01T00:00:30Z");
  EXPECT_EQ(Report()["spec"]["capacity"]["nodeCount"], 2);

  stop.Cancel();
  runner.join();
  EXPECT_EQ(agent->ticks(), 2);
}

TEST(ReportAgentOptionsTest, NamesTheFlagAndTheRule) {
  ReportAgentOptions options{.target_namespace = "demo", .target_name = "edge-1"};
  EXPECT_OK(ValidateReportAgentOptions(options));
  options.target_name = "Edge_1";
  EXPECT_THAT(ValidateReportAgentOptions(options),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("--target-name")));
  options.target_name = "edge-1";
  options.target_namespace = "";
  EXPECT_THAT(ValidateReportAgentOptions(options),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("--target-namespace")));
  options.target_namespace = "demo";
  options.interval = absl::Milliseconds(500);
  EXPECT_THAT(
      ValidateReportAgentOptions(options),
      StatusIs(absl::StatusCode::kInvalidArgument, "--interval: must be at least 1s, got 500ms"));
  options.interval = absl::Minutes(1);
  options.max_report_age = absl::Seconds(59);
  EXPECT_THAT(ValidateReportAgentOptions(options),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       "--max-report-age: must be at least --interval (1m), got 59s"));
  options.max_report_age = absl::Minutes(1);
  EXPECT_OK(ValidateReportAgentOptions(options));
}

}  // namespace report_agent_test
}  // namespace credledger::kubebridge
