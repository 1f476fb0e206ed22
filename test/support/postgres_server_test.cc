// PostgresServer against the real PostgreSQL 15 server it starts: databases, restarts, the
// settings, the errors and the clean-up (docs/testing.md, "PostgreSQL in tests").
#include "test/support/postgres_server.h"

#include <pwd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/time/clock.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "test/support/file_text.h"
#include "test/support/status_matchers.h"
#include "test/support/subprocess.h"
#include "test/support/temp_dir.h"

namespace credledger::testing {
namespace postgres_server_test {

using ::testing::AllOf;
using ::testing::HasSubstr;

// psql's exit code and output for `sql` sent over `connection` (a libpq connection string).
RunResult Psql(const std::string& connection, const std::string& sql) {
  absl::StatusOr<RunResult> run = Run(
      {absl::StrCat(kPostgresBinDir, "/psql"), "-X", "-q", "-A", "-t", "-d", connection, "-c", sql},
      absl::Seconds(60));
  return run.ok() ? *run : RunResult{-1, "", std::string(run.status().message())};
}

class PostgresServerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    absl::StatusOr<std::unique_ptr<PostgresServer>> started = PostgresServer::Start();
    ASSERT_OK(started);
    server_ = *std::move(started);
  }

  std::unique_ptr<PostgresServer> server_;
};

TEST_F(PostgresServerTest, DatabasesAreSeparate) {
  ASSERT_OK_AND_ASSIGN(const std::string first, server_->CreateDatabase());
  ASSERT_OK_AND_ASSIGN(const std::string second, server_->CreateDatabase());
  EXPECT_NE(first, second);
  EXPECT_THAT(first, HasSubstr(absl::StrCat("_", getpid(), "_")));

  ASSERT_OK(server_->Sql(first, "CREATE TABLE items (name text); INSERT INTO items VALUES ('a');"));
  ASSERT_OK_AND_ASSIGN(const std::string rows, server_->Sql(first, "SELECT name FROM items"));
  EXPECT_EQ(rows, "a\n");
  EXPECT_THAT(
      server_->Sql(second, "SELECT name FROM items"),
      StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("relation \"items\" does not exist")));
}

TEST_F(PostgresServerTest, CommittedRowSurvivesImmediateRestart) {
  ASSERT_OK_AND_ASSIGN(const std::string db, server_->CreateDatabase());
  ASSERT_OK(server_->Sql(db, "CREATE TABLE items (n int); INSERT INTO items VALUES (7);"));

  ASSERT_OK(server_->RestartImmediate());

  ASSERT_OK_AND_ASSIGN(const std::string rows, server_->Sql(db, "SELECT n FROM items"));
  EXPECT_EQ(rows, "7\n");
  // Killed without a shutdown checkpoint, the server recovered from its WAL on start.
  EXPECT_THAT(ReadText(server_->dir() / "log"), HasSubstr("automatic recovery in progress"));
}

TEST_F(PostgresServerTest, StopThenStartAgainKeepsDataAndPort) {
  ASSERT_OK_AND_ASSIGN(const std::string db, server_->CreateDatabase());
  ASSERT_OK(server_->Sql(db, "CREATE TABLE items (n int); INSERT INTO items VALUES (1);"));
  const int port = server_->port();

  ASSERT_OK(server_->Stop());
  EXPECT_THAT(server_->Sql(db, "SELECT 1"), StatusIs(absl::StatusCode::kUnavailable));
  EXPECT_NE(Psql(server_->TcpConnectionString(db), "SELECT 1").exit_code, 0);

  ASSERT_OK(server_->StartAgain());
  EXPECT_EQ(server_->port(), port);
  ASSERT_OK_AND_ASSIGN(const std::string rows, server_->Sql(db, "SELECT n FROM items"));
  EXPECT_EQ(rows, "1\n");
}

TEST_F(PostgresServerTest, DestructorStopsTheServerAndRemovesTheFolder) {
  const std::filesystem::path dir = server_->dir();
  const std::string tcp = server_->TcpConnectionString("postgres");
  ASSERT_TRUE(std::filesystem::exists(dir / "data" / "PG_VERSION"));
  ASSERT_EQ(Psql(tcp, "SELECT 1").exit_code, 0);

  server_.reset();

  EXPECT_FALSE(std::filesystem::exists(dir));
  EXPECT_EQ(Psql(tcp, "SELECT 1").exit_code, 2);  // psql: the connection failed
}

