// SQLite-specific behaviour of the event log: triggers, group commit with savepoints, and the
// refusals at open (docs/design.md, "The event log").
#include "store/sqlite_event_store.h"

#include <sqlite3.h>

#include <fstream>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "store/log_hash.h"
#include "store/migrations.h"
#include "test/store/one_event.h"
#include "test/store/placeholder_snapshot.h"
#include "test/store/writer_gate.h"
#include "test/support/status_matchers.h"
#include "test/support/temp_dir.h"

namespace credledger::store {
namespace sqlite_event_store_test {

using ::credledger::testing::OneEvent;
using ::credledger::testing::StatusIs;
using ::credledger::testing::WaitQueueDepth;
using ::credledger::testing::WriterGate;
using ::testing::HasSubstr;

constexpr char kType[] = "credledger.v1.ServiceConfigured";

class SqliteEventStoreTest : public ::testing::Test {
 protected:
  std::filesystem::path db_path() const { return dir_.path() / "events.db"; }

  std::unique_ptr<SqliteEventStore> Open() {
    SqliteEventStoreOptions options;
    options.path = db_path();
    options.clock = &clock_;
    auto store = SqliteEventStore::Open(options);
    EXPECT_OK(store);
    return store.ok() ? *std::move(store) : nullptr;
  }

  // Runs `sql` on a separate raw connection, the way an attacker or a careless operator with
  // sqlite3 would. Returns the SQLite error message, empty on success.
  std::string RawExec(const std::string& sql) {
    sqlite3* db = nullptr;
    sqlite3_open(db_path().c_str(), &db);
    char* error = nullptr;
    sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &error);
    std::string message = error == nullptr ? "" : error;
    sqlite3_free(error);
    sqlite3_close(db);
    return message;
  }

