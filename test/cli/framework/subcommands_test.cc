// The subcommand dispatch layer: per-subcommand flag sets, --help, and usage errors.
#include "cli/framework/subcommands.h"

#include <sstream>

#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "service/credledger_main.h"
#include "test/support/status_matchers.h"

namespace credledger::cli {
namespace subcommands_test {

using ::testing::AllOf;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Not;
using ::testing::StartsWith;
using testing::StatusIs;

// Records what it was run with.
struct Seen {
  std::string name;
  int64_t count = 0;
  bool verbose = false;
  absl::Duration wait = absl::Seconds(1);
  std::string mode = "fast";
  std::vector<std::string> args;
  bool ran = false;
};

class RecordingCommand final : public Subcommand {
 public:
  explicit RecordingCommand(Seen* seen) : seen_(seen) {}
  void DefineFlags(FlagSet& flags) override {
    flags.Add("name", &seen_->name, "a name");
    flags.Add("count", &seen_->count, "how many");
    flags.Add("verbose", &seen_->verbose, "say more");
    flags.Add("wait", &seen_->wait, "how long");
    flags.AddChoice("mode", &seen_->mode, {"fast", "slow"}, "speed");
  }
  int Run(const std::vector<std::string>& args, std::ostream& out, std::ostream&) override {
    seen_->args = args;
    seen_->ran = true;
    out << "ran\n";
    return 7;
  }

 private:
  Seen* seen_;
};

class OtherCommand final : public Subcommand {
 public:
  void DefineFlags(FlagSet& flags) override { flags.Add("db", &db_, "database file"); }
  int Run(const std::vector<std::string>&, std::ostream&, std::ostream&) override { return 0; }

 private:
  std::string db_ = "x.db";
};

class DispatcherTest : public ::testing::Test {
 protected:
  DispatcherTest() : dispatcher_("tool") {
    dispatcher_.Add({"group run", "<thing>", "run a thing", 1, 2,
                     [this] { return std::make_unique<RecordingCommand>(&seen_); }});
    dispatcher_.Add({"other", "", "another command", 0, 0,
                     [] { return std::make_unique<OtherCommand>(); }});
  }
  int Run(std::vector<std::string> args) {
    out_.str("");
    err_.str("");
    return dispatcher_.Run(args, out_, err_);
  }

