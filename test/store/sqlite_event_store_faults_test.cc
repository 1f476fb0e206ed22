// Storage faults under the event log (docs/testing.md, "Faults"): another connection holding
// the write lock, a full disk and failing fsyncs, injected through FaultyVfs under a real
// SQLite file. The rules (docs/design.md, "Group commit"; docs/architecture.md, "Faults"): a
// failed group commit fails every command of it with kUnavailable and leaves nothing; no
// command is acknowledged before its commit is durable; reads go on during the fault; once it
// clears, appends continue at the next seq and the whole chain verifies.
#include <sqlite3.h>

#include <atomic>
#include <filesystem>
#include <functional>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "audit/log_verifier.h"
#include "audit/signing_key.h"
#include "audit/snapshot_seal.h"
#include "credledger/v1/events.pb.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "store/log_hash.h"
#include "store/sqlite_event_store.h"
#include "test/store/writer_gate.h"
#include "test/support/faulty_vfs.h"
#include "test/support/status_matchers.h"
#include "test/support/temp_dir.h"

namespace credledger::store {
namespace sqlite_event_store_faults_test {

using ::credledger::testing::FaultyVfs;
using ::credledger::testing::StatusIs;
using ::credledger::testing::WaitQueueDepth;
using ::credledger::testing::WriterGate;
using ::testing::AllOf;
using ::testing::HasSubstr;

// `count` ServiceConfigured events for `stream` on behalf of `request_id`, each with
// `url_bytes` characters of URL (to make events as big as a test needs).
AppendRequest Event(const std::string& request_id, const std::string& stream,
                    size_t url_bytes = 8, size_t count = 1) {
  v1::ServiceConfigured payload;
  payload.set_agent_apiserver_url(std::string(url_bytes, 'u'));
  v1::EventMetadata metadata;
  metadata.set_actor("alice");
  metadata.set_request_id(request_id);
  const NewEvent event{"credledger.v1.ServiceConfigured", 1, metadata.SerializeAsString(),
                       payload.SerializeAsString()};
  return AppendRequest{
      request_id,
      {StreamAppend{stream, ExpectedVersion::Any(), std::vector<NewEvent>(count, event)}}};
}

// What AppendInOneBatch's commands answered.
struct BatchResults {
  absl::Status gate;                   // the command that held the writer (a batch of its own)
  std::vector<absl::Status> requests;  // the requests, in order (one batch together)
};

class SqliteEventStoreFaultsTest : public ::testing::Test {
 protected:
  SqliteEventStoreFaultsTest() : vfs_("credledger-test-faulty") {}

  void SetUp() override {
    auto key = audit::SigningKey::Generate();
    ASSERT_OK(key);
    key_ = std::make_unique<audit::SigningKey>(*std::move(key));
    store_ = Open(db_path());
    ASSERT_NE(store_, nullptr);
  }

  std::filesystem::path db_path() const { return dir_.path() / "events.db"; }

  // Holds the writer in a command of its own, runs `while_held` (to arm a fault), queues
  // `requests` behind it, so that they form the next batch together, and lets it go.
  BatchResults AppendInOneBatch(const std::vector<AppendRequest>& requests,
                                const std::function<void()>& while_held) {
    WriterGate gate;
    BatchResults results{absl::OkStatus(), std::vector<absl::Status>(requests.size())};
    std::thread blocker(
        [&] { results.gate = store_->Execute(gate.Blocker(Event("gate", "s/gate"))); });
    gate.WaitEntered();
    while_held();
    std::vector<std::thread> clients;
    for (size_t i = 0; i < requests.size(); ++i) {
      clients.emplace_back(
          [&, i] { results.requests[i] = store_->Append(requests[i]).status(); });
      WaitQueueDepth(*store_, static_cast<int64_t>(i + 1));
    }
    gate.Release();
    blocker.join();
    for (std::thread& t : clients) t.join();
    return results;
  }

  // A store on `path` through the faulty VFS, with a busy timeout short enough for a test.
  std::unique_ptr<SqliteEventStore> Open(const std::filesystem::path& path) {
    SqliteEventStoreOptions options;
    options.path = path;
    options.vfs = vfs_.name();
    options.busy_timeout = absl::Milliseconds(50);
    options.clock = &clock_;
    auto store = SqliteEventStore::Open(options);
    EXPECT_OK(store);
    return store.ok() ? *std::move(store) : nullptr;
  }

  // The number of event rows as a separate connection (SQLite's default VFS) sees them.
  int64_t StoredRows() {
    sqlite3* db = nullptr;
    EXPECT_EQ(sqlite3_open_v2(db_path().c_str(), &db, SQLITE_OPEN_READONLY, nullptr), SQLITE_OK);
    sqlite3_stmt* stmt = nullptr;
    int64_t rows = -1;
    if (sqlite3_prepare_v2(db, "SELECT COUNT(*) FROM events", -1, &stmt, nullptr) == SQLITE_OK &&
        sqlite3_step(stmt) == SQLITE_ROW) {
      rows = sqlite3_column_int64(stmt, 0);
    }
    sqlite3_finalize(stmt);
    sqlite3_close(db);
    return rows;
  }

