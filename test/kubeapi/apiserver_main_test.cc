// The credledger-test-apiserver executable: flags, port file, ready line, state files,
// and a clean exit on SIGTERM.
#include <signal.h>

#include <filesystem>
#include <fstream>
#include <memory>
#include <string>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "gtest/gtest.h"
#include "test/support/status_matchers.h"
#include "test/support/subprocess.h"

namespace credledger::kubeapi::testing {
namespace apiserver_main_test {

using ::credledger::testing::RunResult;
using ::credledger::testing::Subprocess;

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
  ASSERT_OK_AND_ASSIGN(
      std::unique_ptr<Subprocess> child,
      Subprocess::Start({CREDLEDGER_TEST_APISERVER_BINARY, "--state-dir=" + state, "--port-file",
                         port_file, "--max-token-expiration=2h"}));
  // The first complete line on stdout (every line contains ""); the newline is implied.
  absl::StatusOr<std::string> ready = child->WaitForLine("", absl::Now() + absl::Seconds(20));
  ASSERT_TRUE(ready.ok()) << ready.status();
  std::ifstream in(port_file);
  std::string port_text;
  std::getline(in, port_text);
  int port = 0;
  ASSERT_TRUE(absl::SimpleAtoi(port_text, &port))
      << "port file: " << port_text << "\n" << *ready << "\n" << child->err();
  EXPECT_EQ(*ready, absl::StrCat("credledger-test-apiserver listening on https://127.0.0.1:", port,
                                 " kubeconfig=", state, "/kubeconfig"));
  // The ready line is the first output on either stream.
  EXPECT_EQ(child->err(), "");
  for (const char* file : {"ca.crt", "server.crt", "server.key", "admin-token", "kubeconfig", "sa.pub"}) {
    EXPECT_TRUE(std::filesystem::exists(std::filesystem::path(state) / file)) << file;
  }
  child->Signal(SIGTERM);
  absl::StatusOr<int> exit_code = child->Wait(absl::Now() + absl::Seconds(20));
  ASSERT_TRUE(exit_code.ok()) << exit_code.status();
  EXPECT_EQ(*exit_code, 0) << child->err();
}

TEST_F(ApiServerMainTest, HelpDescribesTheFlags) {
  // Qualified: inside a test fixture, plain Run is ::testing::Test::Run.
  ASSERT_OK_AND_ASSIGN(
      RunResult result,
      ::credledger::testing::Run({CREDLEDGER_TEST_APISERVER_BINARY, "--help"}, absl::Seconds(20)));
  const std::string output = result.out + result.err;
  EXPECT_NE(output.find("state_dir"), std::string::npos) << output;
  EXPECT_NE(output.find("port_file"), std::string::npos) << output;
  EXPECT_NE(output.find("max_token_expiration"), std::string::npos) << output;
  EXPECT_NE(output.find("garbage_collection_period"), std::string::npos) << output;
}

}  // namespace apiserver_main_test
}  // namespace credledger::kubeapi::testing
