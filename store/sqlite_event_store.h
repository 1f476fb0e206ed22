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
#include "store/event_codec.h"
#include "store/event_store.h"
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

class SqliteEventStore final : public EventStore {
 public:
  // Opens or creates the log and starts the writer (read-only: opens an existing log).
  // Errors: kInvalidArgument for an empty path, read_connections or max_batch_commands
  // below 1, or a vfs that is not registered; kFailedPrecondition for a newer schema, an
  // edited migration, or stored event types or schema versions this binary does not know,
  // and when read-only, for a missing file or a schema older than this binary's (migrate it
  // with a read-write open first); kDataLoss for a file that is not a SQLite database or is
  // corrupt; kUnavailable when the file is locked or unreadable.
  static absl::StatusOr<std::unique_ptr<SqliteEventStore>> Open(SqliteEventStoreOptions options);

  // Runs the commands already queued, then stops the writer (Close).
  ~SqliteEventStore() override;

  // Stops accepting commands (later ones get kCancelled), finishes the queued ones, joins the
  // writer and wakes WaitForHead callers. Idempotent; not to be called from two threads at
  // once.
  void Close();

  absl::Status Execute(Command command) override;
  absl::StatusOr<std::vector<RecordedEvent>> ReadAll(int64_t after_seq, int limit) override;
  absl::Status ReadAllInto(int64_t after_seq, int limit, EventFields fields,
                           std::vector<RecordedEvent>& page) override;
  absl::StatusOr<std::vector<RecordedEvent>> ReadStream(absl::string_view stream,
                                                        int64_t from_version,
                                                        int limit) override;
  int64_t HeadSeq() const override;
  absl::StatusOr<int64_t> SeqAtTime(int64_t time_us) override;
  int64_t WaitForHead(int64_t after_seq, absl::Duration timeout) const override;
  absl::StatusOr<std::optional<Snapshot>> LoadSnapshot(absl::string_view projection,
                                                       int64_t max_seq) override;
  absl::StatusOr<std::vector<SnapshotId>> ListSnapshots() override;
  absl::StatusOr<std::vector<RecordedEvent>> ReadFiltered(const EventFilter& filter,
                                                          int64_t after_seq,
                                                          int limit) override;
  absl::StatusOr<std::optional<v1::Checkpoint>> LatestCheckpoint() override;
  absl::StatusOr<std::vector<v1::Checkpoint>> ReadCheckpoints(int64_t after_seq,
                                                              int limit) override;

  // Counters since Open, for tests and metrics.
  struct Stats {
    int64_t batches = 0;   // committed or failed group commits
    int64_t commands = 0;  // commands run
    int64_t largest_batch = 0;
    int64_t queue_depth = 0;  // commands waiting for the writer right now
    int64_t events = 0;       // events appended by committed batches
    int64_t failed_batches = 0;  // group commits that committed nothing (busy, full disk,
                                 // I/O error, a closed write fence)
  };
  Stats stats() const;
  // Seconds from Execute to each command's answer (committed, rejected or failed), and
  // commands per group commit, since Open; read by the service's metrics
  // (docs/operations.md, "Metrics and health").
  const common::Histogram& append_latency() const { return append_latency_; }
  const common::Histogram& batch_sizes() const { return batch_sizes_; }

 private:
  struct Pending;
  struct Head {
    int64_t seq = 0;
    std::string chain_hash;
    int64_t recorded_at_us = 0;
  };
  class Transaction;
  class ReaderLease;

  explicit SqliteEventStore(SqliteEventStoreOptions options);
  absl::Status Initialize();
  absl::Status InitializeReadOnly();
  // Refuses a log holding event types or schema versions the codec does not know.
  absl::Status CheckStoredTypes(Connection& db);
  absl::StatusOr<Head> LoadHead(Connection& db);
  void WriterLoop();
  bool HasWorkOrClosing() const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void RunBatch(std::vector<Pending*>& batch);
  absl::StatusOr<ReaderLease> AcquireReader();
  void ReleaseReader(std::unique_ptr<Connection> reader);

  const SqliteEventStoreOptions options_;

  // Writer-thread state (and Open, before the thread starts).
  std::unique_ptr<Connection> writer_;
  std::unique_ptr<Transaction> transaction_;
  Head head_;

  mutable absl::Mutex mu_;
  std::deque<Pending*> queue_ ABSL_GUARDED_BY(mu_);
  bool closing_ ABSL_GUARDED_BY(mu_) = false;
  int64_t committed_seq_ ABSL_GUARDED_BY(mu_) = 0;
  Stats stats_ ABSL_GUARDED_BY(mu_);
  // 0.5 ms to about 8 s, doubling; 1 to 1024 commands, doubling.
  common::Histogram append_latency_{common::ExponentialBuckets(0.0005, 2, 15)};
  common::Histogram batch_sizes_{common::ExponentialBuckets(1, 2, 11)};
  std::thread writer_thread_;

  absl::Mutex readers_mu_;
  std::vector<std::unique_ptr<Connection>> readers_ ABSL_GUARDED_BY(readers_mu_);
};

}  // namespace credledger::store
