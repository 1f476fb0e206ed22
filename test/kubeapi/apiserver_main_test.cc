// The credledger-test-apiserver executable: flags, port file, ready line, state files,
// and a clean exit on SIGTERM.
#include <signal.h>

#include <filesystem>
#include <fstream>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "gtest/gtest.h"
#include "test/kubeapi/child_process.h"

namespace credledger::kubeapi::testing {
namespace {

class ApiServerMainTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::path(::testing::TempDir()) / absl::StrCat("kubeapi-main-", getpid());
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::filesystem::path dir_;
};

TEST_F(ApiServerMainTest, PrintsReadyLineWritesPortFileAndExitsCleanlyOnSigterm) {
  std::string state = (dir_ / "state").string();
  std::string port_file = (dir_ / "port").string();
  absl::StatusOr<ChildProcess> child = ChildProcess::Spawn(
      {CREDLEDGER_TEST_APISERVER_BINARY, "--state-dir=" + state, "--port-file", port_file,
       "--max-token-expiration=2h"});
  ASSERT_TRUE(child.ok()) << child.status();
  std::string output = child->ReadUntil("\n", absl::Seconds(20));
  std::ifstream in(port_file);
  std::string port_text;
  std::getline(in, port_text);
  int port = 0;
  ASSERT_TRUE(absl::SimpleAtoi(port_text, &port)) << "port file: " << port_text << "\n" << output;
  EXPECT_EQ(output, absl::StrCat("credledger-test-apiserver listening on https://127.0.0.1:", port,
                                 " kubeconfig=", state, "/kubeconfig\n"));
  for (const char* file : {"ca.crt", "server.crt", "server.key", "admin-token", "kubeconfig", "sa.pub"}) {
    EXPECT_TRUE(std::filesystem::exists(std::filesystem::path(state) / file)) << file;
  }
  child->Signal(SIGTERM);
  EXPECT_EQ(child->Wait(absl::Seconds(20)), 0);
}

TEST_F(ApiServerMainTest, HelpDescribesTheFlags) {
  RunResult result = RunToCompletion({CREDLEDGER_TEST_APISERVER_BINARY, "--help"}, {}, absl::Seconds(20));
  EXPECT_NE(result.output.find("state_dir"), std::string::npos) << result.output;
  EXPECT_NE(result.output.find("port_file"), std::string::npos) << result.output;
  EXPECT_NE(result.output.find("max_token_expiration"), std::string::npos) << result.output;
}

}  // namespace
}  // namespace credledger::kubeapi::testing