  Seen seen_;
  Dispatcher dispatcher_;
  std::ostringstream out_;
  std::ostringstream err_;
};

TEST_F(DispatcherTest, FlagsOfEveryFormAndTypeReachTheSubcommand) {
  EXPECT_EQ(Run({"group", "run", "a", "--name=x", "--count", "42", "--verbose", "--wait=90s",
                 "--mode", "slow", "b"}),
            7);
  EXPECT_TRUE(seen_.ran);
  EXPECT_EQ(seen_.name, "x");
  EXPECT_EQ(seen_.count, 42);
  EXPECT_TRUE(seen_.verbose);
  EXPECT_EQ(seen_.wait, absl::Seconds(90));
  EXPECT_EQ(seen_.mode, "slow");
  EXPECT_THAT(seen_.args, ElementsAre("a", "b"));
  EXPECT_EQ(out_.str(), "ran\n");
}

TEST_F(DispatcherTest, NegatedBoolAndDoubleDashEndingFlags) {
  EXPECT_EQ(Run({"group", "run", "--verbose", "--noverbose", "--", "--name"}), 7);
  EXPECT_FALSE(seen_.verbose);
  EXPECT_THAT(seen_.args, ElementsAre("--name"));
}

TEST_F(DispatcherTest, HelpListsOnlyTheSubcommandsOwnFlags) {
  EXPECT_EQ(Run({"group", "run", "--help"}), 0);
  EXPECT_FALSE(seen_.ran);
  const std::string help = out_.str();
  EXPECT_THAT(help, StartsWith("usage: tool group run [flags] <thing>\n"));
  EXPECT_THAT(help, HasSubstr("--count=<value>"));
  EXPECT_THAT(help, HasSubstr("how long (default: 1s)"));
  EXPECT_THAT(help, HasSubstr("speed (fast|slow) (default: fast)"));
  EXPECT_THAT(help, Not(HasSubstr("--db")));

  EXPECT_EQ(Run({"other", "-h"}), 0);
  EXPECT_THAT(out_.str(), HasSubstr("--db=<value>"));
  EXPECT_THAT(out_.str(), Not(HasSubstr("--count")));
}

TEST_F(DispatcherTest, UnknownFlagIsAUsageErrorWithTheSubcommandsHelp) {
  EXPECT_EQ(Run({"other", "--count=3"}), 2);
  EXPECT_THAT(err_.str(), StartsWith("error: tool other: unknown flag --count\n"));
  EXPECT_THAT(err_.str(), HasSubstr("usage: tool other"));
  EXPECT_EQ(Run({"other", "-x"}), 2);
  EXPECT_THAT(err_.str(), HasSubstr("unknown flag -x"));
}

TEST_F(DispatcherTest, BadValuesAreUsageErrorsNamingTheFlag) {
  EXPECT_EQ(Run({"group", "run", "a", "--count=many"}), 2);
  EXPECT_THAT(err_.str(), HasSubstr("flag --count: bad value \"many\""));
  EXPECT_EQ(Run({"group", "run", "a", "--wait=soon"}), 2);
  EXPECT_THAT(err_.str(), HasSubstr("flag --wait: bad value \"soon\""));
  EXPECT_EQ(Run({"group", "run", "a", "--mode=medium"}), 2);
  EXPECT_THAT(err_.str(), HasSubstr("must be one of fast, slow"));
  EXPECT_EQ(Run({"group", "run", "a", "--name"}), 2);
  EXPECT_THAT(err_.str(), HasSubstr("flag --name needs a value"));
  EXPECT_FALSE(seen_.ran);
}

TEST_F(DispatcherTest, WrongArgumentCountIsAUsageError) {
  EXPECT_EQ(Run({"group", "run"}), 2);
  EXPECT_THAT(err_.str(), HasSubstr("expected <thing>, got 0 arguments"));
  EXPECT_EQ(Run({"group", "run", "a", "b", "c"}), 2);
  EXPECT_EQ(Run({"other", "extra"}), 2);
  EXPECT_THAT(err_.str(), HasSubstr("expected no arguments, got 1 argument"));
  EXPECT_FALSE(seen_.ran);
}

TEST_F(DispatcherTest, UnknownOrIncompleteCommandsPrintUsage) {
  EXPECT_EQ(Run({}), 2);
  EXPECT_THAT(err_.str(), HasSubstr("error: no command given"));
  EXPECT_EQ(Run({"bogus"}), 2);
  EXPECT_THAT(err_.str(), StartsWith("error: unknown command \"bogus\"\n"));
  EXPECT_THAT(err_.str(), HasSubstr("group run"));
  EXPECT_EQ(Run({"group", "walk"}), 2);
  EXPECT_THAT(err_.str(), StartsWith("error: unknown command \"group walk\"\n"));
  EXPECT_EQ(Run({"group"}), 2);
  EXPECT_THAT(err_.str(), HasSubstr("'group' needs a command"));
  // A flag first, then no known command.
  EXPECT_EQ(Run({"--server", "x", "bogus"}), 2);
  EXPECT_THAT(err_.str(), StartsWith("error: the command comes first, then its flags"));
  EXPECT_EQ(Run({"group", "--help"}), 0);
  EXPECT_THAT(out_.str(), HasSubstr("group run"));
  EXPECT_THAT(out_.str(), Not(HasSubstr("other")));
  EXPECT_EQ(Run({"--help"}), 0);
  EXPECT_THAT(out_.str(), HasSubstr("another command"));
}

// Regression: `credledger cluster --server X list` said "unknown command \"cluster\"".
TEST_F(DispatcherTest, FlagsBeforeTheSubcommandGetTheCommandAsItShouldBeWritten) {
  EXPECT_EQ(Run({"group", "--name", "x", "run", "a"}), 2);
  EXPECT_EQ(err_.str(), "error: flags go after the subcommand: tool group run --name x a\n");
  EXPECT_EQ(Run({"group", "--verbose", "run"}), 2);
  EXPECT_EQ(err_.str(), "error: flags go after the subcommand: tool group run --verbose\n");
  EXPECT_EQ(Run({"--name=x", "group", "run", "a"}), 2);
  EXPECT_EQ(err_.str(), "error: flags go after the subcommand: tool group run --name=x a\n");
  EXPECT_EQ(Run({"--db", "y.db", "other"}), 2);
  EXPECT_EQ(err_.str(), "error: flags go after the subcommand: tool other --db y.db\n");
  EXPECT_FALSE(seen_.ran);
  // A word that is no flag's value keeps the unknown-command answer.
  EXPECT_EQ(Run({"group", "walk", "--name", "x", "run"}), 2);
  EXPECT_THAT(err_.str(), StartsWith("error: unknown command \"group walk\"\n"));
}

// The real command line: every command group gets the hint.
TEST(CredledgerCommandsTest, AFlagBeforeTheSubcommandIsShownAfterIt) {
  Dispatcher dispatcher = service::CredledgerDispatcher();
  for (const auto& [args, hint] : std::vector<std::pair<std::vector<std::string>, std::string>>{
           {{"cluster", "--server", "127.0.0.1:1", "list"},
            "credledger cluster list --server 127.0.0.1:1"},
           {{"identity", "--as", "alice", "get", "aws"}, "credledger identity get --as alice aws"},
           {{"source", "--server=127.0.0.1:1", "verify", "--name", "n"},
            "credledger source verify --server=127.0.0.1:1 --name n"},
           {{"target", "--output", "json", "list"}, "credledger target list --output json"}}) {
    std::ostringstream out, err;
    EXPECT_EQ(dispatcher.Run(args, out, err), 2);
    EXPECT_EQ(err.str(), absl::StrCat("error: flags go after the subcommand: ", hint, "\n"));
    EXPECT_EQ(out.str(), "");
  }
}

TEST(FlagSetTest, ParseReportsUnknownFlagsAsInvalidArgument) {
  FlagSet flags;
  std::string value;
  flags.Add("value", &value, "v");
  bool help = false;
  EXPECT_THAT(flags.Parse({"--other=1"}, &help),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("unknown flag --other")));
  ASSERT_OK_AND_ASSIGN(auto args, flags.Parse({"x", "--value", "-", "y"}, &help));
  EXPECT_EQ(value, "-");
  EXPECT_THAT(args, ElementsAre("x", "y"));
}

TEST(FlagSetTest, ARepeatedFlagCollectsEveryOccurrenceVerbatim) {
  FlagSet flags;
  std::vector<std::string> labels;
  std::string single;
  flags.AddRepeated("label", &labels, "a label");
  flags.Add("single", &single, "one value");
  bool help = false;
  ASSERT_OK(flags.Parse({"--label", "a=1,b=2", "--single=x", "--label=c=3", "--single=y"},
                        &help));
  EXPECT_THAT(labels, ElementsAre("a=1,b=2", "c=3"));
  EXPECT_EQ(single, "y");
  EXPECT_THAT(flags.Help(), HasSubstr("a label (repeatable)"));
}

TEST(FlagSetTest, AOneLetterAliasStandsForItsFlag) {
  FlagSet flags;
  std::string file;
  flags.Add("file", &file, "a file");
  flags.AddAlias('f', "file");
  bool help = false;
  ASSERT_OK(flags.Parse({"-f", "spec.yaml"}, &help));
  EXPECT_EQ(file, "spec.yaml");
  EXPECT_TRUE(flags.Given("file"));
  ASSERT_OK(flags.Parse({"-f=other.yaml"}, &help));
  EXPECT_EQ(file, "other.yaml");
  EXPECT_THAT(flags.Parse({"-g", "x"}, &help),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("unknown flag -g")));
  EXPECT_THAT(flags.Parse({"-fx"}, &help),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("unknown flag -fx")));
  EXPECT_THAT(flags.Parse({"-f"}, &help),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("--file needs a value")));
  EXPECT_THAT(flags.Help(), HasSubstr("-f, --file=<value>"));
}

