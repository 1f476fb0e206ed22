// kubectl against the test API server: discovery, server-side printing and lists must be
// good enough for `kubectl get`. Skipped when /usr/bin/kubectl is absent.
#include <filesystem>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "test/kubeapi/test_support.h"
#include "test/support/status_matchers.h"
#include "test/support/subprocess.h"

namespace credledger::kubeapi::testing {
namespace kubectl_test {

using ::credledger::testing::RunResult;

const char kKubectl[] = "/usr/bin/kubectl";

// kubectl's stdout then its stderr (tables and JSON, then warnings and errors).
std::string Output(const RunResult& result) { return result.out + result.err; }

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
  // Errors: as for Run (kInternal when kubectl cannot start, kDeadlineExceeded after 60 s).
  absl::StatusOr<RunResult> Kubectl(std::vector<std::string> args) {
    std::vector<std::string> argv = {kKubectl, "--kubeconfig", server_->kubeconfig_path().string(),
                                     "--cache-dir", (dir_ / "kubectl-cache").string()};
    argv.insert(argv.end(), args.begin(), args.end());
    // Qualified: inside a test fixture, plain Run is ::testing::Test::Run.
    return ::credledger::testing::Run(argv, absl::Seconds(60), /*unset_env=*/{},
                                      /*extra_env=*/{"HOME=" + dir_.string(), "KUBECONFIG="});
  }
};

TEST_F(KubectlTest, GetSecretsPrintsTheServerSideTable) {
  CreateSecret("team-a", "db-password", {{"app", "db"}});
  ASSERT_OK_AND_ASSIGN(RunResult result, Kubectl({"get", "secrets", "-n", "team-a"}));
  const std::string output = Output(result);
  ASSERT_EQ(result.exit_code, 0) << output;
  EXPECT_NE(output.find("NAME"), std::string::npos) << output;
  EXPECT_NE(output.find("db-password"), std::string::npos) << output;
  EXPECT_NE(output.find("Opaque"), std::string::npos) << output;
}

TEST_F(KubectlTest, GetTargetReportsFindsTheCustomResource) {
  CreateObject("/apis/solar.opendefense.cloud/v1alpha1/namespaces/team-a/targetreports",
               {{"apiVersion", "solar.opendefense.cloud/v1alpha1"}, {"kind", "TargetReport"},
                {"metadata", {{"name", "cluster-a"}}}, {"spec", nlohmann::json::object()}});
  ASSERT_OK_AND_ASSIGN(RunResult result, Kubectl({"get", "targetreports", "-n", "team-a"}));
  const std::string output = Output(result);
  ASSERT_EQ(result.exit_code, 0) << output;
  EXPECT_NE(output.find("cluster-a"), std::string::npos) << output;
  ASSERT_OK_AND_ASSIGN(RunResult all, Kubectl({"get", "targetreports", "-A", "-o", "name"}));
  const std::string all_output = Output(all);
  ASSERT_EQ(all.exit_code, 0) << all_output;
  EXPECT_NE(all_output.find("targetreport.solar.opendefense.cloud/cluster-a"), std::string::npos)
      << all_output;
}

TEST_F(KubectlTest, GetAsJsonRoundTripsTheList) {
  CreateSecret("team-a", "one");
  CreateSecret("team-a", "two");
  ASSERT_OK_AND_ASSIGN(RunResult result, Kubectl({"get", "secrets", "-n", "team-a", "-o", "json"}));
  const std::string output = Output(result);
  ASSERT_EQ(result.exit_code, 0) << output;
  // Parsed with stderr appended, as before on the one shared stream: a warning fails it.
  nlohmann::json list = nlohmann::json::parse(output, nullptr, false);
  ASSERT_TRUE(list.is_object()) << output;
  EXPECT_EQ(list["items"].size(), 2u);
}

TEST_F(KubectlTest, DeleteThroughKubectlRemovesTheObject) {
  CreateSecret("team-a", "doomed");
  ASSERT_OK_AND_ASSIGN(RunResult result, Kubectl({"delete", "secret", "doomed", "-n", "team-a"}));
  ASSERT_EQ(result.exit_code, 0) << Output(result);
  EXPECT_EQ(Admin().Get("/api/v1/namespaces/team-a/secrets/doomed").status, 404);
}

}  // namespace kubectl_test
}  // namespace credledger::kubeapi::testing
