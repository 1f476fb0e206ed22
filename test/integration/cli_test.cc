// The `credledger` binary as an operator uses it: a `credledger serve` child process
// (started with posix_spawn, port 0, --port-file) and client subcommands run against it,
// checking exit codes and output.
#include <signal.h>

#include <fstream>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "test/support/status_matchers.h"
#include "test/support/subprocess.h"
#include "test/support/temp_dir.h"

namespace credledger::testing {
namespace cli_test {

using ::testing::HasSubstr;
using ::testing::MatchesRegex;
using ::testing::Not;
using ::testing::StartsWith;

constexpr char kBinary[] = CREDLEDGER_BINARY;
const std::vector<std::string> kCleanEnv = {"CREDLEDGER_SERVER", "KUBECONFIG"};

class CliTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::ofstream(dir_.path() / "ca.pem") << "test-ca\n";
    StartServe();
  }

  // Starts `credledger serve <extra_args>` on <dir>/var/credledger.db and waits until it
  // serves at address_.
  void StartServe(const std::vector<std::string>& extra_args = {}) {
    std::vector<std::string> argv = {kBinary,
                                     "serve",
                                     "--db",
                                     (dir_.path() / "var" / "credledger.db").string(),
                                     "--listen",
                                     "127.0.0.1:0",
                                     "--port-file",
                                     (dir_.path() / "port").string(),
                                     "--agent-apiserver-url",
                                     "https://agents.example:6443",
                                     "--agent-ca-file",
                                     (dir_.path() / "ca.pem").string()};
    argv.insert(argv.end(), extra_args.begin(), extra_args.end());
    auto server = Subprocess::Start(argv, kCleanEnv);
    ASSERT_OK(server);
    server_ = *std::move(server);
    auto ready = server_->WaitForLine("credledger serving on", absl::Now() + absl::Seconds(30));
    ASSERT_OK(ready);
    std::ifstream port_file(dir_.path() / "port");
    std::string port;
    port_file >> port;
    ASSERT_FALSE(port.empty());
    address_ = absl::StrCat("127.0.0.1:", port);
    EXPECT_EQ(*ready, absl::StrCat("credledger serving on ", address_, " (plaintext)"));
  }

  void TearDown() override { StopServe(); }

  // Stops serve (SIGTERM), expects a clean exit and returns its stderr.
  std::string StopServe() {
    if (server_ == nullptr) return "";
    server_->Signal(SIGTERM);
    auto code = server_->Wait(absl::Now() + absl::Seconds(30));
    EXPECT_OK(code);
    EXPECT_EQ(code.value_or(-1), 0) << server_->err();
    const std::string err = server_->err();
    server_.reset();
    return err;
  }

  // Runs `credledger <args> [--server <address>]`.
  RunResult Cli(std::vector<std::string> args, bool with_server = true) {
    args.insert(args.begin(), kBinary);
    if (with_server) {
      args.push_back("--server");
      args.push_back(address_);
    }
    auto result = testing::Run(args, absl::Seconds(60), kCleanEnv);
    EXPECT_OK(result);
    return result.ok() ? *result : RunResult{};
  }

  TempDir dir_;
  std::unique_ptr<Subprocess> server_;
  std::string address_;
};

TEST_F(CliTest, RegisterGetAndListPrintTheTarget) {
  RunResult registered = Cli({"target", "register", "demo/edge-1", "--as", "alice"});
  EXPECT_EQ(registered.exit_code, 0) << registered.err;
  EXPECT_THAT(registered.err, StartsWith("request-id: "));
  EXPECT_THAT(registered.out, StartsWith("registered demo/edge-1 (seq 3)\n"));

  RunResult got = Cli({"target", "get", "demo/edge-1"});
  EXPECT_EQ(got.exit_code, 0) << got.err;
  EXPECT_THAT(got.out, StartsWith("demo/edge-1\n"));
  EXPECT_THAT(got.out, HasSubstr("AgentCredentialReady=Unknown MintPending"));
  EXPECT_THAT(got.out, HasSubstr("phase:       Active"));
  EXPECT_THAT(got.out, HasSubstr("minting:     m1"));
  EXPECT_EQ(got.err, "");

  RunResult json = Cli({"target", "get", "demo/edge-1", "--output", "json"});
  EXPECT_EQ(json.exit_code, 0) << json.err;
  EXPECT_THAT(json.out, HasSubstr("\"name\":\"edge-1\""));
  EXPECT_THAT(json.out, HasSubstr("\"reason\":\"MintPending\""));

  RunResult listed = Cli({"target", "list"});
  EXPECT_EQ(listed.exit_code, 0) << listed.err;
  EXPECT_THAT(listed.out, StartsWith("TARGET"));
  EXPECT_THAT(listed.out, HasSubstr("demo/edge-1"));
  EXPECT_THAT(listed.out, HasSubstr("MintPending"));
}

TEST_F(CliTest, RetryWithTheSameRequestIdAppendsNothing) {
  RunResult first = Cli({"target", "register", "demo/edge-1", "--request-id", "op-1"});
  EXPECT_EQ(first.exit_code, 0) << first.err;
  EXPECT_EQ(first.err, "");  // a given request id is not printed
  RunResult second = Cli({"target", "register", "demo/edge-1", "--request-id", "op-1"});
  EXPECT_EQ(second.exit_code, 0) << second.err;
  EXPECT_THAT(second.out, StartsWith("registered demo/edge-1: request already answered, "
                                     "nothing appended (seq 3)"));
}

