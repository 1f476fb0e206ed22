// The bad-input suite of the `credledger` command line (docs/api.md, "Bad input"): every row of
// the table in bad_input_cli_rows.h runs in this process through service::CredledgerMain
// against a real Server (SQLite file, gRPC on 127.0.0.1 port 0). Each must exit with its code
// (2: usage error, nothing sent; 1: refused by the server or a file), say on stderr which
// flag, argument, field or file is wrong and why, in at most kMaxBadInputStderrBytes (no huge
// argument echoed), print nothing on stdout (`verify` prints its FAILED verdict there), append
// nothing to the log, and create or change no file in the inputs folder. A completeness test
// holds every subcommand of the dispatcher to at least one row.
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "absl/algorithm/container.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/str_split.h"
#include "absl/synchronization/notification.h"
#include "gmock/gmock.h"
#include "service/credledger_main.h"
#include "test/integration/api_fixture.h"
#include "test/integration/bad_input_cli_rows.h"

namespace credledger::testing {
namespace {

using ::testing::HasSubstr;

// Longest stderr a refusal may print: an error line, and for usage errors the subcommand's
// help (the longest, `serve --help`, has about 4 KiB).
constexpr size_t kMaxBadInputStderrBytes = 8192;
// How long one command line may run; only reached when a row was accepted by mistake and
// waits (a watch, say).
constexpr absl::Duration kBadInputCliDeadline = absl::Seconds(30);

// What one command line did.
struct BadInputCliRun {
  int exit_code = -1;
  std::string out;
  std::string err;
};

// Names and sizes of the entries below `folder`: what a row must leave as it was.
std::map<std::string, uintmax_t> BadInputFolderContents(const std::filesystem::path& folder) {
  std::map<std::string, uintmax_t> contents;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(folder)) {
    contents[entry.path().lexically_relative(folder).string()] =
        entry.is_regular_file() ? entry.file_size() : 0;
  }
  return contents;
}

// The subcommand a row runs: the longest subcommand path its leading arguments spell;
// empty when they spell none (dispatcher errors).
std::string BadInputSubcommandOf(const std::vector<std::string>& args,
                                 const std::vector<std::string>& paths) {
  std::string best;
  size_t best_words = 0;
  for (const std::string& path : paths) {
    const std::vector<std::string> words = absl::StrSplit(path, ' ');
    if (words.size() <= best_words || words.size() > args.size()) continue;
    if (std::equal(words.begin(), words.end(), args.begin())) {
      best = path;
      best_words = words.size();
    }
  }
  return best;
}

class BadInputCliTest : public ApiFixture {
 protected:
  void SetUp() override {
    ApiFixture::SetUp();
    Register("demo", "edge-1", "setup-target");
    inputs_ = dir_.path() / "inputs";
    WriteInputs();
    BadInputCliRun keygen = Run({"keygen", "--private-key", (inputs_ / "private-key.pem").string(),
                                 "--public-key", (inputs_ / "public-key.pem").string()});
    ASSERT_EQ(keygen.exit_code, 0) << keygen.err;
  }

  void Write(const std::string& name, const std::string& text) {
    std::ofstream(inputs_ / name, std::ios::binary) << text;
  }

  // The files BadInputCliRows() names (bad_input_cli_rows.h).
  void WriteInputs() {
    std::filesystem::create_directories(inputs_ / "a-folder");
    Write("not-a-folder", "a file\n");
    Write("invalid.yaml", "secretRef: [ops, aws\n");
    Write("two-docs.yaml",
          "secretRef: {namespace: ops, name: aws}\nallowedNamespaces: {list: [team-a]}\n---\n"
          "secretRef: {namespace: ops, name: gcp}\nallowedNamespaces: {list: [team-b]}\n");
    Write("unknown-key.yaml", "secretRef: {namespace: ops, name: aws}\nbogus: 1\n");
    Write("not-utf8.yaml", "\xff\xfe\xfd bad\n");
    Write("too-big.yaml", absl::StrCat("# ", std::string(1 << 20, 'x'), "\n"));
    std::string deep = "secretRef:\n";
    for (int i = 0; i < 600; ++i) absl::StrAppend(&deep, std::string(2 * i + 2, ' '), "a:\n");
    Write("deep.yaml", deep);
    Write("long-label.yaml", absl::StrCat("secretRef: {namespace: ops, name: aws}\n"
                                          "allowedNamespaces:\n  selector:\n    matchLabels:\n"
                                          "      tier: ",
                                          std::string(64, 'a'), "\n"));
    Write("cluster-bad-mode.yaml", "connectionMode: sideways\n");
    Write("cluster-unknown-key.yaml",
          "connectionMode: agentless\nnamespace: fleet\nagentless:\n"
          "  server: https://edge-1.example:6443\n"
          "  auth: {type: token, token: {secretRef: {name: edge-1-token}}}\n  extra: 1\n");
    Write("source-yes.yaml",
          "kind: git\nurl: https://git.example/r.git\nauth: {type: none}\n"
          "tls: {insecureSkipVerify: yes}\n");
    Write("kubeconfig-invalid.yaml", "apiVersion: v1\nclusters: [\n");
    Write("kubeconfig-valid.yaml",
          "apiVersion: v1\nkind: Config\ncurrent-context: c\n"
          "clusters: [{name: c, cluster: {server: \"https://127.0.0.1:1\"}}]\n"
          "users: [{name: u, user: {token: not-a-real-token}}]\n"
          "contexts: [{name: c, context: {cluster: c, user: u}}]\n");
    Write("policy-unknown-rpc.yaml",
          "identities:\n  - name: alice\n    rpcs: [\"TargetService/Bogus\"]\n");
    Write("not-a-key.pem", "not a key\n");
    Write("garbage.jsonl", "not json\n");
    Write("empty.jsonl", "");
  }

