// `credledger status` and `credledger fleet` against a real Server over gRPC, run through
// the CLI's dispatcher in this process: text and JSON output, --help, usage errors (exit 2),
// server errors (exit 1), and the --watch stream until the server shuts down.
#include <sstream>
#include <streambuf>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "gmock/gmock.h"
#include "service/credledger_main.h"
#include "test/integration/api_fixture.h"

namespace credledger::testing {
namespace status_cli_test {

using ::testing::HasSubstr;
using ::testing::MatchesRegex;
using ::testing::Not;
using ::testing::StartsWith;

constexpr absl::Duration kWait = absl::Seconds(30);  // only reached when a test fails

struct CliRun {
  int exit_code = -1;
  std::string out;
  std::string err;
};

// Output of a command running on another thread, readable while it is written.
class SharedOutput : public std::streambuf {
 public:
  // Waits until the output contains `text`; false after `timeout`.
  bool WaitFor(const std::string& text, absl::Duration timeout) {
    absl::MutexLock lock(&mu_);
    auto found = [&]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
      return text_.find(text) != std::string::npos;
    };
    return mu_.AwaitWithTimeout(absl::Condition(&found), timeout);
  }
  std::string text() {
    absl::MutexLock lock(&mu_);
    return text_;
  }

 protected:
  int overflow(int c) override {
    if (c == traits_type::eof()) return traits_type::not_eof(c);
    absl::MutexLock lock(&mu_);
    text_.push_back(static_cast<char>(c));
    return c;
  }
  std::streamsize xsputn(const char* s, std::streamsize n) override {
    absl::MutexLock lock(&mu_);
    text_.append(s, static_cast<size_t>(n));
    return n;
  }

 private:
  absl::Mutex mu_;
  std::string text_ ABSL_GUARDED_BY(mu_);
};

class StatusCliTest : public ApiFixture {
 protected:
  // Runs `credledger <args> --server <address>`.
  CliRun Cli(std::vector<std::string> args) {
    args.push_back("--server");
    args.push_back(server_->address());
    std::ostringstream out, err;
    CliRun run;
    run.exit_code = service::CredledgerMain(args, out, err);
    run.out = out.str();
    run.err = err.str();
    return run;
  }

