// PgError's mapping of SQLSTATE codes to status codes (store/postgres/pg.h; docs/postgres.md,
// "Errors"), SqlStateOf and PgErrorsByClass, with errors a real server raises: caused for real
// where a test can cause them (a duplicate key, a serialization failure, a deadlock, a missing
// privilege, table or database, a read-only transaction, a cancelled statement, an ended
// session), and every row of the table through PL/pgSQL's RAISE with that SQLSTATE.
#include <sys/socket.h>

#include <map>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "store/postgres/pg.h"
#include "test/support/postgres_server.h"
#include "test/support/status_matchers.h"

namespace credledger::store {
namespace pg_error_test {

using ::credledger::testing::StatusIs;
using ::testing::AllOf;
using ::testing::HasSubstr;
using ::testing::Not;
using ::testing::StartsWith;

// How many errors of SQLSTATE class `sql_class` PgError has counted in this process.
int64_t Counted(const std::string& sql_class) {
  const std::map<std::string, int64_t> counts = PgErrorsByClass();
  auto it = counts.find(sql_class);
  return it == counts.end() ? 0 : it->second;
}

class PostgresErrorTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_OK_AND_ASSIGN(server_, testing::SharedPostgresServer());
    ASSERT_OK_AND_ASSIGN(database_, server_->CreateDatabase());
  }

  // A connection to the test's database as `user`.
  std::unique_ptr<PgConnection> Connect(const std::string& user = "postgres") {
    auto db = PgConnection::Open(absl::StrCat(server_->ConnectionString(database_), " user=", user),
                                 absl::Seconds(10));
    EXPECT_OK(db);
    return db.ok() ? *std::move(db) : nullptr;
  }

  // Runs `sql` as the superuser on the test's database.
  void Sql(const std::string& sql) { EXPECT_OK(server_->Sql(database_, sql)); }

  testing::PostgresServer* server_ = nullptr;
  std::string database_;
};

TEST_F(PostgresErrorTest, EverySqlStateOfTheTableMapsToItsCode) {
  struct Row {
    const char* sql_state;
    absl::StatusCode code;
  };
  const std::vector<Row> table = {
      {"23000", absl::StatusCode::kAborted},  // the triggers' integrity violation
      {"23505", absl::StatusCode::kAborted},
      {"23514", absl::StatusCode::kAborted},
      {"40001", absl::StatusCode::kAborted},
      {"40P01", absl::StatusCode::kAborted},
      {"08000", absl::StatusCode::kUnavailable},
      {"08006", absl::StatusCode::kUnavailable},
      {"57P01", absl::StatusCode::kUnavailable},
      {"57P02", absl::StatusCode::kUnavailable},
      {"57P03", absl::StatusCode::kUnavailable},
      {"25006", absl::StatusCode::kUnavailable},
      {"25P03", absl::StatusCode::kUnavailable},
      {"53100", absl::StatusCode::kUnavailable},  // disk full
      {"53200", absl::StatusCode::kUnavailable},
      {"53300", absl::StatusCode::kUnavailable},
      {"57014", absl::StatusCode::kUnavailable},
      {kFencedSqlState, absl::StatusCode::kFailedPrecondition},
      {"42501", absl::StatusCode::kFailedPrecondition},
      {"3D000", absl::StatusCode::kFailedPrecondition},
      {"42P01", absl::StatusCode::kFailedPrecondition},
      {"XX001", absl::StatusCode::kDataLoss},
      {"XX002", absl::StatusCode::kDataLoss},
      // Anything else, the neighbours of the rows above included.
      {"XX000", absl::StatusCode::kInternal},
      {"40002", absl::StatusCode::kInternal},
      {"25P02", absl::StatusCode::kInternal},
      {"57P04", absl::StatusCode::kInternal},
      {"42P02", absl::StatusCode::kInternal},
      {"22012", absl::StatusCode::kInternal},
  };
  std::unique_ptr<PgConnection> db = Connect();
  ASSERT_NE(db, nullptr);
  for (const Row& row : table) {
    const absl::Status raised =
        db->Exec(absl::StrCat("DO $$ BEGIN RAISE EXCEPTION 'raised by the test' USING ERRCODE = '",
                              row.sql_state, "'; END $$"),
                 "raise");
    EXPECT_THAT(raised, StatusIs(row.code, absl::StrCat("raise: raised by the test [SQLSTATE ",
                                                        row.sql_state, "]")))
        << row.sql_state;
    EXPECT_EQ(SqlStateOf(raised), row.sql_state);
    EXPECT_TRUE(db->ok()) << row.sql_state;  // an error, not a lost connection
  }
}

