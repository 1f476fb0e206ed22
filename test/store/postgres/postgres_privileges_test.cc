// The privileges of the role the service logs in as (docs/postgres.md, "Privileges"), on a
// real server: the tables' owner migrates, and with only the listed grants the role opens the
// log, appends, checkpoints, snapshots, reads and opens it again; it cannot change or remove
// what the log holds; a read-only replica needs SELECT only; and without one of the grants
// opening fails kFailedPrecondition naming the table.
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "common/clock.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "store/postgres/pg.h"
#include "store/postgres/pg_migrations.h"
#include "store/postgres/postgres_event_store.h"
#include "test/store/one_event.h"
#include "test/store/postgres/postgres_log.h"
#include "test/support/postgres_server.h"
#include "test/support/status_matchers.h"

namespace credledger::store {
namespace postgres_privileges_test {

using ::credledger::testing::OneEvent;
using ::credledger::testing::StatusIs;
using ::testing::AllOf;
using ::testing::HasSubstr;

// The grants docs/postgres.md, "Privileges", lists for the role that writes the log.
std::string WriterGrants(const std::string& role) {
  return absl::StrCat(
      "GRANT SELECT ON schema_migrations, event_types, events, checkpoints, projection_snapshots, "
      "log_writer TO ",
      role, "; GRANT INSERT ON events, event_types, checkpoints, projection_snapshots TO ", role,
      "; GRANT UPDATE ON log_writer, event_types, projection_snapshots TO ", role);
}

class PostgresPrivilegesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_OK_AND_ASSIGN(server_, testing::SharedPostgresServer());
    ASSERT_OK_AND_ASSIGN(database_, server_->CreateDatabase());
    // The owner (here the superuser) migrates, as `credledger migrate` does.
    ASSERT_OK_AND_ASSIGN(
        std::unique_ptr<PgConnection> owner,
        PgConnection::Open(server_->ConnectionString(database_), absl::Seconds(10)));
    ASSERT_OK(ApplyPostgresMigrations(*owner, EmbeddedPostgresMigrations()));
    role_ = absl::StrCat(database_, "_writer");
    Sql(absl::StrCat("CREATE ROLE ", role_, " LOGIN"));
  }

  std::string RoleConninfo() const {
    return absl::StrCat(server_->ConnectionString(database_), " user=", role_);
  }

  absl::StatusOr<std::unique_ptr<PostgresEventStore>> OpenAsRole() {
    return PostgresEventStore::Open(testing::PostgresLogOptions(RoleConninfo(), &clock_));
  }

  // Runs `sql` as the superuser on the test's database.
  void Sql(const std::string& sql) { EXPECT_OK(server_->Sql(database_, sql)); }

  common::FakeClock clock_;
  testing::PostgresServer* server_ = nullptr;
  std::string database_;
  std::string role_;
};

TEST_F(PostgresPrivilegesTest, TheListedGrantsAreEnoughToWriteAndReadTheLog) {
  Sql(WriterGrants(role_));
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<PostgresEventStore> store, OpenAsRole());
  ASSERT_OK(store->Append(OneEvent("r1", "s/a")));
  ASSERT_OK_AND_ASSIGN(AppendResult second, store->Append(OneEvent("r2", "s/b")));
  const std::string head_hash = second.events[0].chain_hash;
  // A checkpoint, and a snapshot written twice (the second replaces the first).
  ASSERT_OK(store->Execute([&](WriteTransaction& tx) {
    v1::Checkpoint checkpoint;
    checkpoint.set_seq(2);
    checkpoint.set_chain_hash(head_hash);
    checkpoint.set_signed_at_us(1);
    checkpoint.set_key_id("k");
    checkpoint.set_signature("s");
    return tx.PutCheckpoint(checkpoint);
  }));
  for (const char* state : {"one", "two"}) {
    ASSERT_OK(store->Execute([&](WriteTransaction& tx) {
      return tx.PutSnapshot(Snapshot{.projection = "p",
                                     .seq = 2,
                                     .schema_version = 1,
                                     .state = state,
                                     .chain_hash = head_hash,
                                     .state_sha256 = std::string(32, 'h'),
                                     .key_id = "k",
                                     .signature = "s"});
    }));
  }

  ASSERT_OK_AND_ASSIGN(std::vector<RecordedEvent> events, store->ReadAll(0, 10));
  EXPECT_EQ(events.size(), 2u);
  ASSERT_OK_AND_ASSIGN(std::optional<v1::Checkpoint> checkpoint, store->LatestCheckpoint());
  ASSERT_TRUE(checkpoint.has_value());
  EXPECT_EQ(checkpoint->seq(), 2);
  ASSERT_OK_AND_ASSIGN(std::optional<Snapshot> snapshot, store->LoadSnapshot("p", 2));
  ASSERT_TRUE(snapshot.has_value());
  EXPECT_EQ(snapshot->state, "two");

  // Opening again takes the next epoch and finds what the role wrote.
  store.reset();
  ASSERT_OK_AND_ASSIGN(store, OpenAsRole());
  EXPECT_EQ(store->writer_state().epoch, 2);
  ASSERT_OK_AND_ASSIGN(AppendResult replayed, store->Append(OneEvent("r1", "s/a")));
  EXPECT_TRUE(replayed.replayed);
}

