#include "store/migrations.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "test/support/status_matchers.h"
#include "test/support/temp_dir.h"

namespace credledger::store {
namespace migrations_test {

using ::credledger::testing::StatusIs;
using ::testing::HasSubstr;

class MigrationsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto db = Connection::Open(dir_.path() / "m.db", /*create=*/true, /*read_only=*/false);
    ASSERT_OK(db);
    db_ = *std::move(db);
  }
  bool TableExists(const std::string& name) {
    auto count = db_->QueryInt(
        "SELECT COUNT(*) FROM sqlite_master WHERE type = 'table' AND name = '" + name + "'", 0);
    return count.ok() && *count == 1;
  }

  testing::TempDir dir_;
  std::unique_ptr<Connection> db_;
};

TEST_F(MigrationsTest, AppliesEachMigrationOnceInOrder) {
  std::vector<EmbeddedMigration> migrations = {
      {"0001_a.sql", "CREATE TABLE a (x INTEGER);"},
      {"0002_b.sql", "CREATE TABLE b (y INTEGER); INSERT INTO a VALUES (1);"}};
  ASSERT_OK(ApplyMigrations(*db_, migrations));
  ASSERT_OK(ApplyMigrations(*db_, migrations));  // nothing left to do
  EXPECT_THAT(SchemaVersion(*db_), ::testing::Eq(absl::StatusOr<int64_t>(2)));
  EXPECT_THAT(db_->QueryInt("SELECT COUNT(*) FROM a", -1),
              ::testing::Eq(absl::StatusOr<int64_t>(1)));
}

TEST_F(MigrationsTest, AFailingMigrationLeavesNothingBehind) {
  ASSERT_OK(ApplyMigrations(*db_, {{"0001_a.sql", "CREATE TABLE a (x INTEGER);"}}));
  EXPECT_THAT(ApplyMigrations(*db_, {{"0001_a.sql", "CREATE TABLE a (x INTEGER);"},
                                     {"0002_b.sql", "CREATE TABLE b (y); SELECT nonsense("}}),
              StatusIs(absl::StatusCode::kInternal, HasSubstr("migration 0002_b.sql")));
  EXPECT_FALSE(TableExists("b"));
  EXPECT_THAT(SchemaVersion(*db_), ::testing::Eq(absl::StatusOr<int64_t>(1)));
}

TEST_F(MigrationsTest, AnEditedAppliedMigrationStopsStartUp) {
  ASSERT_OK(ApplyMigrations(*db_, {{"0001_a.sql", "CREATE TABLE a (x INTEGER);"}}));
  EXPECT_THAT(ApplyMigrations(*db_, {{"0001_a.sql", "CREATE TABLE a (x TEXT);"}}),
              StatusIs(absl::StatusCode::kFailedPrecondition,
                       HasSubstr("applied migrations must never be edited")));
}

TEST_F(MigrationsTest, ADatabaseOfANewerBinaryIsRefused) {
  ASSERT_OK(ApplyMigrations(*db_, {{"0001_a.sql", "CREATE TABLE a (x);"},
                                   {"0002_b.sql", "CREATE TABLE b (y);"}}));
  EXPECT_THAT(ApplyMigrations(*db_, {{"0001_a.sql", "CREATE TABLE a (x);"}}),
              StatusIs(absl::StatusCode::kFailedPrecondition,
                       HasSubstr("schema version 2 (0002_b.sql) is newer than this binary's 1")));
}

TEST_F(MigrationsTest, MalformedFileNamesAreRejected) {
  EXPECT_THAT(ApplyMigrations(*db_, {{"a_first.sql", "SELECT 1;"}}),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("NNNN_description.sql")));
}

TEST_F(MigrationsTest, TheEmbeddedMigrationsApplyToAFreshDatabase) {
  ASSERT_FALSE(EmbeddedMigrations().empty());
  EXPECT_EQ(EmbeddedMigrations().front().file_name, "0001_event_log.sql");
  ASSERT_OK(ApplyMigrations(*db_, EmbeddedMigrations()));
  EXPECT_TRUE(TableExists("events"));
  EXPECT_TRUE(TableExists("projection_snapshots"));
}

// Snapshots written before they were sealed cannot be trusted (docs/audit.md, "Snapshots"):
// the migration that adds the seal drops them; they are rebuilt from the log.
TEST_F(MigrationsTest, SealingSnapshotsDropsTheUnsealedOnes) {
  const std::vector<EmbeddedMigration>& all = EmbeddedMigrations();
  ASSERT_GE(all.size(), 3u);
  ASSERT_EQ(all[2].file_name, "0003_snapshot_seals.sql");
  ASSERT_OK(ApplyMigrations(*db_, {all[0], all[1]}));
  ASSERT_OK(
      db_->Exec("INSERT INTO projection_snapshots (projection, seq, schema_version, state) "
                "VALUES ('credentials', 10, 1, x'0a00')",
                "test"));
  ASSERT_THAT(db_->QueryInt("SELECT COUNT(*) FROM projection_snapshots", 0),
              ::testing::Eq(absl::StatusOr<int64_t>(1)));

  ASSERT_OK(ApplyMigrations(*db_, all));
  EXPECT_THAT(db_->QueryInt("SELECT COUNT(*) FROM projection_snapshots", 0),
              ::testing::Eq(absl::StatusOr<int64_t>(0)));
  // An unsealed row cannot be written again.
  EXPECT_FALSE(db_->Exec("INSERT INTO projection_snapshots (projection, seq, schema_version, "
                         "state) VALUES ('credentials', 10, 1, x'0a00')",
                         "test")
                   .ok());
}

}  // namespace migrations_test
}  // namespace credledger::store