TEST_F(PostgresErrorTest, ADuplicateKeyIsAbortedAndCountedInItsClass) {
  Sql("CREATE TABLE t (k bigint PRIMARY KEY)");
  std::unique_ptr<PgConnection> db = Connect();
  ASSERT_NE(db, nullptr);
  ASSERT_OK(db->Query("INSERT INTO t VALUES ($1)", PgParams().Int(1), "insert"));
  const int64_t before = Counted("23");

  const absl::StatusOr<PgResult> again =
      db->Query("INSERT INTO t VALUES ($1)", PgParams().Int(1), "insert");
  EXPECT_THAT(again, StatusIs(absl::StatusCode::kAborted,
                              AllOf(StartsWith("insert: duplicate key value violates unique "
                                               "constraint \"t_pkey\""),
                                    HasSubstr("[SQLSTATE 23505]"))));
  EXPECT_EQ(SqlStateOf(again.status()), "23505");
  EXPECT_FALSE(SessionLost(again.status()));
  EXPECT_EQ(Counted("23"), before + 1);
}

TEST_F(PostgresErrorTest, ASerializationFailureIsAborted) {
  Sql("CREATE TABLE t (v bigint)");
  std::unique_ptr<PgConnection> a = Connect(), b = Connect();
  ASSERT_NE(a, nullptr);
  ASSERT_NE(b, nullptr);
  // Each reads what the other writes: no serial order explains both.
  for (PgConnection* db : {a.get(), b.get()}) {
    ASSERT_OK(db->Exec("BEGIN ISOLATION LEVEL SERIALIZABLE; SELECT count(*) FROM t", "read"));
  }
  ASSERT_OK(a->Exec("INSERT INTO t VALUES (1)", "write"));
  ASSERT_OK(b->Exec("INSERT INTO t VALUES (2)", "write"));
  ASSERT_OK(a->Exec("COMMIT", "commit"));

  const absl::Status second = b->Exec("COMMIT", "commit");
  EXPECT_THAT(second, StatusIs(absl::StatusCode::kAborted, HasSubstr("[SQLSTATE 40001]")));
  EXPECT_EQ(SqlStateOf(second), "40001");
}

TEST_F(PostgresErrorTest, ADeadlockIsAborted) {
  Sql("CREATE TABLE t (k bigint PRIMARY KEY, v bigint); INSERT INTO t VALUES (1, 0), (2, 0)");
  std::unique_ptr<PgConnection> a = Connect(), b = Connect();
  ASSERT_NE(a, nullptr);
  ASSERT_NE(b, nullptr);
  // Each locks one row, then asks for the other's: the server ends one of the two waits.
  ASSERT_OK(a->Exec("SET deadlock_timeout = '50ms'; BEGIN; UPDATE t SET v = 1 WHERE k = 1", "a"));
  ASSERT_OK(b->Exec("SET deadlock_timeout = '50ms'; BEGIN; UPDATE t SET v = 1 WHERE k = 2", "b"));
  absl::Status a_second;
  std::thread a_waits([&] { a_second = a->Exec("UPDATE t SET v = 2 WHERE k = 2", "update"); });
  const absl::Status b_second = b->Exec("UPDATE t SET v = 2 WHERE k = 1", "update");
  a_waits.join();

  const absl::Status& victim = a_second.ok() ? b_second : a_second;
  const absl::Status& survivor = a_second.ok() ? a_second : b_second;
  EXPECT_OK(survivor);
  EXPECT_THAT(victim, StatusIs(absl::StatusCode::kAborted, AllOf(HasSubstr("deadlock detected"),
                                                                 HasSubstr("[SQLSTATE 40P01]"))));
  EXPECT_EQ(SqlStateOf(victim), "40P01");
}

TEST_F(PostgresErrorTest, AMissingPrivilegeTableOrDatabaseIsAFailedPrecondition) {
  const std::string reader = absl::StrCat(database_, "_reader");
  Sql(absl::StrCat("CREATE TABLE t (v bigint); CREATE ROLE ", reader,
                   " LOGIN; GRANT SELECT ON t TO ", reader));
  std::unique_ptr<PgConnection> db = Connect(reader);
  ASSERT_NE(db, nullptr);
  ASSERT_OK(db->Exec("SELECT * FROM t", "read"));

  EXPECT_THAT(db->Exec("INSERT INTO t VALUES (1)", "insert"),
              StatusIs(absl::StatusCode::kFailedPrecondition,
                       "insert: permission denied for table t [SQLSTATE 42501]"));
  EXPECT_THAT(db->Exec("SELECT * FROM missing", "read"),
              StatusIs(absl::StatusCode::kFailedPrecondition,
                       "read: relation \"missing\" does not exist [SQLSTATE 42P01]"));
  EXPECT_THAT(db->Exec("ALTER DATABASE no_such_database RESET ALL", "alter"),
              StatusIs(absl::StatusCode::kFailedPrecondition,
                       "alter: database \"no_such_database\" does not exist [SQLSTATE 3D000]"));
}

