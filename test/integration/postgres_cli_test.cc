// The `credledger` binary on a PostgreSQL log, as an operator runs it: `migrate --store`,
// `credledger serve --store` as a child process with client subcommands against it, a
// restart on the same log, the offline commands (`verify`, `timeline`) with --store, and
// moving a log between SQLite and PostgreSQL (`copy-log`, `backup --store`).
// The PostgreSQL server is a real one the test starts (test/support/postgres_server.h).
#include <signal.h>

#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "test/support/postgres_server.h"
#include "test/support/status_matchers.h"
#include "test/support/subprocess.h"
#include "test/support/temp_dir.h"

namespace credledger::testing {
namespace postgres_cli_test {

using ::testing::HasSubstr;
using ::testing::Not;
using ::testing::StartsWith;

constexpr char kBinary[] = CREDLEDGER_BINARY;
const std::vector<std::string> kCleanEnv = {"CREDLEDGER_SERVER", "KUBECONFIG", "PGPASSWORD"};

class PostgresCliTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_OK_AND_ASSIGN(PostgresServer * server, SharedPostgresServer());
    ASSERT_OK_AND_ASSIGN(const std::string database, server->CreateDatabase());
    conninfo_ = server->ConnectionString(database);
    std::ofstream(dir_.path() / "ca.pem") << "test-ca\n";
    const RunResult keygen =
        Run({"keygen", "--private-key", Path("signing.pem"), "--public-key", Path("signing.pub")});
    ASSERT_EQ(keygen.exit_code, 0) << keygen.err;
  }

  void TearDown() override { StopServe(); }

  std::string Path(const std::string& name) const { return (dir_.path() / name).string(); }

  // Starts `credledger serve <log_flag> <log>` (--store <conninfo_> or --db <file>) and waits
  // until it serves at address_.
  void StartServe(const std::string& log_flag, const std::string& log) {
    std::vector<std::string> argv = {kBinary,
                                     "serve",
                                     log_flag,
                                     log,
                                     "--fingerprint-key",
                                     Path("fingerprint-key"),
                                     "--signing-key",
                                     Path("signing.pem"),
                                     "--listen",
                                     "127.0.0.1:0",
                                     "--port-file",
                                     Path("port"),
                                     "--agent-apiserver-url",
                                     "https://agents.example:6443",
                                     "--agent-ca-file",
                                     Path("ca.pem"),
                                     "--insecure-allow-all"};
    auto server = Subprocess::Start(argv, kCleanEnv);
    ASSERT_OK(server);
    server_ = *std::move(server);
    ASSERT_OK(server_->WaitForLine("credledger serving on", absl::Now() + absl::Seconds(30)));
    std::ifstream port_file(dir_.path() / "port");
    std::string port;
    port_file >> port;
    ASSERT_FALSE(port.empty());
    address_ = absl::StrCat("127.0.0.1:", port);
  }

  // Stops serve (SIGTERM) and expects a clean exit.
  void StopServe() {
    if (server_ == nullptr) return;
    server_->Signal(SIGTERM);
    auto code = server_->Wait(absl::Now() + absl::Seconds(30));
    EXPECT_OK(code);
    EXPECT_EQ(code.value_or(-1), 0) << server_->err();
    server_.reset();
  }

  // Runs `credledger <args>`.
  static RunResult Run(std::vector<std::string> args) {
    args.insert(args.begin(), kBinary);
    auto result = testing::Run(args, absl::Seconds(60), kCleanEnv);
    EXPECT_OK(result);
    return result.ok() ? *result : RunResult{};
  }

  TempDir dir_;
  std::string conninfo_;
  std::unique_ptr<Subprocess> server_;
  std::string address_;
};

TEST_F(PostgresCliTest, MigrateCreatesTheSchemaAndNamesTheDatabaseWithoutSecrets) {
  const RunResult migrated = Run({"migrate", "--store", conninfo_});
  EXPECT_EQ(migrated.exit_code, 0) << migrated.err;
  EXPECT_THAT(migrated.out, StartsWith("schema version 3 (postgresql://postgres@"));
  // Run again: nothing left to do, the same answer.
  EXPECT_EQ(Run({"migrate", "--store", conninfo_}).out, migrated.out);
}