TEST_F(PostgresServerTest, UnixSocketPathFitsTheSocketAddress) {
  const std::filesystem::path socket = server_->dir() / absl::StrCat(".s.PGSQL.", server_->port());
  EXPECT_LT(socket.string().size(), sizeof(sockaddr_un{}.sun_path));
  EXPECT_TRUE(std::filesystem::is_socket(socket)) << socket;
}

TEST_F(PostgresServerTest, ListensOnLoopbackTcpAtItsPort) {
  const RunResult run = Psql(server_->TcpConnectionString("postgres"),
                             "SELECT inet_server_addr(), current_setting('port')");
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_EQ(run.out, absl::StrCat("127.0.0.1|", server_->port(), "\n"));
  EXPECT_EQ(server_->TcpConnectionString("db1"),
            absl::StrCat("host=127.0.0.1 port=", server_->port(), " user=postgres dbname=db1"));
  EXPECT_EQ(server_->ConnectionString("db1"),
            absl::StrCat("host=", server_->dir().string(), " port=", server_->port(),
                         " user=postgres dbname=db1"));
}

TEST_F(PostgresServerTest, ClusterBelongsToPostgresAsRootAndElseToTheTestUser) {
  struct stat data {};
  ASSERT_EQ(stat(server_->data_dir().c_str(), &data), 0);
  uid_t expected = geteuid();
  if (expected == 0) {
    const passwd* postgres = getpwnam("postgres");
    ASSERT_NE(postgres, nullptr);
    expected = postgres->pw_uid;
  }
  EXPECT_EQ(data.st_uid, expected);
}

TEST_F(PostgresServerTest, FsyncIsOffByDefault) {
  ASSERT_OK_AND_ASSIGN(const std::string fsync, server_->Sql("postgres", "SHOW fsync"));
  EXPECT_EQ(fsync, "off\n");
}

TEST_F(PostgresServerTest, StatementsOfAScriptCommitOneByOne) {
  ASSERT_OK_AND_ASSIGN(const std::string db, server_->CreateDatabase());
  EXPECT_THAT(server_->Sql(db,
                           "CREATE TABLE items (n int);\nINSERT INTO items VALUES (1);\n"
                           "INSERT INTO missing VALUES (2);\nINSERT INTO items VALUES (3);\n"),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("missing")));
  ASSERT_OK_AND_ASSIGN(const std::string rows, server_->Sql(db, "SELECT n FROM items"));
  EXPECT_EQ(rows, "1\n");
  // Statements that refuse a transaction block run too.
  ASSERT_OK(server_->Sql("postgres", "CREATE DATABASE other_a; CREATE DATABASE other_b;"));
}

TEST_F(PostgresServerTest, MissingDatabaseIsUnavailable) {
  EXPECT_THAT(server_->Sql("no_such_db", "SELECT 1"),
              StatusIs(absl::StatusCode::kUnavailable, HasSubstr("\"no_such_db\"")));
}

TEST_F(PostgresServerTest, DatabaseNameWithSpaceAndQuoteIsQuotedInTheConnectionString) {
  ASSERT_OK(server_->Sql("postgres", "CREATE DATABASE \"it's my db\""));
  ASSERT_OK_AND_ASSIGN(const std::string name,
                       server_->Sql("it's my db", "SELECT current_database()"));
  EXPECT_EQ(name, "it's my db\n");
}

TEST(PostgresServerOptionsTest, SettingsApplyAfterFsync) {
  PostgresServerOptions options;
  options.fsync = true;
  options.settings = {"idle_in_transaction_session_timeout=1s", R"(cluster_name=it's a \path)"};
  absl::StatusOr<std::unique_ptr<PostgresServer>> server = PostgresServer::Start(options);
  ASSERT_OK(server);
  ASSERT_OK_AND_ASSIGN(const std::string shown,
                       (*server)->Sql("postgres",
                                      "SHOW fsync; SHOW idle_in_transaction_session_timeout; "
                                      "SHOW cluster_name;"));
  EXPECT_EQ(shown, "on\n1s\nit's a \\path\n");
}

