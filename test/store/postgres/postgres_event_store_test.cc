// PostgreSQL-only behaviour of the event log (docs/postgres.md): the fence between writers,
// the schema's refusals, a refused batch retried one command at a time, and a connection that
// drops under the writer, each on a real server.
#include "store/postgres/postgres_event_store.h"

#include <string>
#include <thread>
#include <vector>

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "common/clock.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "store/log_hash.h"
#include "test/store/one_event.h"
#include "test/store/postgres/postgres_log.h"
#include "test/store/writer_gate.h"
#include "test/support/status_matchers.h"

namespace credledger::store {
namespace postgres_event_store_test {

using ::credledger::testing::OneEvent;
using ::credledger::testing::StatusIs;
using ::credledger::testing::WaitQueueDepth;
using ::credledger::testing::WriterGate;
using ::testing::HasSubstr;

class PostgresEventStoreTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_OK_AND_ASSIGN(server_, testing::SharedPostgresServer());
    ASSERT_OK_AND_ASSIGN(database_, server_->CreateDatabase());
  }

  std::unique_ptr<PostgresEventStore> Open(const std::string& holder = "test") {
    auto store = PostgresEventStore::Open(
        testing::PostgresLogOptions(server_->ConnectionString(database_), &clock_, holder));
    EXPECT_OK(store);
    return store.ok() ? *std::move(store) : nullptr;
  }

  // Runs `sql` as the superuser on the test's database; returns psql's output.
  std::string Sql(const std::string& sql) {
    absl::StatusOr<std::string> out = server_->Sql(database_, sql);
    EXPECT_OK(out);
    return out.ok() ? *out : "";
  }

  // Checks every event's positions and links as an auditor would (docs/log-format.md).
  static void ExpectChainVerifies(EventStore& store) {
    ASSERT_OK_AND_ASSIGN(std::vector<RecordedEvent> all, store.ReadAll(0, 100000));
    std::string chain = ZeroHash();
    for (size_t i = 0; i < all.size(); ++i) {
      const RecordedEvent& e = all[i];
      EXPECT_EQ(e.seq, static_cast<int64_t>(i) + 1);
      EXPECT_EQ(e.digest, EventDigest(e));
      EXPECT_EQ(e.prev_chain_hash, chain);
      chain = NextChainHash(chain, e.digest);
      EXPECT_EQ(e.chain_hash, chain);
    }
  }

  common::FakeClock clock_{absl::FromUnixSeconds(1767225600)};
  testing::PostgresServer* server_ = nullptr;
  std::string database_;
};

TEST_F(PostgresEventStoreTest, OpeningTakesTheNextEpochAndNamesTheHolder) {
  auto first = Open("replica-a");
  ASSERT_NE(first, nullptr);
  EXPECT_EQ(first->writer_state().epoch, 1);
  first.reset();
  auto second = Open("replica-b");
  ASSERT_NE(second, nullptr);
  EXPECT_EQ(second->writer_state().epoch, 2);
  EXPECT_EQ(Sql("SELECT epoch, holder FROM log_writer"), "2|replica-b\n");
}

TEST_F(PostgresEventStoreTest, ASecondWriterFencesTheFirstWhateverItBelieves) {
  auto stale = Open("replica-a");
  ASSERT_NE(stale, nullptr);
  ASSERT_OK(stale->Append(OneEvent("r1", "s/a")));
  auto current = Open("replica-b");
  ASSERT_NE(current, nullptr);

  EXPECT_THAT(stale->Append(OneEvent("r2", "s/a")),
              StatusIs(absl::StatusCode::kFailedPrecondition, HasSubstr("another replica")));
  // It stays stopped: no later command is even sent.
  EXPECT_THAT(stale->Append(OneEvent("r3", "s/b")),
              StatusIs(absl::StatusCode::kFailedPrecondition, HasSubstr("writes nothing more")));
  EXPECT_TRUE(stale->writer_state().fenced);
  EXPECT_GE(stale->database_errors()["CL"], 1);  // the fence's own SQLSTATE class

  ASSERT_OK_AND_ASSIGN(AppendResult appended, current->Append(OneEvent("r2", "s/a")));
  EXPECT_EQ(appended.events[0].seq, 2);
  EXPECT_EQ(appended.events[0].stream_version, 1);
  ExpectChainVerifies(*current);
  EXPECT_EQ(Sql("SELECT seq FROM log_writer"), "2\n");
}