TEST_F(PostgresCliTest, ServeWritesThePostgresLogAndTheOfflineCommandsReadIt) {
  ASSERT_NO_FATAL_FAILURE(StartServe("--store", conninfo_));
  const RunResult registered =
      Run({"target", "register", "demo/edge-1", "--as", "alice", "--server", address_});
  EXPECT_EQ(registered.exit_code, 0) << registered.err;
  EXPECT_THAT(registered.out, StartsWith("registered demo/edge-1"));
  StopServe();

  // A restart finds the Target in the same log.
  ASSERT_NO_FATAL_FAILURE(StartServe("--store", conninfo_));
  const RunResult got = Run({"target", "get", "demo/edge-1", "--server", address_});
  EXPECT_EQ(got.exit_code, 0) << got.err;
  EXPECT_THAT(got.out, StartsWith("demo/edge-1\n"));
  StopServe();

  const RunResult verified =
      Run({"verify", "--store", conninfo_, "--public-key", Path("signing.pub")});
  EXPECT_EQ(verified.exit_code, 0) << verified.out << verified.err;
  const RunResult timeline = Run({"timeline", "demo/edge-1", "--store", conninfo_});
  EXPECT_EQ(timeline.exit_code, 0) << timeline.err;
  EXPECT_THAT(timeline.out, HasSubstr("TargetRegistered"));
}

TEST_F(PostgresCliTest, APasswordOnTheCommandLineIsRefusedAndNeverEchoed) {
  const RunResult refused =
      Run({"serve", "--store", "postgresql://svc:hunter2@127.0.0.1:1/log", "--fingerprint-key",
           Path("fingerprint-key"), "--insecure-allow-all"});
  EXPECT_EQ(refused.exit_code, 2);
  EXPECT_THAT(refused.err, HasSubstr("--store-password-file"));
  EXPECT_THAT(refused.err, Not(HasSubstr("hunter2")));
  const RunResult both = Run({"migrate", "--db", Path("log.db"), "--store", conninfo_});
  EXPECT_EQ(both.exit_code, 2);
  EXPECT_THAT(both.err, HasSubstr("--db and --store: give one"));
  const RunResult no_key = Run({"serve", "--store", conninfo_, "--insecure-allow-all"});
  EXPECT_EQ(no_key.exit_code, 2);
  EXPECT_THAT(no_key.err, HasSubstr("--fingerprint-key: required with --store"));
}

TEST_F(PostgresCliTest, CopyLogMovesASqliteLogOntoPostgresAndBackAndVerifyPassesBoth) {
  ASSERT_NO_FATAL_FAILURE(StartServe("--db", Path("credledger.db")));
  const RunResult registered =
      Run({"target", "register", "demo/edge-1", "--as", "alice", "--server", address_});
  EXPECT_EQ(registered.exit_code, 0) << registered.err;
  StopServe();

  const RunResult copied =
      Run({"copy-log", "--from-db", Path("credledger.db"), "--to-store", conninfo_});
  EXPECT_EQ(copied.exit_code, 0) << copied.err;
  EXPECT_THAT(copied.out, StartsWith("copied "));
  EXPECT_THAT(copied.out, HasSubstr(absl::StrCat(" from ", Path("credledger.db"),
                                                 " to postgresql://postgres@")));
  EXPECT_THAT(copied.out, HasSubstr("; the copy verifies\n"));
  const RunResult verified =
      Run({"verify", "--store", conninfo_, "--public-key", Path("signing.pub")});
  EXPECT_EQ(verified.exit_code, 0) << verified.out << verified.err;

  // The service moved: it starts on the copy and finds the Target there.
  ASSERT_NO_FATAL_FAILURE(StartServe("--store", conninfo_));
  const RunResult got = Run({"target", "get", "demo/edge-1", "--server", address_});
  EXPECT_EQ(got.exit_code, 0) << got.err;
  StopServe();

  const RunResult back = Run({"copy-log", "--from-store", conninfo_, "--to-db", Path("back.db")});
  EXPECT_EQ(back.exit_code, 0) << back.err;
  EXPECT_THAT(back.out, HasSubstr(absl::StrCat(" to ", Path("back.db"), "; the copy verifies")));
  const RunResult verified_back =
      Run({"verify", "--db", Path("back.db"), "--public-key", Path("signing.pub")});
  EXPECT_EQ(verified_back.exit_code, 0) << verified_back.out << verified_back.err;

  // The PostgreSQL log is no longer empty: a second copy into it is refused.
  const RunResult again =
      Run({"copy-log", "--from-db", Path("credledger.db"), "--to-store", conninfo_});
  EXPECT_EQ(again.exit_code, 1);
  EXPECT_THAT(again.err, HasSubstr("FAILED_PRECONDITION: target postgresql://postgres@"));
  EXPECT_THAT(again.err, HasSubstr("the log is not empty: it holds events up to seq "));
}