  testing::TempDir dir_;
  common::FakeClock clock_;
};

TEST_F(SqliteEventStoreTest, TriggersRefuseUpdateDeleteAndReplace) {
  auto store = Open();
  ASSERT_OK(store->Append(OneEvent("r1", "s/a")));
  ASSERT_OK(store->Append(OneEvent("r2", "s/a")));
  store.reset();

  EXPECT_THAT(RawExec("UPDATE events SET payload = x'00' WHERE seq = 1"),
              HasSubstr("append-only: UPDATE refused"));
  EXPECT_THAT(RawExec("DELETE FROM events WHERE seq = 2"),
              HasSubstr("append-only: DELETE refused"));
  // A well-formed next row whose event_id collides with seq 1: REPLACE would delete seq 1,
  // even on a connection without recursive_triggers.
  EXPECT_THAT(RawExec("INSERT OR REPLACE INTO events (seq, stream, stream_version, event_id, "
                      "type, schema_version, recorded_at_us, metadata, payload, digest, "
                      "prev_chain_hash, chain_hash, stream_hash) SELECT 3, stream, 2, "
                      "(SELECT event_id FROM events WHERE seq = 1), type, 1, recorded_at_us + 1, "
                      "metadata, payload, digest, chain_hash, chain_hash, stream_hash "
                      "FROM events WHERE seq = 2"),
              HasSubstr("event_id must be new"));
  EXPECT_THAT(RawExec("INSERT INTO events (seq, stream, stream_version, event_id, type, "
                      "schema_version, recorded_at_us, metadata, payload, digest, "
                      "prev_chain_hash, chain_hash, stream_hash) SELECT 5, stream, 2, "
                      "randomblob(16), type, 1, recorded_at_us + 1, metadata, payload, digest, "
                      "chain_hash, chain_hash, stream_hash FROM events WHERE seq = 2"),
              HasSubstr("next global position"));
  EXPECT_THAT(RawExec("INSERT INTO events (seq, stream, stream_version, event_id, type, "
                      "schema_version, recorded_at_us, metadata, payload, digest, "
                      "prev_chain_hash, chain_hash, stream_hash) SELECT 3, stream, 2, "
                      "randomblob(16), type, 1, recorded_at_us + 1, metadata, payload, digest, "
                      "zeroblob(32), chain_hash, stream_hash FROM events WHERE seq = 2"),
              HasSubstr("prev_chain_hash must equal the previous chain_hash"));

  store = Open();
  ASSERT_OK_AND_ASSIGN(auto events, store->ReadAll(0, 10));
  ASSERT_EQ(events.size(), 2u);
  EXPECT_EQ(events[0].payload, "p");
}

TEST_F(SqliteEventStoreTest, GroupCommitIsolatesAFailingCommandInItsSavepoint) {
  auto store = Open();
  WriterGate gate;
  std::thread blocker([&] { EXPECT_OK(store->Execute(gate.Blocker(OneEvent("gate", "s/gate")))); });
  gate.WaitEntered();

  // Queued in this order while the writer is held, so they form one batch. The first appends
  // and then fails; the second expects the stream empty, which holds only if the first's
  // writes were rolled back; the third expects the second's write from the same batch.
  absl::Status failing, second, third;
  std::thread t1([&] {
    failing = store->Execute([](WriteTransaction& tx) -> absl::Status {
      auto appended = tx.Append(OneEvent("bad", "s/x", ExpectedVersion::NoStream()));
      if (!appended.ok()) return appended.status();
      return absl::FailedPreconditionError("rule broken after writing");
    });
  });
  WaitQueueDepth(*store, 1);
  std::thread t2([&] {
    second = store->Append(OneEvent("ok-1", "s/x", ExpectedVersion::NoStream())).status();
  });
  WaitQueueDepth(*store, 2);
  std::thread t3([&] {
    third = store->Append(OneEvent("ok-2", "s/x", ExpectedVersion::Exactly(0))).status();
  });
  WaitQueueDepth(*store, 3);
  gate.Release();
  for (std::thread* t : {&blocker, &t1, &t2, &t3}) t->join();

  EXPECT_THAT(failing, StatusIs(absl::StatusCode::kFailedPrecondition));
  EXPECT_OK(second);
  EXPECT_OK(third);
  EXPECT_EQ(store->stats().largest_batch, 3);
  EXPECT_EQ(store->stats().batches, 2);
  // What the metrics read (docs/operations.md): the rolled-back event is not counted; the
  // batches of 1 and 3 commands fall in the buckets le 1 and le 4; every answer is timed.
  EXPECT_EQ(store->stats().events, 3);
  const std::vector<uint64_t> batches = store->batch_sizes().Read().cumulative;
  ASSERT_EQ(batches.size(), 12u);
  EXPECT_EQ(batches[0], 1u);
  EXPECT_EQ(batches[1], 1u);
  EXPECT_EQ(batches[2], 2u);
  EXPECT_EQ(batches.back(), 2u);
  EXPECT_EQ(store->append_latency().Read().cumulative.back(), 4u);
  ASSERT_OK_AND_ASSIGN(auto events, store->ReadAll(0, 10));
  ASSERT_EQ(events.size(), 3u);
  EXPECT_EQ(events[1].event_id, EventIdFor("ok-1", 0));
  EXPECT_EQ(events[1].prev_chain_hash, events[0].chain_hash);
  EXPECT_EQ(events[2].stream_version, 1);
}

TEST_F(SqliteEventStoreTest, ConcurrentWritersShareCommitsAndEveryAcknowledgedEventIsStored) {
  auto store = Open();
  constexpr int kThreads = 16;
  constexpr int kPerThread = 50;
  std::vector<std::thread> threads;
  std::atomic<int> acknowledged{0};
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < kPerThread; ++i) {
        std::string id = absl::StrCat("w", t, "-", i);
        if (store->Append(OneEvent(id, absl::StrCat("s/", t))).ok()) acknowledged++;
      }
    });
  }
  for (std::thread& t : threads) t.join();
  EXPECT_EQ(acknowledged.load(), kThreads * kPerThread);
  EXPECT_EQ(store->HeadSeq(), kThreads * kPerThread);
  EXPECT_LT(store->stats().batches, kThreads * kPerThread);
  store.reset();
  store = Open();
  ASSERT_OK_AND_ASSIGN(auto events, store->ReadAll(0, kThreads * kPerThread + 1));
  EXPECT_EQ(events.size(), static_cast<size_t>(kThreads * kPerThread));
}