TEST_F(PostgresEventStoreTest, TheSchemaRefusesUpdateDeleteAndTruncate) {
  auto store = Open();
  ASSERT_NE(store, nullptr);
  ASSERT_OK(store->Append(OneEvent("r1", "s/a")));
  for (const char* sql : {"UPDATE events SET type = 'x'", "DELETE FROM events", "TRUNCATE events",
                          "TRUNCATE checkpoints", "DELETE FROM log_writer"}) {
    absl::StatusOr<std::string> refused = server_->Sql(database_, sql);
    EXPECT_THAT(refused, StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("append-only")))
        << sql;
  }
  EXPECT_EQ(Sql("SELECT count(*) FROM events"), "1\n");
}

TEST_F(PostgresEventStoreTest, RowsWrittenBehindTheWritersBackStopTheNextOpen) {
  auto store = Open();
  ASSERT_NE(store, nullptr);
  ASSERT_OK(store->Append(OneEvent("r1", "s/a")));
  store.reset();
  // The fence row claims a head the events table does not have.
  Sql("UPDATE log_writer SET seq = 7");
  auto reopened = PostgresEventStore::Open(
      testing::PostgresLogOptions(server_->ConnectionString(database_), &clock_));
  EXPECT_THAT(reopened, StatusIs(absl::StatusCode::kDataLoss,
                                 HasSubstr("names head seq 7 but the events table ends at seq 1")));
}

TEST_F(PostgresEventStoreTest, ARefusedBatchIsRetriedOneCommandAtATime) {
  auto store = Open();
  ASSERT_NE(store, nullptr);
  // A rule of the server the writer cannot know: it refuses the rows of one stream.
  Sql("CREATE FUNCTION refuse_poison() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE "
      "EXCEPTION 'poison refused' USING ERRCODE = 'check_violation'; END $$;"
      "CREATE TRIGGER refuse_poison BEFORE INSERT ON events FOR EACH ROW WHEN (NEW.stream = "
      "'poison') EXECUTE FUNCTION refuse_poison();");
  WriterGate gate;
  std::thread blocker([&] { EXPECT_OK(store->Execute(gate.Blocker(OneEvent("r0", "s/first")))); });
  gate.WaitEntered();
  absl::Status good_a, poison, good_b;
  std::thread a([&] { good_a = store->Append(OneEvent("r1", "s/a")).status(); });
  WaitQueueDepth(*store, 1);
  std::thread p([&] { poison = store->Append(OneEvent("r2", "poison")).status(); });
  WaitQueueDepth(*store, 2);
  std::thread b([&] { good_b = store->Append(OneEvent("r3", "s/b")).status(); });
  WaitQueueDepth(*store, 3);
  gate.Release();
  blocker.join();
  a.join();
  p.join();
  b.join();

  EXPECT_OK(good_a);
  EXPECT_OK(good_b);
  EXPECT_THAT(poison, StatusIs(absl::StatusCode::kAborted, HasSubstr("poison refused")));
  EXPECT_GE(store->writer_state().retried_batches, 1);
  EXPECT_EQ(store->HeadSeq(), 3);
  ExpectChainVerifies(*store);
}

TEST_F(PostgresEventStoreTest, ATerminatedConnectionFailsOneBatchAndTheWriterReconnects) {
  auto store = Open();
  ASSERT_NE(store, nullptr);
  ASSERT_OK(store->Append(OneEvent("r1", "s/a")));
  Sql("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = "
      "current_database() AND pid <> pg_backend_pid()");

  EXPECT_THAT(store->Append(OneEvent("r2", "s/a")),
              StatusIs(absl::StatusCode::kUnavailable, HasSubstr("at most once")));
  // The retry of the same request appends once.
  ASSERT_OK_AND_ASSIGN(AppendResult retried, store->Append(OneEvent("r2", "s/a")));
  ASSERT_OK_AND_ASSIGN(AppendResult again, store->Append(OneEvent("r2", "s/a")));
  EXPECT_TRUE(again.replayed);
  EXPECT_EQ(again.events[0].seq, retried.events[0].seq);
  EXPECT_EQ(store->HeadSeq(), 2);
  EXPECT_EQ(store->writer_state().reconnects, 1);
  ExpectChainVerifies(*store);
}