TEST_F(PostgresCliTest, CopyLogUsageErrorsNameTheFlagAndTheRule) {
  struct Case {
    std::vector<std::string> args;
    std::string error;
  };
  const std::vector<Case> cases = {
      {{"copy-log", "--to-db", Path("copy.db")},
       "--from-db: required (the event log's SQLite file), or --from-store for PostgreSQL"},
      {{"copy-log", "--from-db", Path("a.db"), "--from-store", conninfo_, "--to-db",
        Path("copy.db")},
       "--from-db and --from-store: give one"},
      {{"copy-log", "--from-db", Path("a.db")}, "--to-db: required"},
      {{"copy-log", "--from-db", Path("a.db"), "--to-db", Path("copy.db"),
        "--from-store-password-file", Path("pw")},
       "--from-store-password-file: only with --from-store"},
      {{"copy-log", "--from-db", Path("a.db"), "--to-db", dir_.path().string()},
       "--to-db: \"" + dir_.path().string() + "\" names a directory"},
      {{"copy-log", "--from-db", Path("a.db"), "--to-store",
        "postgresql://svc:hunter2@127.0.0.1:1/log"},
       "--to-store: carries a password"},
  };
  for (const Case& c : cases) {
    const RunResult run = Run(c.args);
    EXPECT_EQ(run.exit_code, 2) << run.err;
    EXPECT_THAT(run.err, HasSubstr(c.error));
    EXPECT_THAT(run.err, Not(HasSubstr("hunter2")));
  }
  const RunResult help = Run({"copy-log", "--help"});
  EXPECT_EQ(help.exit_code, 0);
  EXPECT_THAT(help.out, HasSubstr("--from-db /var/lib/credledger/credledger.db"));
  EXPECT_THAT(help.out, HasSubstr("--from-store postgresql://"));
}

TEST_F(PostgresCliTest, BackupOfAPostgresLogIsAVerifiedSqliteCopy) {
  ASSERT_NO_FATAL_FAILURE(StartServe("--store", conninfo_));
  const RunResult registered =
      Run({"target", "register", "demo/edge-1", "--as", "alice", "--server", address_});
  EXPECT_EQ(registered.exit_code, 0) << registered.err;
  StopServe();

  const RunResult backup = Run({"backup", "--store", conninfo_, "--to", Path("backup.db")});
  EXPECT_EQ(backup.exit_code, 0) << backup.err;
  EXPECT_THAT(backup.out,
              HasSubstr(absl::StrCat(" to ", Path("backup.db"), "; the copy verifies")));
  const RunResult verified =
      Run({"verify", "--db", Path("backup.db"), "--public-key", Path("signing.pub")});
  EXPECT_EQ(verified.exit_code, 0) << verified.out << verified.err;

  const RunResult again = Run({"backup", "--store", conninfo_, "--to", Path("backup.db")});
  EXPECT_EQ(again.exit_code, 1);
  EXPECT_THAT(again.err, HasSubstr("backup.db\" exists"));
  const RunResult both =
      Run({"backup", "--db", Path("log.db"), "--store", conninfo_, "--to", Path("b.db")});
  EXPECT_EQ(both.exit_code, 2);
  EXPECT_THAT(both.err, HasSubstr("--db and --store: give one"));
  const RunResult help = Run({"backup", "--help"});
  EXPECT_THAT(help.out, HasSubstr("pg_basebackup with WAL archiving"));
}

}  // namespace postgres_cli_test
}  // namespace credledger::testing