// A fold's read leaves out the columns a fold does not read, and empties them in the events
// the page held (EventFields::kForFolding).
TEST_F(SqliteEventStoreTest, ReadAllIntoForFoldingLeavesTheOtherFieldsEmpty) {
  auto store = Open();
  ASSERT_OK(store->Append(OneEvent("r1", "s/a")));
  ASSERT_OK(store->Append(OneEvent("r2", "s/b")));
  std::vector<RecordedEvent> page;
  ASSERT_OK(store->ReadAllInto(0, 10, EventFields::kAll, page));
  ASSERT_EQ(page.size(), 2u);
  ASSERT_FALSE(page[0].chain_hash.empty());
  ASSERT_OK(store->ReadAllInto(0, 10, EventFields::kForFolding, page));
  ASSERT_EQ(page.size(), 2u);
  for (const RecordedEvent& e : page) {
    SCOPED_TRACE(e.seq);
    EXPECT_EQ(e.payload, "p");
    EXPECT_EQ(e.type, kType);
    EXPECT_TRUE(e.event_id.empty());
    EXPECT_TRUE(e.metadata.empty());
    EXPECT_TRUE(e.digest.empty());
    EXPECT_TRUE(e.prev_chain_hash.empty());
    EXPECT_TRUE(e.chain_hash.empty());
    EXPECT_TRUE(e.stream_hash.empty());
  }
}

TEST_F(SqliteEventStoreTest, ExecuteAfterCloseIsCancelled) {
  auto store = Open();
  store->Close();
  EXPECT_THAT(store->Append(OneEvent("r", "s/a")), StatusIs(absl::StatusCode::kCancelled));
}

TEST_F(SqliteEventStoreTest, OpenRefusesUnknownEventTypes) {
  auto store = Open();
  ASSERT_OK(store->Append(AppendRequest{
      "r1",
      {StreamAppend{
          "s/a", ExpectedVersion::Any(), {NewEvent{"credledger.v9.FromTheFuture", 1, "", ""}}}}}));
  store.reset();
  SqliteEventStoreOptions options;
  options.path = db_path();
  EXPECT_THAT(
      SqliteEventStore::Open(options),
      StatusIs(absl::StatusCode::kFailedPrecondition,
               HasSubstr("\"credledger.v9.FromTheFuture\", which this binary does not know")));
}

TEST_F(SqliteEventStoreTest, OpenRefusesNewerSchemaVersionsOfKnownTypes) {
  auto store = Open();
  ASSERT_OK(store->Append(AppendRequest{
      "r1", {StreamAppend{"s/a", ExpectedVersion::Any(), {NewEvent{kType, 7, "", ""}}}}}));
  store.reset();
  SqliteEventStoreOptions options;
  options.path = db_path();
  EXPECT_THAT(SqliteEventStore::Open(options),
              StatusIs(absl::StatusCode::kFailedPrecondition,
                       HasSubstr("schema version 7, newer than this binary's 1")));
}

TEST_F(SqliteEventStoreTest, OpenRefusesADatabaseFromANewerBinary) {
  Open().reset();
  ASSERT_EQ(RawExec("INSERT INTO schema_migrations VALUES (9999, '9999_future.sql', 'x', 0)"), "");
  SqliteEventStoreOptions options;
  options.path = db_path();
  EXPECT_THAT(SqliteEventStore::Open(options),
              StatusIs(absl::StatusCode::kFailedPrecondition,
                       HasSubstr("schema version 9999 (9999_future.sql) is newer")));
}