TEST_F(PostgresEventStoreTest, AConnectionLostDuringCommitFailsUnavailableAndARetryAppendsOnce) {
  auto store = Open();
  ASSERT_NE(store, nullptr);
  ASSERT_OK(store->Append(OneEvent("r1", "s/a")));
  // A deferred trigger runs at COMMIT and waits there for an advisory lock the test holds, so
  // the connection can be cut while the COMMIT is in flight.
  Sql("CREATE FUNCTION hold_commit() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN PERFORM "
      "pg_advisory_lock(4242); PERFORM pg_advisory_unlock(4242); RETURN NULL; END $$;"
      "CREATE CONSTRAINT TRIGGER hold_commit AFTER INSERT ON events DEFERRABLE INITIALLY "
      "DEFERRED FOR EACH ROW EXECUTE FUNCTION hold_commit();");
  auto holder = PgConnection::Open(server_->ConnectionString(database_), absl::Seconds(10));
  ASSERT_OK(holder);
  ASSERT_OK((*holder)->Query("SELECT pg_advisory_lock(4242)", PgParams(), "lock").status());

  absl::Status during;
  std::thread append([&] { during = store->Append(OneEvent("r2", "s/a")).status(); });
  ASSERT_OK(server_->AwaitSql(
      database_, "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND NOT granted", "1\n",
      absl::Seconds(30)));
  Sql("SELECT pg_terminate_backend(pid) FROM pg_locks WHERE locktype = 'advisory' AND NOT "
      "granted");
  append.join();
  EXPECT_THAT(during, StatusIs(absl::StatusCode::kUnavailable));
  Sql("DROP TRIGGER hold_commit ON events");

  ASSERT_OK_AND_ASSIGN(AppendResult retried, store->Append(OneEvent("r2", "s/a")));
  EXPECT_FALSE(retried.replayed);
  EXPECT_EQ(retried.events[0].seq, 2);
  ASSERT_OK_AND_ASSIGN(AppendResult again, store->Append(OneEvent("r2", "s/a")));
  EXPECT_TRUE(again.replayed);
  EXPECT_EQ(store->HeadSeq(), 2);
  ExpectChainVerifies(*store);
}

TEST_F(PostgresEventStoreTest, AWriterThatFindsAcknowledgedEventsGoneStopsWriting) {
  absl::Status stopped_with;
  auto options = testing::PostgresLogOptions(server_->ConnectionString(database_), &clock_);
  options.on_stopped = [&stopped_with](const absl::Status& reason) { stopped_with = reason; };
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<PostgresEventStore> store,
                       PostgresEventStore::Open(std::move(options)));
  ASSERT_OK_AND_ASSIGN(AppendResult first, store->Append(OneEvent("r1", "s/a")));
  ASSERT_OK(store->Append(OneEvent("r2", "s/a")));
  // What a failover to a standby that had not received seq 2 leaves: the database one event
  // behind what the writer acknowledged, consistently so (the fence row agrees).
  Sql(
      absl::StrCat("ALTER TABLE events DISABLE TRIGGER USER; "
                   "DELETE FROM events WHERE seq = 2; ALTER TABLE events ENABLE TRIGGER USER; "
                   "UPDATE log_writer SET seq = 1, chain_hash = '\\x",
                   absl::BytesToHexString(first.events[0].chain_hash), "';",
                   "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = "
                   "current_database() AND pid <> pg_backend_pid();"));

  EXPECT_THAT(store->Append(OneEvent("r3", "s/a")), StatusIs(absl::StatusCode::kUnavailable));
  // The reconnect finds the head behind seq 2: nothing more is written over the lost position.
  EXPECT_THAT(store->Append(OneEvent("r3", "s/a")),
              StatusIs(absl::StatusCode::kDataLoss, HasSubstr("acknowledged up to seq 2")));
  EXPECT_THAT(stopped_with, StatusIs(absl::StatusCode::kDataLoss));
  EXPECT_THAT(store->Append(OneEvent("r4", "s/b")), StatusIs(absl::StatusCode::kDataLoss));
  EXPECT_EQ(Sql("SELECT max(seq) FROM events"), "1\n");
}

TEST_F(PostgresEventStoreTest, AReopenedWriterAnswersEarlierRequestsFromTheLog) {
  auto store = Open();
  ASSERT_NE(store, nullptr);
  ASSERT_OK_AND_ASSIGN(AppendResult first, store->Append(OneEvent("r1", "s/a")));
  store.reset();
  store = Open();
  ASSERT_NE(store, nullptr);
  ASSERT_OK_AND_ASSIGN(AppendResult replayed, store->Append(OneEvent("r1", "s/a")));
  EXPECT_TRUE(replayed.replayed);
  EXPECT_EQ(replayed.events[0].chain_hash, first.events[0].chain_hash);
  EXPECT_THAT(store->Append(OneEvent("r9", "s/a", ExpectedVersion::NoStream())),
              StatusIs(absl::StatusCode::kAborted, HasSubstr("expected version -1, found 0")));
}

}  // namespace postgres_event_store_test
}  // namespace credledger::store