  // The arguments of `row` with its placeholders replaced; `serve` rows get --listen
  // 127.0.0.1:0 and a --db that cannot be created first, so that a row accepted by mistake
  // fails rather than serves (the row's own flags come later and win).
  std::vector<std::string> Resolve(const BadInputCliRow& row) const {
    std::vector<std::string> args;
    for (const std::string& arg : row.args) args.push_back(Substitute(arg));
    if (!args.empty() && args.front() == "serve") {
      // A row with --store names an unreachable PostgreSQL log instead of the --db.
      const bool store = absl::c_any_of(
          args, [](const std::string& arg) { return absl::StartsWith(arg, "--store"); });
      args.insert(args.begin() + 1, {"--listen", "127.0.0.1:0"});
      if (!store) {
        args.insert(args.begin() + 3,
                    {"--db", (inputs_ / "not-a-folder" / "credledger.db").string()});
      }
    }
    return args;
  }
  std::string Substitute(const std::string& text) const {
    return absl::StrReplaceAll(text,
                               {{kCliInputs, inputs_.string()},
                                {kCliServer, server_->address()},
                                {kCliServerDb, (dir_.path() / "var" / "credledger.db").string()}});
  }

  // Runs `credledger <args>` on a thread of its own; past kBadInputCliDeadline the server is
  // shut down (ending a watch the row opened by mistake) and the run counts as failed.
  BadInputCliRun Run(const std::vector<std::string>& args) {
    BadInputCliRun run;
    std::ostringstream out, err;
    absl::Notification done;
    std::thread thread([&] {
      run.exit_code = service::CredledgerMain(args, out, err);
      done.Notify();
    });
    if (!done.WaitForNotificationWithTimeout(kBadInputCliDeadline)) {
      ADD_FAILURE() << "the command did not end; shutting the server down";
      server_->Shutdown();
    }
    thread.join();
    run.out = out.str();
    run.err = err.str();
    return run;
  }

  std::filesystem::path inputs_;
};

TEST_F(BadInputCliTest, EveryRowIsRefusedNamingTheFlagAndChangesNothing) {
  const std::vector<BadInputCliRow> rows = BadInputCliRows();
  ASSERT_FALSE(rows.empty());
  const int64_t head = HeadSeq();
  ASSERT_GE(head, 2);
  const std::map<std::string, uintmax_t> inputs = BadInputFolderContents(inputs_);
  for (size_t i = 0; i < rows.size(); ++i) {
    const BadInputCliRow& row = rows[i];
    const std::vector<std::string> args = Resolve(row);
    std::string shown = absl::StrJoin(row.args, " ");
    if (shown.size() > 200) shown = absl::StrCat(shown.substr(0, 200), "...");
    SCOPED_TRACE(absl::StrCat("row ", i, ": credledger ", shown));
    const BadInputCliRun run = Run(args);
    EXPECT_EQ(run.exit_code, row.exit_code) << run.err.substr(0, 500);
    if (row.out.empty()) {
      EXPECT_EQ(run.out, "");
    } else {
      EXPECT_THAT(run.out, HasSubstr(Substitute(row.out)));
    }
    EXPECT_LE(run.err.size(), kMaxBadInputStderrBytes) << run.err.substr(0, 300);
    for (const std::string& text : row.err) {
      EXPECT_THAT(run.err, HasSubstr(Substitute(text)));
    }
    EXPECT_EQ(HeadSeq(), head) << "the refused command appended events";
    EXPECT_EQ(BadInputFolderContents(inputs_), inputs) << "the refused command changed the inputs";
  }
}

// The completeness check: a subcommand added to the dispatcher without rows fails here,
// naming it.
TEST(BadInputCliTableTest, EverySubcommandHasARow) {
  const std::vector<std::string> paths = service::CredledgerDispatcher().Paths();
  ASSERT_GE(paths.size(), 38u);  // the subcommands when this was written
  std::set<std::string> covered;
  for (const BadInputCliRow& row : BadInputCliRows())
    covered.insert(BadInputSubcommandOf(row.args, paths));
  std::vector<std::string> missing;
  for (const std::string& path : paths) {
    if (covered.count(path) == 0) missing.push_back(path);
  }
  EXPECT_TRUE(missing.empty()) << "subcommands without bad-input rows: "
                               << absl::StrJoin(missing, ", ");
}

}  // namespace
}  // namespace credledger::testing