TEST_F(SqliteEventStoreTest, CheckpointTriggersRefuseEditsAndForeignChainHashes) {
  auto store = Open();
  ASSERT_OK_AND_ASSIGN(auto appended, store->Append(OneEvent("r1", "s/a")));
  v1::Checkpoint checkpoint;
  checkpoint.set_seq(1);
  checkpoint.set_chain_hash(appended.events[0].chain_hash);
  checkpoint.set_key_id("k");
  checkpoint.set_signature("s");
  ASSERT_OK(store->SaveCheckpoint(checkpoint));
  store.reset();

  EXPECT_THAT(RawExec("UPDATE checkpoints SET signed_at_us = 1"),
              HasSubstr("append-only: UPDATE refused"));
  EXPECT_THAT(RawExec("DELETE FROM checkpoints"), HasSubstr("append-only: DELETE refused"));
  EXPECT_THAT(RawExec("INSERT INTO checkpoints VALUES (2, zeroblob(32), 1, 'k', x'00')"),
              HasSubstr("chain_hash of the event at seq"));
}

TEST_F(SqliteEventStoreTest, TheWalIsCheckpointedIntoTheDatabaseWhileTheWriterRuns) {
  auto store = Open();
  const std::string payload(2048, 'p');
  // About 8 MiB of events: twice SQLite's automatic checkpoint threshold (1000 pages).
  for (int i = 0; i < 400; ++i) {
    AppendRequest request{absl::StrCat("r", i), {StreamAppend{"s/a", ExpectedVersion::Any(), {}}}};
    for (int j = 0; j < 10; ++j) request.streams[0].events.push_back({kType, 1, "m", payload});
    ASSERT_OK(store->Append(request));
  }
  // Without checkpoints every page stays in the -wal file and the database keeps its first
  // page only.
  EXPECT_GT(std::filesystem::file_size(db_path()), 4u << 20);
  EXPECT_LT(std::filesystem::file_size(db_path().string() + "-wal"), 8u << 20);
}

TEST_F(SqliteEventStoreTest, ReadOnlyOpenReadsButNeverWrites) {
  auto store = Open();
  ASSERT_OK(store->Append(OneEvent("r1", "s/a")));
  ASSERT_OK(store->Append(OneEvent("r2", "s/b")));
  store.reset();
  const auto before = std::filesystem::last_write_time(db_path());

  SqliteEventStoreOptions options;
  options.path = db_path();
  options.read_only = true;
  ASSERT_OK_AND_ASSIGN(auto reader, SqliteEventStore::Open(options));
  EXPECT_EQ(reader->HeadSeq(), 2);
  ASSERT_OK_AND_ASSIGN(auto events, reader->ReadAll(0, 10));
  EXPECT_EQ(events.size(), 2u);
  EXPECT_THAT(reader->Append(OneEvent("r3", "s/a")),
              StatusIs(absl::StatusCode::kFailedPrecondition, HasSubstr("read-only")));
  EXPECT_EQ(reader->WaitForHead(2, absl::ZeroDuration()), 2);
  reader.reset();
  EXPECT_EQ(std::filesystem::last_write_time(db_path()), before);

  options.path = dir_.path() / "missing.db";
  EXPECT_THAT(SqliteEventStore::Open(options),
              StatusIs(absl::StatusCode::kFailedPrecondition, HasSubstr("no such database")));
  EXPECT_FALSE(std::filesystem::exists(options.path));
}

TEST_F(SqliteEventStoreTest, ReadOnlyOpenRefusesASchemaItWouldHaveToMigrate) {
  Open().reset();
  const int64_t newest = static_cast<int64_t>(EmbeddedMigrations().size());
  ASSERT_EQ(RawExec(absl::StrCat("DELETE FROM schema_migrations WHERE version = ", newest)), "");
  SqliteEventStoreOptions options;
  options.path = db_path();
  options.read_only = true;
  EXPECT_THAT(SqliteEventStore::Open(options),
              StatusIs(absl::StatusCode::kFailedPrecondition,
                       HasSubstr(absl::StrCat("schema version ", newest - 1, ", this binary reads ",
                                              newest, " read-only"))));
}