  // Checks the whole log of `store` with audit::VerifyLog: seqs 1..head without a gap, every
  // digest and link, the head the store reports.
  void ExpectLogVerifies(SqliteEventStore& store, int64_t head) {
    EXPECT_EQ(store.HeadSeq(), head);
    ASSERT_OK_AND_ASSIGN(audit::Verdict verdict,
                         audit::VerifyLog(store, key_->public_key(), head));
    EXPECT_TRUE(verdict.ok()) << audit::FormatVerdict(verdict);
    EXPECT_EQ(verdict.events, head);
    EXPECT_EQ(verdict.last_seq, head);
  }

  testing::TempDir dir_;
  FaultyVfs vfs_;  // outlives every store of the test
  common::FakeClock clock_;
  std::unique_ptr<audit::SigningKey> key_;
  std::unique_ptr<SqliteEventStore> store_;
};

TEST_F(SqliteEventStoreFaultsTest, OpenRefusesAVfsThatIsNotRegistered) {
  SqliteEventStoreOptions options;
  options.path = dir_.path() / "other.db";
  options.vfs = "no-such-vfs";
  EXPECT_THAT(SqliteEventStore::Open(options),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("vfs \"no-such-vfs\" is not a registered SQLite VFS")));
  EXPECT_FALSE(std::filesystem::exists(options.path));
}

TEST_F(SqliteEventStoreFaultsTest, AWriteLockHeldPastTheBusyTimeoutFailsUnavailableUntilReleased) {
  ASSERT_OK(store_->Append(Event("r1", "s/a")));
  sqlite3* other = nullptr;
  ASSERT_EQ(sqlite3_open(db_path().c_str(), &other), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(other, "BEGIN IMMEDIATE", nullptr, nullptr, nullptr), SQLITE_OK);

  EXPECT_THAT(store_->Append(Event("r2", "s/a")),
              StatusIs(absl::StatusCode::kUnavailable,
                       HasSubstr("locked by another connection for longer than the busy "
                                 "timeout (50ms)")));
  EXPECT_EQ(store_->HeadSeq(), 1);
  EXPECT_EQ(StoredRows(), 1);

  ASSERT_EQ(sqlite3_exec(other, "ROLLBACK", nullptr, nullptr, nullptr), SQLITE_OK);
  sqlite3_close(other);
  ASSERT_OK_AND_ASSIGN(AppendResult retried, store_->Append(Event("r2", "s/a")));
  EXPECT_FALSE(retried.replayed);
  EXPECT_EQ(retried.events[0].seq, 2);
  ExpectLogVerifies(*store_, 2);
}

TEST_F(SqliteEventStoreFaultsTest, AFullDiskFailsEveryCommandOfTheGroupCommitAndWritesNothing) {
  ASSERT_OK(store_->Append(Event("r0", "s/a")));
  const BatchResults results =
      AppendInOneBatch({Event("r1", "s/1"), Event("r2", "s/2"), Event("r3", "s/3")},
                       [&] { vfs_.SetSpaceLimit(vfs_.UsedBytes()); });

  EXPECT_THAT(results.gate, StatusIs(absl::StatusCode::kUnavailable, HasSubstr("full")));
  for (const absl::Status& result : results.requests) {
    EXPECT_THAT(result, StatusIs(absl::StatusCode::kUnavailable,
                                 AllOf(HasSubstr("batch of 3 commands not committed"),
                                       HasSubstr("database or disk is full"))));
  }
  EXPECT_EQ(store_->stats().largest_batch, 3);
  EXPECT_GT(vfs_.refused_writes(), 0);
  EXPECT_EQ(store_->HeadSeq(), 1);
  EXPECT_EQ(StoredRows(), 1);
}

TEST_F(SqliteEventStoreFaultsTest, AFullDiskWhileACommandSpillsPagesFailsItsWholeBatch) {
  ASSERT_OK(store_->Append(Event("r0", "s/a")));
  // About 1200 changed pages, more than the page cache holds: SQLite writes pages to the
  // WAL in the middle of the command, and those writes hit the full disk, which rolls back
  // the whole transaction, the commands before it in the batch included.
  const std::vector<AppendRequest> requests = {
      Event("r1", "s/a"), Event("big", "s/big", 4000, 600), Event("r2", "s/a")};
  const BatchResults results = AppendInOneBatch(requests, [&] {
    // Room for the gate's small commit, not for the big command.
    vfs_.SetSpaceLimit(vfs_.UsedBytes() + (256 << 10));
  });

  EXPECT_OK(results.gate);
  for (const absl::Status& result : results.requests) {
    EXPECT_THAT(result, StatusIs(absl::StatusCode::kUnavailable,
                                 AllOf(HasSubstr("batch of 3 commands not committed"),
                                       HasSubstr("database or disk is full"))));
  }
  EXPECT_EQ(store_->HeadSeq(), 2);
  EXPECT_EQ(StoredRows(), 2);

  vfs_.LiftSpaceLimit();
  for (const AppendRequest& request : requests) ASSERT_OK(store_->Append(request));
  ExpectLogVerifies(*store_, 2 + 1 + 600 + 1);
}

TEST_F(SqliteEventStoreFaultsTest, ReadsGoOnWhileTheDiskIsFullAndWritesResumeWhenSpaceReturns) {
  ASSERT_OK_AND_ASSIGN(AppendResult first, store_->Append(Event("r1", "s/a")));
  ASSERT_OK_AND_ASSIGN(AppendResult second, store_->Append(Event("r2", "s/b")));
  // A snapshot of the event `e`, sealed with the key the log is verified with.
  auto snapshot_of = [this](const RecordedEvent& e, const std::string& state) {
    Snapshot snapshot{.projection = "proj", .seq = e.seq, .state = state};
    EXPECT_OK(audit::SealSnapshot(*key_, e.chain_hash, snapshot));
    return snapshot;
  };
  ASSERT_OK(store_->SaveSnapshot(snapshot_of(second.events[0], "state-at-2")));
  vfs_.SetSpaceLimit(vfs_.UsedBytes());

  EXPECT_THAT(store_->Append(Event("r3", "s/a")),
              StatusIs(absl::StatusCode::kUnavailable, HasSubstr("full")));
  EXPECT_THAT(store_->SaveSnapshot(snapshot_of(first.events[0], "state-at-1")),
              StatusIs(absl::StatusCode::kUnavailable));
  EXPECT_EQ(store_->HeadSeq(), 2);
  ASSERT_OK_AND_ASSIGN(auto all, store_->ReadAll(0, 10));
  ASSERT_EQ(all.size(), 2u);
  EXPECT_EQ(all[1].chain_hash, second.events[0].chain_hash);
  ASSERT_OK_AND_ASSIGN(auto stream, store_->ReadStream("s/a", 0, 10));
  ASSERT_EQ(stream.size(), 1u);
  EXPECT_EQ(stream[0].event_id, first.events[0].event_id);
  ASSERT_OK_AND_ASSIGN(auto snapshot, store_->LoadSnapshot("proj", 10));
  ASSERT_TRUE(snapshot.has_value());
  EXPECT_EQ(snapshot->state, "state-at-2");
  ExpectLogVerifies(*store_, 2);

  vfs_.LiftSpaceLimit();
  ASSERT_OK_AND_ASSIGN(AppendResult third, store_->Append(Event("r3", "s/a")));
  EXPECT_FALSE(third.replayed);
  EXPECT_EQ(third.events[0].seq, 3);
  EXPECT_EQ(third.events[0].prev_chain_hash, second.events[0].chain_hash);
  EXPECT_EQ(third.events[0].stream_version, 1);
  ExpectLogVerifies(*store_, 3);
}

TEST_F(SqliteEventStoreFaultsTest, AFailedFsyncAtCommitAcknowledgesNothingAndAppendsGoOnAfterIt) {
  ASSERT_OK(store_->Append(Event("r1", "s/a")));
  vfs_.FailSyncs(FaultyVfs::kWal);
  EXPECT_THAT(store_->Append(Event("r2", "s/a")),
              StatusIs(absl::StatusCode::kUnavailable,
                       AllOf(HasSubstr("not committed"), HasSubstr("fsync failed"))));
  EXPECT_GT(vfs_.failed_syncs(), 0);
  EXPECT_EQ(store_->HeadSeq(), 1);
  ASSERT_OK_AND_ASSIGN(auto events, store_->ReadAll(0, 10));
  EXPECT_EQ(events.size(), 1u);

  vfs_.FailSyncs(0);
  ASSERT_OK_AND_ASSIGN(AppendResult next, store_->Append(Event("r3", "s/a")));
  EXPECT_EQ(next.events[0].seq, 2);
  EXPECT_EQ(next.events[0].stream_version, 1);
  ASSERT_OK_AND_ASSIGN(AppendResult retried, store_->Append(Event("r2", "s/a")));
  EXPECT_FALSE(retried.replayed);
  EXPECT_EQ(retried.events[0].seq, 3);
  ExpectLogVerifies(*store_, 3);

  store_.reset();
  store_ = Open(db_path());
  ASSERT_NE(store_, nullptr);
  ExpectLogVerifies(*store_, 3);
}

TEST_F(SqliteEventStoreFaultsTest, ACommitWhoseFsyncFailedMayStillReachTheFileAndARetryFindsIt) {
  ASSERT_OK(store_->Append(Event("r1", "s/a")));
  vfs_.FailSyncs(FaultyVfs::kWal);
  ASSERT_THAT(store_->Append(Event("r2", "s/a")), StatusIs(absl::StatusCode::kUnavailable));
  vfs_.FailSyncs(0);

  // What a crash now would leave: the database and its WAL as they are, without the
  // shared-memory index, so the copy's first open recovers the WAL from its frames.
  const std::filesystem::path crash = dir_.path() / "crash";
  std::filesystem::create_directory(crash);
  std::filesystem::copy_file(db_path(), crash / "events.db");
  std::filesystem::copy_file(db_path().string() + "-wal", crash / "events.db-wal");
  auto recovered = Open(crash / "events.db");
  ASSERT_NE(recovered, nullptr);

  // The frames of the failed commit were written before the fsync failed: the recovered
  // log holds the unacknowledged event, and the client's retry is answered from it.
  ASSERT_OK_AND_ASSIGN(auto events, recovered->ReadAll(0, 10));
  ASSERT_EQ(events.size(), 2u);
  EXPECT_EQ(events[1].event_id, EventIdFor("r2", 0));
  ASSERT_OK_AND_ASSIGN(AppendResult retried, recovered->Append(Event("r2", "s/a")));
  EXPECT_TRUE(retried.replayed);
  EXPECT_EQ(retried.events[0].seq, 2);
  ExpectLogVerifies(*recovered, 2);

  // The live store never saw that commit and appends the retry once.
  ASSERT_OK_AND_ASSIGN(AppendResult live, store_->Append(Event("r2", "s/a")));
  EXPECT_FALSE(live.replayed);
  EXPECT_EQ(live.events[0].seq, 2);
  ExpectLogVerifies(*store_, 2);
}

TEST_F(SqliteEventStoreFaultsTest, AFailedFsyncInTheCheckpointAfterACommitKeepsItAcknowledged) {
  ASSERT_OK(store_->Append(Event("r1", "s/a")));
  vfs_.FailSyncs(FaultyVfs::kDatabase);
  // About 1800 pages in one commit, over SQLite's 1000-page threshold: it checkpoints the
  // WAL into the database file right after the commit, and that checkpoint's fsync of the
  // database file fails.
  ASSERT_OK_AND_ASSIGN(AppendResult appended,
                       store_->Append(Event("big", "s/big", 10000, 600)));
  EXPECT_GT(vfs_.failed_syncs(), 0);
  EXPECT_EQ(appended.events.back().seq, 601);
  EXPECT_EQ(store_->HeadSeq(), 601);
  EXPECT_EQ(StoredRows(), 601);

  vfs_.FailSyncs(0);
  ASSERT_OK_AND_ASSIGN(AppendResult next, store_->Append(Event("r2", "s/a")));
  EXPECT_EQ(next.events[0].seq, 602);
  ExpectLogVerifies(*store_, 602);
}

// A lost Lease (docs/operations.md, "The Lease fence"): the fence is asked before every commit,
// and while it refuses, every command of the batch fails with its error and nothing reaches the
// file.
TEST_F(SqliteEventStoreFaultsTest, AClosedWriteFenceCommitsNothingUntilItOpensAgain) {
  store_.reset();
  std::atomic<bool> fence_open{true};
  SqliteEventStoreOptions options;
  options.path = db_path();
  options.clock = &clock_;
  options.write_fence = [&fence_open]() -> absl::Status {
    return fence_open.load() ? absl::OkStatus() : absl::UnavailableError("lease lost");
  };
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<SqliteEventStore> fenced, SqliteEventStore::Open(options));
  ASSERT_OK(fenced->Append(Event("r1", "s/a")));
  fence_open = false;
  EXPECT_THAT(fenced->Append(Event("r2", "s/a")),
              StatusIs(absl::StatusCode::kUnavailable, HasSubstr("lease lost")));
  EXPECT_EQ(fenced->HeadSeq(), 1);
  EXPECT_EQ(StoredRows(), 1);
  EXPECT_EQ(fenced->stats().failed_batches, 1);
  fence_open = true;
  ASSERT_OK_AND_ASSIGN(AppendResult next, fenced->Append(Event("r2", "s/a")));
  ASSERT_EQ(next.events.size(), 1u);
  EXPECT_EQ(next.events[0].seq, 2);
  EXPECT_EQ(fenced->stats().failed_batches, 1);
  ExpectLogVerifies(*fenced, 2);
}

}  // namespace sqlite_event_store_faults_test
}  // namespace credledger::store
