// Acceptance of the status-report loop through the real binaries (docs/reports.md, "Ingest" and
// "The agent"; docs/credentials.md, "Rollout confirmation and cleanup"): the test API server
// serves both sides (it is the SolAr cluster and the agent's target cluster),
// `credledger serve` mints for demo/edge-1, `credledger agent` runs with that token against
// Flux objects the test writes, and its TargetReport is ingested, rolled up and read back
// through the CLI (a gRPC client). The rotation loop closes when a report carries the new
// credentialTag; staleness flips once and back.
#include <signal.h>

#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "kubebridge/agent/report_collector.h"
#include "kubebridge/client/json_util.h"
#include "kubebridge/client/kubeconfig.h"
#include "kubebridge/credentials/agent_objects.h"
#include "store/event_codec.h"
#include "test/integration/live_processes.h"
#include "test/kubebridge/target_cluster_objects.h"
#include "test/support/status_matchers.h"

namespace credledger::testing {
namespace report_loop_test {

constexpr char kRelease[] = "podinfo";

// The condition `type` of a status view (JSON), or null.
nlohmann::json Condition(const nlohmann::json& status, const std::string& type) {
  for (const nlohmann::json& c : status.value("conditions", nlohmann::json::array())) {
    if (c.value("type", "") == type) return c;
  }
  return nullptr;
}

bool ConditionIs(const nlohmann::json& status, const std::string& type, const std::string& value,
                 const std::string& reason) {
  const nlohmann::json c = Condition(status, type);
  return c.is_object() && c.value("status", "") == value && c.value("reason", "") == reason;
}

// The release `kRelease` of a status view (JSON), or null.
nlohmann::json Release(const nlohmann::json& status) {
  for (const nlohmann::json& r : status.value("releases", nlohmann::json::array())) {
    if (r.value("name", "") == kRelease) return r;
  }
  return nullptr;
}

class ReportLoopTest : public LiveProcessTest {
 protected:
  void SetUp() override {
    LiveProcessTest::SetUp();
    ASSERT_OK_AND_ASSIGN(admin_config_,
                         kubebridge::LoadKubeconfig(dir_.path() / "kubeapi" / "kubeconfig"));
    objects_ = std::make_unique<kubebridge::TargetClusterObjects>(*admin_, admin_config_);
  }
  void TearDown() override {
    if (agent_ != nullptr) {
      agent_->Signal(SIGTERM);
      absl::StatusOr<int> code = agent_->Wait(absl::Now() + kLiveWait);
      EXPECT_OK(code);
      EXPECT_EQ(code.value_or(-1), 0) << agent_->err();
    }
    LiveProcessTest::TearDown();
  }

  // Registers demo/`target` and returns it once its first credential is issued.
  nlohmann::json RegisterWithCredential(const std::string& target) {
    RunResult registered = Cli({"target", "register", absl::StrCat(kLiveNamespace, "/", target)});
    EXPECT_EQ(registered.exit_code, 0) << registered.err;
    return WaitForCurrentCredential(target, 1);
  }
  // The token of the Target's current credential Secret.
  std::string CurrentToken(const std::string& target, const nlohmann::json& view) {
    const std::string secret = kubebridge::StringAt(view, {"current_credential", "secret_name"});
    for (const nlohmann::json& s : CredentialSecrets(target)) {
      if (kubebridge::StringAt(s, {"metadata", "name"}) == secret) return TokenOf(s);
    }
    ADD_FAILURE() << "no Secret " << secret;
    return "";
  }
  // A client of the SolAr-side API server that authenticates with `token`.
  std::unique_ptr<kubebridge::KubeClient> ClientWithToken(const std::string& token) {
    kubebridge::ConnectionConfig config;
    config.server = admin_config_.server;
    config.ca_pem = admin_config_.ca_pem;
    config.token = token;
    absl::StatusOr<std::unique_ptr<kubebridge::KubeClient>> client =
        kubebridge::KubeClient::New(config, {});
    EXPECT_OK(client);
    return client.ok() ? *std::move(client) : nullptr;
  }
  // Rewrites the HelmRelease's status as helm-controller would after a new release:
  // history[0].chartVersion `chart_version`, and Remediated=True/RollbackSucceeded when
  // `rolled_back` (Ready stays True: the previous version runs).
  void SetLiveRevision(const std::string& chart_version, bool rolled_back) {
    kubebridge::ResourceRef ref = kubebridge::HelmReleaseResource();
    ref.namespace_name = kLiveNamespace;
    ref = ref.WithName(kRelease);
    ASSERT_OK_AND_ASSIGN(nlohmann::json object, admin_->Get(ref));
    nlohmann::json& status = object["status"];
    status["history"][0]["chartVersion"] = chart_version;
    nlohmann::json conditions = nlohmann::json::array();
    for (const nlohmann::json& c : status["conditions"]) {
      if (c.value("type", "") != "Remediated") conditions.push_back(c);
    }
    if (rolled_back) {
      conditions.push_back({{"type", "Remediated"},
                            {"status", "True"},
                            {"reason", "RollbackSucceeded"},
                            {"message", "Helm rollback to previous release succeeded"},
                            {"observedGeneration", object["metadata"]["generation"]},
                            {"lastTransitionTime", "2026-03-02T10:30:00Z"}});
    }
    status["conditions"] = conditions;
    objects_->PutStatus(ref, object);
  }