// A snapshot row keeps its seal (docs/audit.md, "Snapshots"), and the store lists every row
// by seq, then projection.
TEST_F(SqliteEventStoreTest, SnapshotsKeepTheirSealAndAreListedBySeq) {
  std::unique_ptr<SqliteEventStore> store = Open();
  for (int i = 1; i <= 20; ++i) ASSERT_OK(store->Append(OneEvent(absl::StrCat("r", i), "s/a")));
  auto at = [&](const std::string& projection, int64_t seq) {
    absl::StatusOr<std::optional<RecordedEvent>> event = store->ReadEvent(seq);
    EXPECT_TRUE(event.ok() && event->has_value());
    const std::string chain_hash = event.ok() && event->has_value() ? (*event)->chain_hash : "";
    return testing::PlaceholderSnapshot(projection, seq, "state", chain_hash);
  };
  ASSERT_OK(store->SaveSnapshot(at("credentials", 20)));
  ASSERT_OK(store->SaveSnapshot(at("status", 15)));
  ASSERT_OK(store->SaveSnapshot(at("credentials", 10)));

  ASSERT_OK_AND_ASSIGN(std::optional<Snapshot> loaded, store->LoadSnapshot("credentials", 19));
  ASSERT_TRUE(loaded.has_value());
  const Snapshot expected = at("credentials", 10);
  EXPECT_EQ(loaded->chain_hash, expected.chain_hash);
  EXPECT_EQ(loaded->state_sha256, expected.state_sha256);
  EXPECT_EQ(loaded->key_id, expected.key_id);
  EXPECT_EQ(loaded->signature, expected.signature);
  ASSERT_OK_AND_ASSIGN(std::vector<SnapshotId> ids, store->ListSnapshots());
  std::vector<std::string> listed;
  for (const SnapshotId& id : ids) listed.push_back(absl::StrCat(id.projection, "@", id.seq));
  EXPECT_THAT(listed, ::testing::ElementsAre("credentials@10", "status@15", "credentials@20"));
}

// A snapshot names an event of the log by its seq and chain hash, and carries a seal; the
// store refuses any other and writes nothing.
TEST_F(SqliteEventStoreTest, ASnapshotOfNoEventOrAnotherChainHashOrWithoutASealIsRefused) {
  std::unique_ptr<SqliteEventStore> store = Open();
  ASSERT_OK_AND_ASSIGN(AppendResult first, store->Append(OneEvent("r1", "s/a")));
  ASSERT_OK(store->Append(OneEvent("r2", "s/a")));
  const std::string& chain_1 = first.events[0].chain_hash;
  EXPECT_THAT(store->SaveSnapshot(testing::PlaceholderSnapshot("p", 2, "x", chain_1)),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("chain_hash differs from the chain_hash of seq 2")));
  EXPECT_THAT(
      store->SaveSnapshot(testing::PlaceholderSnapshot("p", 3, "x", chain_1)),
      StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("seq 3 is not an event of the log")));
  Snapshot unsigned_snapshot = testing::PlaceholderSnapshot("p", 1, "x", chain_1);
  unsigned_snapshot.signature.clear();
  EXPECT_THAT(store->SaveSnapshot(unsigned_snapshot),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("key_id and signature")));
  ASSERT_OK_AND_ASSIGN(std::vector<SnapshotId> none, store->ListSnapshots());
  EXPECT_TRUE(none.empty());
  // The trigger behind the check refuses a row naming another chain hash on insert.
  EXPECT_THAT(RawExec("INSERT INTO projection_snapshots VALUES ('p', 2, 1, x'00', "
                      "zeroblob(32), zeroblob(32), 'k', x'01')"),
              HasSubstr("must be the chain_hash of the event at seq"));
}

TEST_F(SqliteEventStoreTest, OpenRefusesAFileThatIsNotADatabase) {
  std::ofstream(db_path()) << "this is not a SQLite database, just text long enough to read";
  SqliteEventStoreOptions options;
  options.path = db_path();
  EXPECT_THAT(SqliteEventStore::Open(options), StatusIs(absl::StatusCode::kDataLoss));
}

}  // namespace sqlite_event_store_test
}  // namespace credledger::store
