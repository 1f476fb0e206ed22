// Tests of the statements a Connection keeps (store/sqlite.h, PrepareCached): one compiled
// statement serves every use, and releasing it resets it, so that the next use starts over
// with fresh bindings and sees rows written since (no read transaction is left open).
#include "gtest/gtest.h"
#include "store/sqlite.h"
#include "test/support/status_matchers.h"
#include "test/support/temp_dir.h"

namespace credledger::store {
namespace sqlite_connection_test {

class SqliteConnectionTest : public ::testing::Test {
 protected:
  void SetUp() override {
    absl::StatusOr<std::unique_ptr<Connection>> db =
        Connection::Open(dir_.path() / "t.db", /*create=*/true, /*read_only=*/false);
    ASSERT_OK(db);
    db_ = *std::move(db);
    ASSERT_OK(db_->Exec("PRAGMA journal_mode = WAL; CREATE TABLE t (x INTEGER)", "create"));
  }

  // Rows of t counted through a kept statement, left unfinished (one step only).
  int64_t CountUnfinished() {
    absl::StatusOr<Statement> count = db_->PrepareCached("SELECT count(*) FROM t");
    EXPECT_OK(count);
    if (!count.ok()) return -1;
    absl::StatusOr<bool> row = count->Step();
    EXPECT_OK(row);
    return row.ok() && *row ? count->ColumnInt(0) : -1;
  }

  testing::TempDir dir_;
  std::unique_ptr<Connection> db_;
};

TEST_F(SqliteConnectionTest, AReleasedKeptStatementStartsOverAndSeesNewRows) {
  EXPECT_EQ(CountUnfinished(), 0);
  // Another connection writes meanwhile: a statement left mid-read would hold the old view.
  absl::StatusOr<std::unique_ptr<Connection>> writer =
      Connection::Open(dir_.path() / "t.db", /*create=*/false, /*read_only=*/false);
  ASSERT_OK(writer);
  ASSERT_OK((*writer)->Exec("INSERT INTO t VALUES (1), (2)", "insert"));
  EXPECT_EQ(CountUnfinished(), 2);
  EXPECT_EQ(CountUnfinished(), 2);
}

TEST_F(SqliteConnectionTest, AReleasedKeptStatementLosesItsBindings) {
  {
    absl::StatusOr<Statement> echo = db_->PrepareCached("SELECT ?");
    ASSERT_OK(echo);
    echo->Bind(1, 42);
    ASSERT_OK_AND_ASSIGN(bool row, echo->Step());
    ASSERT_TRUE(row);
    EXPECT_EQ(echo->ColumnInt(0), 42);
  }
  absl::StatusOr<Statement> again = db_->PrepareCached("SELECT ?");
  ASSERT_OK(again);
  ASSERT_OK_AND_ASSIGN(bool row, again->Step());
  ASSERT_TRUE(row);
  EXPECT_TRUE(again->ColumnIsNull(0));
}

TEST_F(SqliteConnectionTest, InvalidSqlIsAnErrorNamingIt) {
  absl::StatusOr<Statement> bad = db_->PrepareCached("SELEC 1");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("SELEC 1"), absl::string_view::npos)
      << bad.status().message();
}

}  // namespace sqlite_connection_test
}  // namespace credledger::store