  kubebridge::ConnectionConfig admin_config_;
  std::unique_ptr<kubebridge::TargetClusterObjects> objects_;
  std::unique_ptr<Subprocess> agent_;
};

TEST_F(ReportLoopTest, TheAgentReportsWithItsTokenAndAConfirmedRolloutReleasesTheOldSecret) {
  StartServe("", {"--liveness-flush-interval", "200ms"});
  const nlohmann::json edge1 = RegisterWithCredential("edge-1");
  RegisterWithCredential("edge-2");
  const std::string token1 = CurrentToken("edge-1", edge1);
  ASSERT_FALSE(token1.empty());
  objects_->CreateFluxPair("healthy", kLiveNamespace, kRelease);
  WriteAgentKubeconfig(token1);
  ASSERT_OK_AND_ASSIGN(agent_, StartAgent("edge-1", {"--interval", "1s"}));

  // The TargetReport appears, is ingested and rolled up.
  const nlohmann::json first = WaitForStatus(
      "edge-1",
      [](const nlohmann::json& s) {
        return ConditionIs(s, "Reporting", "True", "ReportReceived") && Release(s).is_object() &&
               Release(s).value("phase", "") == "Ready";
      },
      "the agent's first report, release Ready");
  ASSERT_TRUE(first.is_object());
  EXPECT_TRUE(ConditionIs(first, "ReleasesReady", "True", "Ready"));
  EXPECT_EQ(Release(first).value("revision", ""), "1.2.0");
  RunResult status = Cli({"status", "demo/edge-1"});
  EXPECT_EQ(status.exit_code, 0) << status.err;
  EXPECT_TRUE(absl::StrContains(status.out, kRelease)) << status.out;
  EXPECT_TRUE(absl::StrContains(status.out, "ReportReceived")) << status.out;
  RunResult fleet = Cli({"fleet", "--condition", "Reporting=True", "--output", "json"});
  EXPECT_EQ(fleet.exit_code, 0) << fleet.err;
  EXPECT_TRUE(absl::StrContains(fleet.out, "\"edge-1\"")) << fleet.out;
  EXPECT_FALSE(absl::StrContains(fleet.out, "\"edge-2\"")) << fleet.out;

  // The agent's token reaches its own TargetReport only.
  std::unique_ptr<kubebridge::KubeClient> as_agent = ClientWithToken(token1);
  ASSERT_NE(as_agent, nullptr);
  EXPECT_OK(as_agent->Get(kubebridge::TargetReportResource(kLiveNamespace, "edge-1")).status());
  EXPECT_THAT(as_agent->Get(kubebridge::TargetReportResource(kLiveNamespace, "edge-2")),
              StatusIs(absl::StatusCode::kPermissionDenied));

  // Rotation: a new credential, delivered to the agent by rewriting its token file.
  RunResult rotated = Cli({"target", "rotate", "demo/edge-1", "--value", "rotation-1"});
  ASSERT_EQ(rotated.exit_code, 0) << rotated.err;
  const nlohmann::json edge1_rotated = WaitForCurrentCredential("edge-1", 2);
  const std::string token2 = CurrentToken("edge-1", edge1_rotated);
  const std::string new_version = absl::StrCat(
      "1.2.0", kubebridge::StringAt(edge1_rotated, {"current_credential", "chart_version_suffix"}));
  WriteAgentKubeconfig(token2);

  // A rolled-back release carrying the new tag confirms nothing.
  SetLiveRevision(new_version, /*rolled_back=*/true);
  const nlohmann::json rolled_back = WaitForStatus(
      "edge-1",
      [&](const nlohmann::json& s) {
        return Release(s).is_object() && Release(s).value("revision", "") == new_version &&
               Release(s).value("rolled_back", false);
      },
      "the rolled-back release with the new tag");
  ASSERT_TRUE(rolled_back.is_object());
  RunResult after_rollback = Cli({"target", "get", "demo/edge-1", "--output", "json"});
  ASSERT_EQ(after_rollback.exit_code, 0) << after_rollback.err;
  EXPECT_TRUE(absl::StrContains(after_rollback.out, "solar-agent-edge-1-1"))
      << "the old Secret must survive a rolled-back release: " << after_rollback.out;

  // The release runs the new chart: the report confirms, the old Secret goes, its token dies.
  SetLiveRevision(new_version, /*rolled_back=*/false);
  WaitForTarget(
      "edge-1",
      [](const nlohmann::json& t) {
        return t.value("older_secret_names", nlohmann::json::array()).empty() &&
               kubebridge::StringAt(t, {"current_credential", "secret_name"}) ==
                   "solar-agent-edge-1-2";
      },
      "the old Secret released after the confirming report");
  std::vector<nlohmann::json> secrets = CredentialSecrets("edge-1");
  ASSERT_EQ(secrets.size(), 1u);
  EXPECT_EQ(kubebridge::StringAt(secrets[0], {"metadata", "name"}), "solar-agent-edge-1-2");
  EXPECT_THAT(as_agent->Get(kubebridge::TargetReportResource(kLiveNamespace, "edge-1")),
              StatusIs(absl::StatusCode::kUnauthenticated));

  // The same agent process keeps reporting with the rotated token.
  SetLiveRevision("1.2.1" + new_version.substr(5), /*rolled_back=*/false);
  EXPECT_TRUE(WaitForStatus(
                  "edge-1",
                  [&](const nlohmann::json& s) {
                    return Release(s).is_object() &&
                           absl::StartsWith(Release(s).value("revision", ""), "1.2.1-");
                  },
                  "a report written with the rotated token")
                  .is_object());
  as_agent->Stop();
}

TEST_F(ReportLoopTest, ASilentTargetGoesStaleOnceAndComesBackWithTheNextReport) {
  StartServe("", {"--liveness-flush-interval", "200ms", "--report-stale-after", "2s",
                  "--report-min-interval", "1s"});
  const nlohmann::json edge1 = RegisterWithCredential("edge-1");
  objects_->CreateFluxPair("healthy", kLiveNamespace, kRelease);
  WriteAgentKubeconfig(CurrentToken("edge-1", edge1));

  RunResult pushed = RunAgentOnce("edge-1");
  ASSERT_EQ(pushed.exit_code, 0) << pushed.err;
  ASSERT_TRUE(WaitForStatus(
                  "edge-1",
                  [](const nlohmann::json& s) {
                    return ConditionIs(s, "Reporting", "True", "ReportReceived");
                  },
                  "the first report")
                  .is_object());
  ASSERT_TRUE(
      WaitForStatus(
          "edge-1",
          [](const nlohmann::json& s) { return ConditionIs(s, "Reporting", "False", "Stale"); },
          "Reporting=False/Stale after 2s of silence")
          .is_object());

  // The next report (unchanged: a heartbeat) makes it True again.
  RunResult again = RunAgentOnce("edge-1");
  ASSERT_EQ(again.exit_code, 0) << again.err;
  ASSERT_TRUE(WaitForStatus(
                  "edge-1",
                  [](const nlohmann::json& s) {
                    return ConditionIs(s, "Reporting", "True", "ReportReceived");
                  },
                  "Reporting=True after the heartbeat")
                  .is_object());

  // In the log: one report, one stale mark, then the heartbeat's liveness batch.
  std::vector<std::string> sequence;
  for (const store::RecordedEvent& e : ReadLog()) {
    if (e.stream == "report/demo/edge-1") sequence.push_back(e.type);
    if (e.stream == "liveness") sequence.push_back(e.type);
  }
  ASSERT_GE(sequence.size(), 3u);
  EXPECT_EQ(sequence[0], "credledger.v1.ReportAccepted");
  EXPECT_EQ(sequence[1], "credledger.v1.ReportingStale");
  EXPECT_EQ(sequence[2], "credledger.v1.LivenessObserved");
}

}  // namespace report_loop_test
}  // namespace credledger::testing