TEST(PostgresServerOptionsTest, ExplicitSettingWinsOverFsyncOption) {
  PostgresServerOptions options;
  options.settings = {"fsync=on"};
  absl::StatusOr<std::unique_ptr<PostgresServer>> server = PostgresServer::Start(options);
  ASSERT_OK(server);
  ASSERT_OK_AND_ASSIGN(const std::string fsync, (*server)->Sql("postgres", "SHOW fsync"));
  EXPECT_EQ(fsync, "on\n");
}

TEST(PostgresServerOptionsTest, SettingThatIsNotNameValueIsRefused) {
  for (const std::string setting : {"fsync", "=on", "bad name=1", "fsync;x=on"}) {
    PostgresServerOptions options;
    options.settings = {setting};
    EXPECT_THAT(PostgresServer::Start(options),
                StatusIs(absl::StatusCode::kInvalidArgument,
                         AllOf(HasSubstr(absl::StrCat("\"", setting, "\"")),
                               HasSubstr("must be name=value"))))
        << setting;
  }
  PostgresServerOptions options;
  options.settings = {"work_mem=1MB\nfsync=on"};
  EXPECT_THAT(PostgresServer::Start(options),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       AllOf(HasSubstr("\"work_mem\""), HasSubstr("no line break"))));
}

TEST(PostgresServerOptionsTest, MissingProgramsNameTheFolderAndTheInstallScript) {
  TempDir empty;
  PostgresServerOptions options;
  options.bin_dir = empty.path();
  EXPECT_THAT(PostgresServer::Start(options),
              StatusIs(absl::StatusCode::kFailedPrecondition,
                       AllOf(HasSubstr(empty.path().string()), HasSubstr("initdb"),
                             HasSubstr("scripts/install-deps.sh"))));
}

TEST_F(PostgresServerTest, AwaitSqlWaitsForTheOutputWithinItsTimeout) {
  ASSERT_OK(server_->AwaitSql("postgres", "SELECT 1", "1\n", absl::Seconds(60)));
  EXPECT_THAT(server_->AwaitSql("postgres", "SELECT 1", "2\n", absl::Seconds(1)),
              StatusIs(absl::StatusCode::kDeadlineExceeded,
                       AllOf(HasSubstr("\"SELECT 1\" in database \"postgres\" did not print "
                                       "\"2\n\" within 1s"),
                             HasSubstr("it printed \"1\n\""))));
  // A statement that fails ends the wait at once.
  EXPECT_THAT(server_->AwaitSql("postgres", "SELECT * FROM missing", "1\n", absl::Seconds(60)),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("missing")));
}

TEST_F(PostgresServerTest, StandbyApplicationNameMustBeAPlainWord) {
  for (const std::string name : {"", "my standby", "it's", "a,b"}) {
    EXPECT_THAT(PostgresServer::StartStandby(*server_, name),
                StatusIs(absl::StatusCode::kInvalidArgument,
                         HasSubstr(absl::StrCat("standby application name \"", name, "\""))));
    EXPECT_THAT(
        server_->AwaitStandby(name, "sync", absl::Seconds(1)),
        StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("must be letters, digits and '_'")));
  }
}