TEST_F(PostgresErrorTest, AFailedLoginIsUnavailableNamingTheReasonButNotThePassword) {
  // libpq reports a failed login as text only, without a SQLSTATE: the missing database is
  // named by the server's message, and the status is the one of a connection that failed.
  const absl::StatusOr<std::unique_ptr<PgConnection>> missing =
      PgConnection::Open(absl::StrCat(server_->ConnectionString(database_),
                                      " dbname=no_such_database password=do-not-show-this"),
                         absl::Seconds(10));
  EXPECT_THAT(missing, StatusIs(absl::StatusCode::kUnavailable,
                                AllOf(StartsWith("postgres: cannot connect: "),
                                      HasSubstr("database \"no_such_database\" does not exist"),
                                      Not(HasSubstr("do-not-show-this")))));
  EXPECT_EQ(SqlStateOf(missing.status()), "");
}

TEST_F(PostgresErrorTest, AReadOnlyTransactionAndACancelledStatementAreUnavailable) {
  Sql("CREATE TABLE t (v bigint)");
  std::unique_ptr<PgConnection> db = Connect();
  ASSERT_NE(db, nullptr);
  ASSERT_OK(db->Exec("BEGIN READ ONLY", "begin"));
  EXPECT_THAT(
      db->Exec("INSERT INTO t VALUES (1)", "insert"),
      StatusIs(absl::StatusCode::kUnavailable,
               "insert: cannot execute INSERT in a read-only transaction [SQLSTATE 25006]"));
  ASSERT_OK(db->Exec("ROLLBACK", "rollback"));

  // The server cancels the statement itself, at its statement_timeout.
  ASSERT_OK(db->Exec("SET statement_timeout = '20ms'", "set"));
  EXPECT_THAT(db->Exec("SELECT pg_sleep(60)", "slow"),
              StatusIs(absl::StatusCode::kUnavailable,
                       "slow: canceling statement due to statement timeout [SQLSTATE 57014]"));
  EXPECT_TRUE(db->ok());
}

TEST_F(PostgresErrorTest, AnyOtherErrorIsInternal) {
  std::unique_ptr<PgConnection> db = Connect();
  ASSERT_NE(db, nullptr);
  EXPECT_THAT(db->Exec("SELECT 1 / 0", "divide"),
              StatusIs(absl::StatusCode::kInternal, "divide: division by zero [SQLSTATE 22012]"));
  EXPECT_THAT(db->Exec("SELEC 1", "typo"),
              StatusIs(absl::StatusCode::kInternal, HasSubstr("[SQLSTATE 42601]")));
}

TEST_F(PostgresErrorTest, ASessionTheServerEndsIsUnavailable) {
  std::unique_ptr<PgConnection> db = Connect();
  ASSERT_NE(db, nullptr);
  ASSERT_OK(db->Exec("SET application_name = 'ended'", "name"));
  Sql("SELECT pg_terminate_backend(pid, 30000) FROM pg_stat_activity WHERE application_name = "
      "'ended'");

  const absl::Status ended = db->Exec("SELECT 1", "select");
  EXPECT_THAT(ended, StatusIs(absl::StatusCode::kUnavailable, StartsWith("select: ")));
  EXPECT_TRUE(SessionLost(ended));
  EXPECT_FALSE(db->ok());
}

TEST_F(PostgresErrorTest, AConnectionLostWithoutAnAnswerIsUnavailableAndCountedAsConnection) {
  std::unique_ptr<PgConnection> db = Connect();
  ASSERT_NE(db, nullptr);
  // The network drops the connection: nothing more comes from the server, not even an error.
  ASSERT_EQ(shutdown(PQsocket(db->raw()), SHUT_RDWR), 0);
  const int64_t before = Counted("connection");

  const absl::Status lost = db->Exec("SELECT 1", "select");
  EXPECT_THAT(lost, StatusIs(absl::StatusCode::kUnavailable,
                             AllOf(StartsWith("select: "), HasSubstr("(connection lost)"))));
  EXPECT_EQ(SqlStateOf(lost), "");
  EXPECT_TRUE(SessionLost(lost));
  EXPECT_FALSE(db->ok());
  EXPECT_EQ(Counted("connection"), before + 1);
}

TEST(PostgresSqlStateOfTest, ReadsTheLastWellFormedTag) {
  EXPECT_EQ(SqlStateOf(absl::UnavailableError(
                "append: batch of 2 commands failed: append: cannot execute UPDATE in a read-only "
                "transaction [SQLSTATE 25006]; a retry with the same request id appends it at "
                "most once")),
            "25006");
  EXPECT_EQ(SqlStateOf(absl::AbortedError("a [SQLSTATE 23505] then b [SQLSTATE 40001]")), "40001");
  EXPECT_EQ(SqlStateOf(absl::InternalError("no tag")), "");
  EXPECT_EQ(SqlStateOf(absl::InternalError("cut short [SQLSTATE 2350")), "");
  EXPECT_EQ(SqlStateOf(absl::InternalError("too long [SQLSTATE 235051]")), "");
  EXPECT_EQ(SqlStateOf(absl::OkStatus()), "");
}

}  // namespace pg_error_test
}  // namespace credledger::store