  // Registers the Targets and waits until the status projector has them.
  void RegisterFleet() {
    Register("demo", "edge-1", "req-1");
    Register("lab", "edge-2", "req-2");
    ASSERT_TRUE(server_->status_projector()->WaitForSeq(HeadSeq(), kWait));
  }
};

TEST_F(StatusCliTest, StatusShowsOneTargetOrATableOfAll) {
  RegisterFleet();
  CliRun one = Cli({"status", "demo/edge-1"});
  EXPECT_EQ(one.exit_code, 0) << one.err;
  EXPECT_THAT(one.out, StartsWith("demo/edge-1\n"));
  EXPECT_THAT(one.out, HasSubstr("Reporting:       Unknown NoReport: no report received yet"));
  EXPECT_THAT(one.out, HasSubstr("PreflightReady:  Unknown NoChecks"));
  EXPECT_THAT(one.out, HasSubstr("ReleasesReady:   Unknown NoReleases"));
  EXPECT_THAT(one.out, HasSubstr("last seen:       -"));
  EXPECT_THAT(one.out, HasSubstr("releases: none\n"));
  EXPECT_EQ(one.err, "");

  CliRun table = Cli({"status"});
  EXPECT_EQ(table.exit_code, 0) << table.err;
  EXPECT_THAT(table.out, StartsWith("TARGET"));
  EXPECT_THAT(table.out, HasSubstr("demo/edge-1"));
  EXPECT_THAT(table.out, HasSubstr("lab/edge-2"));
  EXPECT_THAT(table.out, HasSubstr("Unknown/NoReport"));

  CliRun json = Cli({"status", "demo/edge-1", "--output", "json"});
  EXPECT_EQ(json.exit_code, 0) << json.err;
  EXPECT_THAT(json.out, HasSubstr("\"type\":\"Reporting\""));
  EXPECT_THAT(json.out, HasSubstr("\"active\":true"));
}

TEST_F(StatusCliTest, FleetPrintsTheCountsOfTheSelectedTargets) {
  RegisterFleet();
  CliRun all = Cli({"fleet"});
  EXPECT_EQ(all.exit_code, 0) << all.err;
  EXPECT_THAT(all.out, StartsWith(absl::StrCat("targets: 2 (seq ", HeadSeq(), ")\n")));
  EXPECT_THAT(all.out, HasSubstr("  Reporting=Unknown        2\n"));
  EXPECT_THAT(all.out, HasSubstr("stale: none\n"));

  CliRun lab = Cli({"fleet", "--namespace", "lab"});
  EXPECT_EQ(lab.exit_code, 0) << lab.err;
  EXPECT_THAT(lab.out, StartsWith("targets: 1 "));

  CliRun reporting = Cli({"fleet", "--condition", "Reporting=True"});
  EXPECT_EQ(reporting.exit_code, 0) << reporting.err;
  EXPECT_THAT(reporting.out, StartsWith("targets: 0 "));
  EXPECT_THAT(reporting.out, Not(HasSubstr("TARGET")));

  // With a condition the matching Targets are listed below the counts.
  CliRun unknown = Cli({"fleet", "--condition", "Reporting=Unknown", "--namespace", "lab"});
  EXPECT_EQ(unknown.exit_code, 0) << unknown.err;
  EXPECT_THAT(unknown.out, StartsWith("targets: 1 "));
  EXPECT_THAT(unknown.out, HasSubstr("\nTARGET "));
  EXPECT_THAT(unknown.out, HasSubstr("\nlab/edge-2 "));
  EXPECT_THAT(unknown.out, Not(HasSubstr("demo/edge-1")));
}

TEST_F(StatusCliTest, BadInputExitsWithUsageOrTheServersCode) {
  CliRun not_a_target = Cli({"status", "edge-1"});
  EXPECT_EQ(not_a_target.exit_code, 2);
  EXPECT_THAT(not_a_target.err, HasSubstr("expected <namespace>/<name>, got \"edge-1\""));

  CliRun unknown = Cli({"status", "demo/ghost"});
  EXPECT_EQ(unknown.exit_code, 1);
  // The message, then the call's request id (docs/api.md, "Call request ids").
  EXPECT_THAT(unknown.err, MatchesRegex("error: NOT_FOUND: target \"demo/ghost\": not found "
                                        "\\(call request id [0-9a-f]{16}\\)\n"));

  CliRun two = Cli({"status", "demo/a", "demo/b"});
  EXPECT_EQ(two.exit_code, 2);
  EXPECT_THAT(two.err, HasSubstr("got 2 arguments"));

  CliRun malformed = Cli({"fleet", "--condition", "Reporting"});
  EXPECT_EQ(malformed.exit_code, 2);
  EXPECT_THAT(malformed.err, HasSubstr("--condition: expected <Type>=<Status>"));

  CliRun unknown_type = Cli({"fleet", "--condition", "Healthy=True"});
  EXPECT_EQ(unknown_type.exit_code, 1);
  EXPECT_THAT(unknown_type.err,
              HasSubstr("error: INVALID_ARGUMENT: condition_type: \"Healthy\" is not one of"));

  CliRun watch_filter = Cli({"fleet", "--watch", "--condition", "Reporting=True"});
  EXPECT_EQ(watch_filter.exit_code, 2);
  EXPECT_THAT(watch_filter.err, HasSubstr("--condition cannot be combined with --watch"));

  CliRun resume_without_watch = Cli({"fleet", "--after-seq", "3"});
  EXPECT_EQ(resume_without_watch.exit_code, 2);
  EXPECT_THAT(resume_without_watch.err, HasSubstr("--after-seq needs --watch"));
}

TEST_F(StatusCliTest, EverySubcommandHasHelpWithTheClientFlags) {
  for (const char* command : {"status", "fleet"}) {
    CliRun help = Cli({command, "--help"});
    EXPECT_EQ(help.exit_code, 0) << help.err;
    EXPECT_THAT(help.out, StartsWith(absl::StrCat("usage: credledger ", command, " [flags]")));
    EXPECT_THAT(help.out, HasSubstr("--server"));
    EXPECT_THAT(help.out, HasSubstr("--as"));
    EXPECT_THAT(help.out, HasSubstr("--output"));
  }
  CliRun fleet = Cli({"fleet", "--help"});
  EXPECT_THAT(fleet.out, HasSubstr("--condition"));
  EXPECT_THAT(fleet.out, HasSubstr("--watch"));
  EXPECT_THAT(Cli({"status", "--help"}).out, HasSubstr("[<namespace>/<name>]"));
}

TEST_F(StatusCliTest, FleetWatchPrintsTheSnapshotThenChangesUntilTheServerStops) {
  RegisterFleet();
  SharedOutput out;
  std::ostream out_stream(&out);
  std::ostringstream err;
  int exit_code = -1;
  std::thread watch([&] {
    exit_code = service::CredledgerMain(
        {"fleet", "--watch", "--namespace", "demo", "--server", server_->address()},
        out_stream, err);
  });
  ASSERT_TRUE(out.WaitFor("end-of-snapshot\n", kWait)) << out.text();
  Register("demo", "edge-3", "req-3");
  Register("lab", "edge-4", "req-4");
  Register("demo", "edge-5", "req-5");
  ASSERT_TRUE(out.WaitFor(" change demo/edge-5 ", kWait)) << out.text();
  server_->Shutdown();
  watch.join();

  const std::string text = out.text();
  EXPECT_THAT(text, HasSubstr(" snapshot demo/edge-1 Reporting=Unknown/NoReport"));
  EXPECT_THAT(text, HasSubstr("targets: 1 "));
  EXPECT_THAT(text, HasSubstr(" change demo/edge-3 "));
  EXPECT_THAT(text, Not(HasSubstr("lab/")));
  EXPECT_EQ(exit_code, 1);
  EXPECT_THAT(err.str(), HasSubstr("error: UNAVAILABLE: watch: the server is shutting down"));
}

TEST_F(StatusCliTest, FleetWatchResumingBeforeTheServerStartedIsResourceExhausted) {
  RegisterFleet();
  RestartServer();
  CliRun resumed = Cli({"fleet", "--watch", "--after-seq", "1"});
  EXPECT_EQ(resumed.exit_code, 1);
  EXPECT_THAT(resumed.err, HasSubstr("error: RESOURCE_EXHAUSTED: after_seq: "));
  EXPECT_THAT(resumed.err, HasSubstr("WatchFleet with after_seq 0 lists again"));
}

}  // namespace status_cli_test
}  // namespace credledger::testing
