// SqliteEventStore: the EventStore on one SQLite database file (docs/design.md, "Storage"
// and "Group commit").
//
// WAL mode, synchronous=FULL by default, foreign keys and recursive triggers on, a busy
// timeout, BEGIN IMMEDIATE for writes. One writer thread owns the write connection and
// group-commits queued commands: it drains whatever is queued (no timer, at most
// `max_batch_commands`) into one transaction, runs each command inside its own SAVEPOINT,
// and acknowledges all of them after one durable COMMIT. Reads use a small pool of separate
// connections, each call one short read transaction.
//
// Open refuses a database whose schema or stored event types are newer than this binary.
//
// Faults (docs/architecture.md, "Faults"): when the write lock stays taken past the
// busy timeout, the disk is full or an fsync fails, the batch is not committed and each of
// its commands that did not fail on its own gets kUnavailable naming the cause; the head
// stays at the batch's start (SQLite shows a WAL commit only after its fsync succeeded) and
// the next batch goes on from there. Reads keep working meanwhile.
//
// Thread-safety: all public methods are thread-safe. Commands run on the writer thread.
#pragma once

#include <atomic>
#include <deque>
#include <filesystem>
#include <functional>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "common/clock.h"
#include "common/histogram.h"
#include "store/connection_pool.h"
#include "store/event_codec.h"
#include "store/event_log.h"
#include "store/event_store.h"
#include "store/log_hash.h"
#include "store/sqlite.h"

namespace credledger::store {

struct SqliteEventStoreOptions {
  // Database file; created with the schema when missing.
  std::filesystem::path path;
  // PRAGMA synchronous: FULL (default) fsyncs the WAL on every commit; NORMAL may lose the
  // last commits on power loss (never corrupts).
  enum class Synchronous { kNormal, kFull };
  Synchronous synchronous = Synchronous::kFull;
  // How long a write or read waits for another connection's lock before kUnavailable.
  absl::Duration busy_timeout = absl::Seconds(5);
  // Source of recorded_at_us. Not owned; must outlive the store.
  common::Clock* clock = common::RealClock::Default();
  // Upper bound on the commands of one group commit.
  int max_batch_commands = 1024;
  // Connections in the read pool (>= 1).
  int read_connections = 4;
  // Known event types and upcasters. Not owned.
  const EventCodec* codec = &EventCodec::Default();
  // Opens an existing log for reading only (investigation, `verify --db`): no migration,
  // no writer; Execute answers kFailedPrecondition and the file is never written.
  bool read_only = false;
  // Name of a registered SQLite VFS (sqlite3_vfs_register) every connection opens the file
  // through; empty: SQLite's default. Tests inject storage faults with it
  // (test/support/faulty_vfs.h).
  std::string vfs = {};
  // Asked by the writer right before every commit; an error (kUnavailable from a lost Lease,
  // kubebridge/client/lease_fence.h) rolls the batch back and every command of it fails with that
  // error. Empty: no fence (docs/design.md, "One writer").
  std::function<absl::Status()> write_fence = {};
};

class SqliteEventStore final : public EventLog {
 public:
  // Opens or creates the log and starts the writer (read-only: opens an existing log).
  // Errors: kInvalidArgument for an empty path, read_connections or max_batch_commands
  // below 1, or a vfs that is not registered; kFailedPrecondition for a newer schema, an
  // edited migration, or stored event types or schema versions this binary does not know,
  // and when read-only, for a missing file or a schema older than this binary's (migrate it
  // with a read-write open first); kDataLoss for a file that is not a SQLite database or is
  // corrupt; kUnavailable when the file is locked or unreadable.
  static absl::StatusOr<std::unique_ptr<SqliteEventStore>> Open(SqliteEventStoreOptions options);

  // Runs the commands already queued, then stops the writer (EventLog::Close).
  ~SqliteEventStore() override;

  absl::StatusOr<std::vector<RecordedEvent>> ReadAll(int64_t after_seq, int limit) override;
  absl::Status ReadAllInto(int64_t after_seq, int limit, EventFields fields,
                           std::vector<RecordedEvent>& page) override;
  absl::StatusOr<std::vector<RecordedEvent>> ReadStream(absl::string_view stream,
                                                        int64_t from_version, int limit) override;
  absl::StatusOr<RequestProbe> ProbeRequest(absl::string_view request_id,
                                            absl::string_view stream) override;
  absl::StatusOr<int64_t> SeqAtTime(int64_t time_us) override;
  absl::StatusOr<std::optional<Snapshot>> LoadSnapshot(absl::string_view projection,
                                                       int64_t max_seq) override;
  absl::StatusOr<std::vector<SnapshotId>> ListSnapshots() override;
  absl::StatusOr<std::vector<RecordedEvent>> ReadFiltered(const EventFilter& filter,
                                                          int64_t after_seq, int limit) override;
  absl::StatusOr<std::optional<v1::Checkpoint>> LatestCheckpoint() override;
  absl::StatusOr<std::vector<v1::Checkpoint>> ReadCheckpoints(int64_t after_seq,
                                                              int limit) override;

 private:
  using Head = LogHead;
  class Transaction;
  using ReaderLease = ConnectionPool<Connection>::Lease;

  explicit SqliteEventStore(SqliteEventStoreOptions options);
  absl::Status Initialize();
  absl::Status InitializeReadOnly();
  // Refuses a log holding event types or schema versions the codec does not know.
  absl::Status CheckStoredTypes(Connection& db);
  absl::StatusOr<Head> LoadHead(Connection& db);
  void RunBatch(std::vector<Pending*>& batch) override;
  // A new read connection (read_only, query_only). Errors: Connection::Open's.
  absl::StatusOr<std::unique_ptr<Connection>> OpenReader() const;

  const SqliteEventStoreOptions options_;

  // Writer-thread state (and Open, before the thread starts).
  std::unique_ptr<Connection> writer_;
  std::unique_ptr<Transaction> transaction_;
  Head head_;

  ConnectionPool<Connection> readers_;
};

}  // namespace credledger::store