TEST(FlagSetTest, TellsHowManyPositionalArgumentsCameBeforeTheTerminator) {
  FlagSet flags;
  bool verbose = false;
  flags.Add("verbose", &verbose, "say more");
  bool help = false;
  ASSERT_OK_AND_ASSIGN(auto args,
                       flags.Parse({"a", "--verbose", "--", "cmd", "--help", "-x"}, &help));
  EXPECT_THAT(args, ElementsAre("a", "cmd", "--help", "-x"));
  EXPECT_FALSE(help);
  EXPECT_EQ(flags.positional_before_terminator(), 1u);
  ASSERT_OK_AND_ASSIGN(args, flags.Parse({"--", "cmd"}, &help));
  EXPECT_EQ(flags.positional_before_terminator(), 0u);
  ASSERT_OK_AND_ASSIGN(args, flags.Parse({"a", "b"}, &help));
  EXPECT_EQ(flags.positional_before_terminator(), 2u);
}

// The real command line: every subcommand answers --help with only its own flags.
TEST(CredledgerCommandsTest, EverySubcommandHasHelpWithItsOwnFlags) {
  Dispatcher dispatcher = service::CredledgerDispatcher();
  auto help = [&](std::vector<std::string> args) {
    args.push_back("--help");
    std::ostringstream out, err;
    EXPECT_EQ(dispatcher.Run(args, out, err), 0) << err.str();
    return out.str();
  };
  const std::string serve = help({"serve"});
  for (const char* flag : {"--db", "--listen", "--port-file", "--agent-apiserver-url",
                           "--agent-ca-file", "--agent-token-ttl", "--kubeconfig",
                           "--synchronous", "--snapshot-every", "--http-listen",
                           "--http-port-file"}) {
    EXPECT_THAT(serve, HasSubstr(flag));
  }
  EXPECT_THAT(serve, Not(HasSubstr("--server")));
  EXPECT_THAT(help({"migrate"}), HasSubstr("--db"));

  const std::string reg = help({"target", "register"});
  for (const char* flag : {"--server", "--as", "--output", "--request-id", "--uid"}) {
    EXPECT_THAT(reg, HasSubstr(flag));
  }
  EXPECT_THAT(reg, Not(HasSubstr("--db")));
  EXPECT_THAT(help({"target", "rotate"}), HasSubstr("--value"));
  EXPECT_THAT(help({"target", "revoke"}), HasSubstr("--reason"));
  EXPECT_THAT(help({"target", "confirm"}), HasSubstr("--revision"));
  EXPECT_THAT(help({"target", "delete"}), Not(HasSubstr("--uid")));
  EXPECT_THAT(help({"target", "lift"}), HasSubstr("--request-id"));
  const std::string get = help({"target", "get"});
  EXPECT_THAT(get, Not(HasSubstr("--request-id")));
  EXPECT_THAT(get, HasSubstr("(text|json)"));
  EXPECT_THAT(help({"target", "list"}), HasSubstr("--namespace"));
  const std::string watch = help({"target", "watch"});
  EXPECT_THAT(watch, HasSubstr("--after-seq"));
  EXPECT_THAT(watch, HasSubstr("--namespace"));

  const std::string create = help({"identity", "create"});
  for (const char* flag : {"--secret", "--allow-namespace", "--allow-all-namespaces",
                           "--match-label", "-f, --file", "--request-id", "--server"}) {
    EXPECT_THAT(create, HasSubstr(flag));
  }
  // The flag that makes "no namespace" an explicit choice, and what it does on update.
  EXPECT_THAT(help({"identity", "update"}),
              AllOf(HasSubstr("--allow-no-namespaces"),
                    HasSubstr("revokes every namespace and so deletes every mirror")));
  EXPECT_THAT(help({"identity", "bind"}), HasSubstr("<apiVersion>/<kind>/<name>"));
  EXPECT_THAT(help({"identity", "pod-spec"}), Not(HasSubstr("--server")));
  EXPECT_THAT(help({"exec"}), HasSubstr("--credentials-dir"));
}

}  // namespace subcommands_test
}  // namespace credledger::cli