TEST(PostgresStandbyTest, ASynchronousStandbyHasEveryCommitAndTakesOverWhenPromoted) {
  PostgresServerOptions primary_options;
  // remote_apply: a commit returns once the standby has applied it, so the standby's reads
  // below see it without waiting.
  primary_options.settings = {"synchronous_standby_names=credledger_standby",
                              "synchronous_commit=remote_apply"};
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<PostgresServer> primary,
                       PostgresServer::Start(primary_options));
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<PostgresServer> standby,
                       PostgresServer::StartStandby(*primary, "credledger_standby"));
  EXPECT_NE(standby->dir(), primary->dir());
  EXPECT_NE(standby->port(), primary->port());
  ASSERT_OK(primary->AwaitStandby("credledger_standby", "sync", absl::Seconds(60)));

  ASSERT_OK_AND_ASSIGN(const std::string db, primary->CreateDatabase());
  ASSERT_OK(primary->Sql(db, "CREATE TABLE items (n int); INSERT INTO items VALUES (1);"));
  ASSERT_OK_AND_ASSIGN(std::string rows, standby->Sql(db, "SELECT n FROM items"));
  EXPECT_EQ(rows, "1\n");
  EXPECT_THAT(standby->Sql(db, "INSERT INTO items VALUES (2)"),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("read-only transaction")));
  EXPECT_EQ(standby->Sql("postgres", "SELECT pg_is_in_recovery()").value_or(""), "t\n");

  // The string that names both servers reaches the one that accepts writes.
  const std::string both = ReadWriteConnectionString({primary.get(), standby.get()}, db);
  EXPECT_EQ(both, absl::StrCat("host=", primary->dir().string(), ",", standby->dir().string(),
                               " port=", primary->port(), ",", standby->port(),
                               " user=postgres dbname=", db, " target_session_attrs=read-write"));
  RunResult run = Psql(both, "SELECT current_setting('port')");
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_EQ(run.out, absl::StrCat(primary->port(), "\n"));

  ASSERT_OK(primary->StopImmediate());
  // Neither server takes writes now: the primary is gone, the standby is read-only.
  run = Psql(both, "SELECT 1");
  EXPECT_EQ(run.exit_code, 2) << run.out;
  EXPECT_THAT(run.err, HasSubstr("session is read-only"));

  ASSERT_OK(standby->Promote());
  EXPECT_EQ(standby->Sql("postgres", "SELECT pg_is_in_recovery()").value_or(""), "f\n");
  run = Psql(both, "INSERT INTO items VALUES (2); SELECT current_setting('port')");
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_EQ(run.out, absl::StrCat(standby->port(), "\n"));
  ASSERT_OK_AND_ASSIGN(rows, standby->Sql(db, "SELECT n FROM items ORDER BY n"));
  EXPECT_EQ(rows, "1\n2\n");
}

constexpr char kSharedFolderLine[] = "shared server folder: ";

TEST(SharedPostgresServerTest, OneServerPerProcess) {
  ASSERT_OK_AND_ASSIGN(PostgresServer* const first, SharedPostgresServer());
  ASSERT_OK_AND_ASSIGN(PostgresServer* const second, SharedPostgresServer());
  EXPECT_EQ(first, second);
  ASSERT_OK_AND_ASSIGN(const std::string db, first->CreateDatabase());
  ASSERT_OK_AND_ASSIGN(const std::string name, first->Sql(db, "SELECT current_database()"));
  EXPECT_EQ(name, db + "\n");
  // For ExitStopsTheSharedServer, which runs this test in a process of its own.
  std::cout << kSharedFolderLine << first->dir().string() << " " << first->TcpConnectionString(db)
            << std::endl;
}

TEST(SharedPostgresServerTest, ExitStopsTheSharedServer) {
  const absl::Time deadline = absl::Now() + absl::Seconds(100);
  absl::StatusOr<std::unique_ptr<Subprocess>> child =
      Subprocess::Start({std::filesystem::read_symlink("/proc/self/exe").string(),
                         "--gtest_filter=SharedPostgresServerTest.OneServerPerProcess"});
  ASSERT_OK(child);
  ASSERT_OK_AND_ASSIGN(const std::string line, (*child)->WaitForLine(kSharedFolderLine, deadline));
  ASSERT_OK_AND_ASSIGN(const int exit_code, (*child)->Wait(deadline));
  ASSERT_EQ(exit_code, 0) << (*child)->out() << (*child)->err();
  // "<prefix><folder> <TCP connection string>"
  const std::vector<std::string> fields =
      absl::StrSplit(line.substr(line.find(kSharedFolderLine) + strlen(kSharedFolderLine)),
                     absl::MaxSplits(' ', 1));
  ASSERT_EQ(fields.size(), 2u) << line;
  EXPECT_FALSE(std::filesystem::exists(fields[0])) << fields[0];
  EXPECT_EQ(Psql(fields[1], "SELECT 1").exit_code, 2);
}

}  // namespace postgres_server_test
}  // namespace credledger::testing