TEST_F(CliTest, BadInputExitsNonZeroWithTheCodeAndTheRule) {
  RunResult bad_name = Cli({"target", "register", "Demo/edge-1"});
  EXPECT_EQ(bad_name.exit_code, 1);
  EXPECT_THAT(bad_name.err,
              HasSubstr("error: INVALID_ARGUMENT: namespace: \"Demo\" is not a DNS-1123 label"));
  EXPECT_EQ(bad_name.out, "");

  RunResult unknown = Cli({"target", "get", "demo/ghost"});
  EXPECT_EQ(unknown.exit_code, 1);
  // The message, then the call's request id (docs/api.md, "Call request ids").
  EXPECT_THAT(unknown.err, MatchesRegex("error: NOT_FOUND: target \"demo/ghost\": not found "
                                        "\\(request id [0-9a-f]{16}\\)\n"));

  RunResult not_a_target = Cli({"target", "get", "edge-1"});
  EXPECT_EQ(not_a_target.exit_code, 2);
  EXPECT_THAT(not_a_target.err, HasSubstr("expected <namespace>/<name>"));

  RunResult bad_flag = Cli({"target", "list", "--bogus"});
  EXPECT_EQ(bad_flag.exit_code, 2);
  EXPECT_THAT(bad_flag.err, HasSubstr("unknown flag --bogus"));
  EXPECT_THAT(bad_flag.err, HasSubstr("usage: credledger target list"));

  RunResult bad_command = Cli({"target", "frobnicate"}, /*with_server=*/false);
  EXPECT_EQ(bad_command.exit_code, 2);
  EXPECT_THAT(bad_command.err, HasSubstr("unknown command \"target frobnicate\""));

  // Regression: an empty --request-id (an unset shell variable) silently got a generated id
  // and registered the Target; now it is refused and nothing is registered.
  RunResult empty_id = Cli({"target", "register", "demo/edge-9", "--request-id", ""});
  EXPECT_EQ(empty_id.exit_code, 2);
  EXPECT_THAT(empty_id.err, HasSubstr("--request-id is given but empty"));
  RunResult not_registered = Cli({"target", "get", "demo/edge-9"});
  EXPECT_EQ(not_registered.exit_code, 1);
  EXPECT_THAT(not_registered.err, HasSubstr("NOT_FOUND"));

  RunResult bad_number = Cli({"target", "watch", "--after-seq", "abc"});
  EXPECT_EQ(bad_number.exit_code, 2);
  EXPECT_THAT(bad_number.err, HasSubstr("--after-seq: bad value \"abc\": expected an integer"));
}

TEST_F(CliTest, ServeLogsEveryCallUnderTheRequestIdTheCliPrintsUnlessTheAccessLogIsOff) {
  const std::regex printed_id("error: NOT_FOUND: .* \\(request id ([0-9a-f]{16})\\)\n");
  RunResult logged = Cli({"target", "get", "demo/ghost"});
  std::smatch id;
  ASSERT_TRUE(std::regex_match(logged.err, id, printed_id)) << logged.err;
  EXPECT_THAT(StopServe(), HasSubstr(absl::StrCat("\"msg\":\"rpc\",\"rpc\":\"/credledger.v1."
                                                  "TargetService/GetTarget\",\"request_id\":\"",
                                                  id[1].str(), "\"")));

  StartServe({"--access-log=false"});
  RunResult unlogged = Cli({"target", "get", "demo/ghost"});
  EXPECT_TRUE(std::regex_match(unlogged.err, printed_id)) << unlogged.err;
  EXPECT_THAT(StopServe(), Not(HasSubstr("\"msg\":\"rpc\"")));
}

TEST_F(CliTest, ServeRefusesAShortTokenTtlAndANonLoopbackAddress) {
  RunResult short_ttl =
      Cli({"serve", "--db", (dir_.path() / "other.db").string(), "--listen", "127.0.0.1:0",
           "--agent-token-ttl", "5m"},
          /*with_server=*/false);
  // Flag values are usage errors, refused before anything is opened or printed.
  EXPECT_EQ(short_ttl.exit_code, 2);
  EXPECT_EQ(short_ttl.out, "");
  EXPECT_THAT(short_ttl.err, HasSubstr("--agent-token-ttl: 5m is below the minimum of 10m"));

  RunResult exposed = Cli({"serve", "--db", (dir_.path() / "other.db").string(), "--listen",
                           "0.0.0.0:0"},
                          /*with_server=*/false);
  EXPECT_EQ(exposed.exit_code, 2);
  EXPECT_THAT(exposed.err, HasSubstr("is not a loopback address"));
}

TEST_F(CliTest, MigrateCreatesTheDatabaseAndPrintsItsSchemaVersion) {
  const std::string db = (dir_.path() / "fresh" / "credledger.db").string();
  RunResult migrated = Cli({"migrate", "--db", db}, /*with_server=*/false);
  EXPECT_EQ(migrated.exit_code, 0) << migrated.err;
  // The newest migration compiled into the binary: 0003_snapshot_seals.sql.
  EXPECT_EQ(migrated.out, absl::StrCat("schema version 3 (", db, ")\n"));
}

}  // namespace cli_test
}  // namespace credledger::testing
