// kubectl against the test API server: discovery, server-side printing and lists must be
// good enough for `kubectl get`. Skipped when /usr/bin/kubectl is absent.
#include <filesystem>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "test/kubeapi/child_process.h"
#include "test/kubeapi/test_support.h"

namespace credledger::kubeapi::testing {
namespace {

const char kKubectl[] = "/usr/bin/kubectl";

class KubectlTest : public ApiServerTest {
 protected:
  void SetUp() override {
    if (!std::filesystem::exists(kKubectl)) {
      GTEST_SKIP() << kKubectl << " is not installed; install a kubectl client (1.32 was "
                   << "checked) to run this test";
    }
    ApiServerTest::SetUp();
    CreateNamespace("team-a");
  }
  RunResult Kubectl(std::vector<std::string> args) {
    std::vector<std::string> argv = {kKubectl, "--kubeconfig", server_->kubeconfig_path().string(),
                                     "--cache-dir", (dir_ / "kubectl-cache").string()};
    argv.insert(argv.end(), args.begin(), args.end());
    return RunToCompletion(argv, {{"HOME", dir_.string()}, {"KUBECONFIG", ""}}, absl::Seconds(60));
  }
};

TEST_F(KubectlTest, GetSecretsPrintsTheServerSideTable) {
  CreateSecret("team-a", "db-password", {{"app", "db"}});
  RunResult result = Kubectl({"get", "secrets", "-n", "team-a"});
  ASSERT_EQ(result.exit_code, 0) << result.output;
  EXPECT_NE(result.output.find("NAME"), std::string::npos) << result.output;
  EXPECT_NE(result.output.find("db-password"), std::string::npos) << result.output;
  EXPECT_NE(result.output.find("Opaque"), std::string::npos) << result.output;
}

TEST_F(KubectlTest, GetTargetReportsFindsTheCustomResource) {
  CreateObject("/apis/solar.opendefense.cloud/v1alpha1/namespaces/team-a/targetreports",
               {{"apiVersion", "solar.opendefense.cloud/v1alpha1"}, {"kind", "TargetReport"},
                {"metadata", {{"name", "cluster-a"}}}, {"spec", nlohmann::json::object()}});
  RunResult result = Kubectl({"get", "targetreports", "-n", "team-a"});
  ASSERT_EQ(result.exit_code, 0) << result.output;
  EXPECT_NE(result.output.find("cluster-a"), std::string::npos) << result.output;
  RunResult all = Kubectl({"get", "targetreports", "-A", "-o", "name"});
  ASSERT_EQ(all.exit_code, 0) << all.output;
  EXPECT_NE(all.output.find("targetreport.solar.opendefense.cloud/cluster-a"), std::string::npos)
      << all.output;
}

TEST_F(KubectlTest, GetAsJsonRoundTripsTheList) {
  CreateSecret("team-a", "one");
  CreateSecret("team-a", "two");
  RunResult result = Kubectl({"get", "secrets", "-n", "team-a", "-o", "json"});
  ASSERT_EQ(result.exit_code, 0) << result.output;
  nlohmann::json list = nlohmann::json::parse(result.output, nullptr, false);
  ASSERT_TRUE(list.is_object()) << result.output;
  EXPECT_EQ(list["items"].size(), 2u);
}

TEST_F(KubectlTest, DeleteThroughKubectlRemovesTheObject) {
  CreateSecret("team-a", "doomed");
  RunResult result = Kubectl({"delete", "secret", "doomed", "-n", "team-a"});
  ASSERT_EQ(result.exit_code, 0) << result.output;
  EXPECT_EQ(Admin().Get("/api/v1/namespaces/team-a/secrets/doomed").status, 404);
}

}  // namespace
}  // namespace credledger::kubeapi::testing