TEST_F(PostgresPrivilegesTest, TheRoleCannotChangeOrRemoveWhatTheLogHolds) {
  Sql(WriterGrants(role_));
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<PostgresEventStore> store, OpenAsRole());
  ASSERT_OK(store->Append(OneEvent("r1", "s/a")));
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<PgConnection> as_role,
                       PgConnection::Open(RoleConninfo(), absl::Seconds(10)));

  for (const char* sql : {"UPDATE events SET type = 'x'", "DELETE FROM events", "TRUNCATE events",
                          "UPDATE checkpoints SET key_id = 'x'", "DELETE FROM checkpoints",
                          "TRUNCATE checkpoints", "DELETE FROM log_writer", "TRUNCATE log_writer",
                          "DELETE FROM projection_snapshots", "CREATE TABLE more (v bigint)"}) {
    EXPECT_THAT(as_role->Exec(sql, "change"),
                StatusIs(absl::StatusCode::kFailedPrecondition,
                         AllOf(HasSubstr("permission denied"), HasSubstr("[SQLSTATE 42501]"))))
        << sql;
  }
  ASSERT_OK_AND_ASSIGN(std::vector<RecordedEvent> events, store->ReadAll(0, 10));
  EXPECT_EQ(events.size(), 1u);
}

TEST_F(PostgresPrivilegesTest, AReadOnlyReplicaNeedsOnlySelectOnAllButTheFence) {
  {
    ASSERT_OK_AND_ASSIGN(std::unique_ptr<PostgresEventStore> writer,
                         PostgresEventStore::Open(testing::PostgresLogOptions(
                             server_->ConnectionString(database_), &clock_)));
    ASSERT_OK(writer->Append(OneEvent("r1", "s/a")));
  }
  Sql(
      absl::StrCat("GRANT SELECT ON schema_migrations, event_types, events, checkpoints, "
                   "projection_snapshots TO ",
                   role_));
  PostgresEventStoreOptions options = testing::PostgresLogOptions(RoleConninfo(), &clock_);
  options.read_only = true;
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<PostgresEventStore> replica,
                       PostgresEventStore::Open(options));

  EXPECT_EQ(replica->HeadSeq(), 1);
  ASSERT_OK_AND_ASSIGN(std::vector<RecordedEvent> events, replica->ReadAll(0, 10));
  EXPECT_EQ(events.size(), 1u);
  EXPECT_OK(replica->ReadFiltered(EventFilter{}, 0, 10));
  EXPECT_OK(replica->LatestCheckpoint());
  EXPECT_OK(replica->ListSnapshots());
}

TEST_F(PostgresPrivilegesTest, WithoutAListedGrantOpeningFailsNamingTheTable) {
  Sql(absl::StrCat(WriterGrants(role_), "; REVOKE UPDATE ON log_writer FROM ", role_));
  EXPECT_THAT(OpenAsRole(), StatusIs(absl::StatusCode::kFailedPrecondition,
                                     AllOf(HasSubstr("take the writer's epoch"),
                                           HasSubstr("permission denied for table log_writer"),
                                           HasSubstr("[SQLSTATE 42501]"))));
}

}  // namespace postgres_privileges_test
}  // namespace credledger::store
