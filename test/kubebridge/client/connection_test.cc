#include "kubebridge/client/connection.h"

#include <string>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "test/kubebridge/test_files.h"
#include "test/support/status_matchers.h"
#include "test/support/temp_dir.h"

namespace credledger::kubebridge {
namespace connection_test {

using ::credledger::testing::TempDir;

InClusterEnvironment Env(const TempDir& dir) {
  InClusterEnvironment env;
  env.service_host = "10.96.0.1";
  env.service_port = "443";
  env.service_account_dir = dir.path();
  return env;
}

TEST(InClusterTest, ReadsServiceAccountFilesFromTheInjectedFolder) {
  TempDir dir;
  WriteTestFile(dir.path() / "ca.crt", "CA-PEM");
  WriteTestFile(dir.path() / "token", "sa-token\n");
  WriteTestFile(dir.path() / "namespace", "credledger\n");
  ASSERT_OK_AND_ASSIGN(ConnectionConfig config, LoadInClusterConfig(Env(dir)));
  EXPECT_EQ(config.server, "https://10.96.0.1:443");
  EXPECT_EQ(config.ca_pem, "CA-PEM");
  EXPECT_EQ(config.token, "sa-token");
  EXPECT_EQ(config.token_file, dir.path() / "token");
  EXPECT_EQ(config.default_namespace, "credledger");
  EXPECT_EQ(config.source, "in-cluster");
}

TEST(InClusterTest, Ipv6HostIsBracketedAndNamespaceDefaults) {
  TempDir dir;
  WriteTestFile(dir.path() / "ca.crt", "CA-PEM");
  WriteTestFile(dir.path() / "token", "sa-token");
  InClusterEnvironment env = Env(dir);
  env.service_host = "fd00::1";
  ASSERT_OK_AND_ASSIGN(ConnectionConfig config, LoadInClusterConfig(env));
  EXPECT_EQ(config.server, "https://[fd00::1]:443");
  EXPECT_EQ(config.default_namespace, "default");
}

TEST(InClusterTest, UnsetEnvironmentIsAFailedPrecondition) {
  TempDir dir;
  InClusterEnvironment env = Env(dir);
  env.service_host.clear();
  absl::StatusOr<ConnectionConfig> config = LoadInClusterConfig(env);
  EXPECT_EQ(config.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(config.status().message(),
            "in-cluster: KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT must be set");
}

TEST(InClusterTest, BadPortIsNamed) {
  TempDir dir;
  InClusterEnvironment env = Env(dir);
  env.service_port = "https";
  EXPECT_EQ(LoadInClusterConfig(env).status().message(),
            "in-cluster: KUBERNETES_SERVICE_PORT \"https\" is not a port number");
}

TEST(InClusterTest, MissingTokenNamesTheFile) {
  TempDir dir;
  WriteTestFile(dir.path() / "ca.crt", "CA-PEM");
  absl::StatusOr<ConnectionConfig> config = LoadInClusterConfig(Env(dir));
  EXPECT_EQ(config.status().code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(config.status().message(),
            absl::StrCat("in-cluster: \"", (dir.path() / "token").string(),
                         "\": No such file or directory"));
}

TEST(InClusterTest, EmptyCaIsRejected) {
  TempDir dir;
  WriteTestFile(dir.path() / "ca.crt", "");
  WriteTestFile(dir.path() / "token", "t");
  EXPECT_EQ(LoadInClusterConfig(Env(dir)).status().message(),
            absl::StrCat("in-cluster: \"", (dir.path() / "ca.crt").string(), "\" is empty"));
}

TEST(ConnectionConfigTest, DebugStringRedactsBasicCredentials) {
  ConnectionConfig config;
  config.server = "https://charts.example";
  config.basic_username = "chart-reader";
  config.basic_password = "basic-pw-Zq7";
  std::string text = config.DebugString();
  EXPECT_NE(text.find("basic=<redacted>"), std::string::npos) << text;
  EXPECT_EQ(text.find("chart-reader"), std::string::npos) << text;
  EXPECT_EQ(text.find("basic-pw-Zq7"), std::string::npos) << text;
}

}  // namespace connection_test
}  // namespace credledger::kubebridge
