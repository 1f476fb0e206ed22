// The `credledger agent` subcommand: --help, flag errors, and --once against the test API
// server playing both the target cluster and the SolAr side.
#include "cli/agent_cli.h"

#include <sstream>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "kubebridge/client/json_util.h"
#include "kubebridge/credentials/agent_objects.h"
#include "service/credledger_main.h"
#include "test/kubebridge/api_server_fixture.h"

namespace credledger::cli {
namespace agent_cli_test {

using ::testing::HasSubstr;
using ::testing::StartsWith;

struct CliRun {
  int code = -1;
  std::string out;
  std::string err;
};

CliRun Cli(std::vector<std::string> args) {
  std::ostringstream out, err;
  CliRun run;
  run.code = service::CredledgerDispatcher().Run(args, out, err);
  run.out = out.str();
  run.err = err.str();
  return run;
}

// The flags every test but the one under test gets right.
std::vector<std::string> AgentArgs(std::vector<std::string> extra) {
  std::vector<std::string> args = {"agent", "--target-namespace=demo", "--target-name=edge-1",
                                   "--solar-kubeconfig=/nonexistent/solar.kubeconfig"};
  args.insert(args.end(), extra.begin(), extra.end());
  return args;
}

TEST(AgentCommandTest, HelpExplainsPushOnChangeAndMaxReportAge) {
  CliRun run = Cli({"agent", "--help"});
  EXPECT_EQ(run.code, kExitOk);
  EXPECT_THAT(run.out, StartsWith("usage: credledger agent [flags]\n"));
  for (const char* flag : {"--target-namespace", "--target-name", "--solar-kubeconfig",
                           "--kubeconfig", "--interval", "--max-report-age", "--once"}) {
    EXPECT_THAT(run.out, HasSubstr(flag));
  }
  EXPECT_THAT(run.out, HasSubstr("Push on change:"));
  EXPECT_THAT(run.out, HasSubstr("(MaxReportAge, default ten intervals)"));
  EXPECT_THAT(run.out, HasSubstr("Preflight checks are not collected"));
  EXPECT_THAT(run.out, HasSubstr("time between collections, at least 1s (default: 30s)"));
  EXPECT_THAT(Cli({"--help"}).out, HasSubstr("agent"));
}

TEST(AgentCommandTest, MissingRequiredFlagsAreUsageErrorsNamingTheFlag) {
  CliRun no_solar = Cli({"agent", "--target-namespace=demo", "--target-name=edge-1"});
  EXPECT_EQ(no_solar.code, kExitUsage);
  EXPECT_THAT(no_solar.err, StartsWith("error: --solar-kubeconfig: required\n"));

  CliRun no_namespace = Cli({"agent", "--target-name=edge-1", "--solar-kubeconfig=k"});
  EXPECT_EQ(no_namespace.code, kExitUsage);
  EXPECT_THAT(no_namespace.err, HasSubstr("--target-namespace: required"));

  CliRun no_name = Cli({"agent", "--target-namespace=demo", "--solar-kubeconfig=k"});
  EXPECT_EQ(no_name.code, kExitUsage);
  EXPECT_THAT(no_name.err, HasSubstr("--target-name: required"));
}

TEST(AgentCommandTest, InvalidFlagValuesAreUsageErrorsNamingTheFlag) {
  CliRun label =
      Cli({"agent", "--target-namespace=demo", "--target-name=Edge_1", "--solar-kubeconfig=k"});
  EXPECT_EQ(label.code, kExitUsage);
  EXPECT_THAT(label.err, HasSubstr("--target-name: "));

  CliRun fast = Cli(AgentArgs({"--interval=500ms"}));
  EXPECT_EQ(fast.code, kExitUsage);
  EXPECT_THAT(fast.err, HasSubstr("--interval: must be at least 1s, got 500ms"));

  CliRun young = Cli(AgentArgs({"--interval=1m", "--max-report-age=30s"}));
  EXPECT_EQ(young.code, kExitUsage);
  EXPECT_THAT(young.err, HasSubstr("--max-report-age: must be at least --interval (1m)"));

  CliRun garbled = Cli(AgentArgs({"--interval=soon"}));
  EXPECT_EQ(garbled.code, kExitUsage);
  EXPECT_THAT(garbled.err, HasSubstr("flag --interval: bad value \"soon\""));
}

TEST(AgentCommandTest, AnUnreadableKubeconfigFailsWithExitOne) {
  CliRun run = Cli(AgentArgs({"--once", "--kubeconfig=/nonexistent/target.kubeconfig"}));
  EXPECT_EQ(run.code, kExitFailure);
  EXPECT_THAT(run.err, StartsWith("error: NOT_FOUND: --kubeconfig: kubeconfig "));
  EXPECT_THAT(run.err, HasSubstr("/nonexistent/target.kubeconfig"));
}

class AgentOnceTest : public kubebridge::ApiServerFixture {
 protected:
  void SetUp() override {
    ApiServerFixture::SetUp();
    ASSERT_TRUE(client_
                    ->Create(Core("namespaces", "", ""), {{"apiVersion", "v1"},
                                                          {"kind", "Namespace"},
                                                          {"metadata", {{"name", "demo"}}}})
                    .ok());
  }
  CliRun Once() {
    const std::string kubeconfig = server_->kubeconfig_path().string();
    return Cli({"agent", "--target-namespace=demo", "--target-name=edge-1",
                "--solar-kubeconfig=" + kubeconfig, "--kubeconfig=" + kubeconfig, "--once"});
  }
};

TEST_F(AgentOnceTest, OncePushesTheReportAndExitsZero) {
  ASSERT_TRUE(client_
                  ->Create(kubebridge::TargetReportResource("demo"),
                           kubebridge::TargetReportObject("demo", "edge-1"))
                  .ok());
  CliRun run = Once();
  EXPECT_EQ(run.code, kExitOk) << run.err;
  EXPECT_EQ(run.out, "pushed TargetReport demo/edge-1\n");
  absl::StatusOr<nlohmann::json> report =
      client_->Get(kubebridge::TargetReportResource("demo", "edge-1"));
  ASSERT_TRUE(report.ok()) << report.status();
  EXPECT_FALSE(kubebridge::StringAt(*report, {"spec", "lastReportTime"}).empty());
}

TEST_F(AgentOnceTest, OnceExitsNonZeroWhenThePushFails) {
  CliRun run = Once();
  EXPECT_EQ(run.code, kExitFailure);
  EXPECT_THAT(run.err, HasSubstr("error: NOT_FOUND: TargetReport demo/edge-1 does not exist; "
                                 "credledger creates it when the Target is registered"));
  EXPECT_EQ(client_->Get(kubebridge::TargetReportResource("demo", "edge-1")).status().code(),
            absl::StatusCode::kNotFound);
}

}  // namespace agent_cli_test
}  // namespace credledger::cli
