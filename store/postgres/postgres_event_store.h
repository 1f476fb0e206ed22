// PostgresEventStore: the EventStore on a PostgreSQL database (docs/postgres.md), with the
// bytes, hashes and guarantees of the SQLite log (docs/log-format.md).
//
// One writer thread group-commits queued commands as SqliteEventStore does, but decides them
// in memory: seq, hashes and stream versions come from the writer's head and its caches of
// every stream's head and of the event ids already used (docs/postgres.md, "The writer"), and
// a batch goes to the server as one libpq pipeline: BEGIN, the fence's compare-and-set on the
// log_writer row, the rows, COMMIT. While one batch is at the server, the writer decides the
// commands queued meanwhile on top of it and sends them behind it; batches are answered, and
// the committed head published, in order. Commit order is seq order, so a reader paging
// `seq > after` never sees a gap.
//
// Opening read-write takes the writer's epoch (log_writer.epoch + 1): from then on a writer
// that opened earlier commits nothing more, and stops (docs/postgres.md, "The fence").
//
// Faults (docs/postgres.md, "Errors"): a batch the server refuses fails, and its commands are
// run again one batch each so only the failing one fails (a batch decided on top of a failed
// one runs again too, or fails with it when the connection was lost); a lost connection or a
// read-only
// server fails the batch kUnavailable (the outcome of a COMMIT in flight is unknown: the
// writer reconnects and reloads its head and caches from the database, and a retry with the
// same request id gets the original answer or appends once); a taken-over epoch fails it
// kFailedPrecondition and every later command too. A read whose pooled connection the server
// ended runs again on another.
//
// Thread-safety: all public methods are thread-safe. Commands run on the writer thread, and
// may run more than once (a refused batch is retried one command at a time, a batch decided on
// top of it runs again); only the effects of the run whose batch committed count.
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/synchronization/mutex.h"
#include "common/clock.h"
#include "common/histogram.h"
#include "store/connection_pool.h"
#include "store/event_codec.h"
#include "store/event_log.h"
#include "store/event_store.h"
#include "store/log_hash.h"
#include "store/postgres/pg.h"

namespace credledger::store {

struct PostgresEventStoreOptions {
  // libpq connection string (URI or keyword/value). The password comes from PGPASSWORD, a
  // password file (PGPASSFILE, passfile=) or the string; the string is never logged.
  std::string conninfo;
  // The password, when not from the environment or a password file; never logged.
  std::string password;
  // Written to log_writer.holder when this store takes the epoch: who writes (a pod name).
  std::string holder = "credledger";
  // Source of recorded_at_us. Not owned; must outlive the store.
  common::Clock* clock = common::RealClock::Default();
  // Upper bound on the commands of one group commit.
  int max_batch_commands = 1024;
  // Connections kept in the read pool (>= 1).
  int read_connections = 4;
  // Known event types and upcasters. Not owned.
  const EventCodec* codec = &EventCodec::Default();
  // Opens an existing log for reading only: no migration, no epoch, no writer; Execute
  // answers kFailedPrecondition.
  bool read_only = false;
  // How long connecting may take: whole seconds, at least 2 (libpq's floor), for each host the
  // connection string names (docs/postgres.md, "Errors").
  absl::Duration connect_timeout = absl::Seconds(10);
  // Asked by the writer right before every batch is sent; an error (kUnavailable from a lost
  // Lease) fails every command of it with that error. Empty: no fence beyond the epoch.
  std::function<absl::Status()> write_fence = {};
  // Called once, on the writer thread, with the reason when this store stops writing for good:
  // another writer took the epoch, or the database lost events this writer had acknowledged.
  // Every later command fails with that reason; the service shuts down on it. Empty: nothing.
  std::function<void(const absl::Status&)> on_stopped = {};
};

class PostgresEventStore final : public EventLog {
 public:
  // Connects, applies the migrations (read-write), checks the stored event types, takes the
  // writer's epoch, checks that the log_writer row names the events table's head, loads the
  // caches and starts the writer.
  // Errors: kInvalidArgument for an empty conninfo or a bound below 1, or a conninfo that
  // does not parse; kUnavailable when the server cannot be reached; kFailedPrecondition for
  // a newer or edited schema, unknown stored event types, a missing privilege, and when
  // read-only, a schema older than this binary's; kDataLoss when log_writer and the events
  // table disagree about the head.
  static absl::StatusOr<std::unique_ptr<PostgresEventStore>> Open(
      PostgresEventStoreOptions options);

  // Runs the commands already queued, then stops the writer (EventLog::Close).
  ~PostgresEventStore() override;

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

  // What only a PostgreSQL writer has to tell, since Open (docs/postgres.md).
  struct PostgresWriterState {
    int64_t epoch = 0;            // the writer's epoch (0 when read-only)
    int64_t retried_batches = 0;  // refused batches whose commands ran again one by one
    int64_t reconnects = 0;       // times the writer reconnected and reloaded its caches
    bool fenced = false;          // another writer took the epoch: nothing is written anymore
  };
  PostgresWriterState writer_state() const;
  int64_t writer_epoch() const override { return writer_state().epoch; }
  // PgErrorsByClass (counted for the whole process).
  std::map<std::string, int64_t> database_errors() const override { return PgErrorsByClass(); }

 private:
  using Head = LogHead;
  struct StreamHead {
    int64_t version = -1;
    std::string hash;
  };
  class Transaction;
  using ReaderLease = ConnectionPool<PgConnection>::Lease;

  explicit PostgresEventStore(PostgresEventStoreOptions options);
  absl::Status Initialize();
  // Connects the writer, takes (`take_epoch`) or checks the epoch, and loads head and caches.
  absl::Status ConnectWriter(bool take_epoch);
  absl::Status LoadCaches(PgConnection& db);
  // Stops writing for good with `reason` (logged, on_stopped called, once); returns the reason
  // the store stopped with.
  absl::Status Stop(absl::Status reason);
  // Stop because another writer took the epoch (kFailedPrecondition).
  absl::Status Fenced();
  // A batch RunBatch took and has not completed (docs/postgres.md, "The writer").
  struct InFlight {
    std::vector<Pending*> batch;
    // Results still to read of the statements sent; 0 when nothing was sent (no command
    // appended anything, or the batch failed before it was sent with `outcome`).
    size_t statements = 0;
    absl::Status outcome;
    // Its rows and undo entries in the transaction, and the newest checkpoint after it.
    size_t rows = 0;
    size_t undo = 0;
    int64_t newest_checkpoint = 0;
  };
  // Decides `batch` on top of the batches in flight and sends it, leaving at most one batch
  // waiting at the server behind the one it runs.
  void RunBatch(std::vector<Pending*>& batch) override;
  bool BatchInFlight() const override { return !in_flight_.empty(); }
  // Reads the oldest batch's answers and completes it, or handles its failure (FailInFlight).
  void FinishBatch() override;
  // RunBatch, then finishes every batch in flight.
  void RunAlone(std::vector<Pending*> batch);
  // The commands of `batch` decided in memory and, when they appended anything, sent.
  InFlight DecideAndSend(std::vector<Pending*>& batch);
  // Sends the transaction's current batch, which starts at head seq `from_seq`, as one
  // pipeline; returns how many results it will answer. Errors: kUnavailable when sending fails.
  absl::StatusOr<size_t> SendBatch(int64_t from_seq);
  // Reads `statements` results and the sync. Returns the first failure (PgError's, counted;
  // with `check` false only a lost connection), kUnavailable when the connection closed.
  absl::Status ReadResults(size_t statements, bool check);
  // The oldest batch in flight failed with `outcome`. Every later one was decided on top of it
  // and fails too: their answers are read and any open transaction rolled back, the caches
  // are undone to the committed head, and then the failed batch's commands run again one at a
  // time when the server refused a statement (so only the refused one fails), and the later
  // batches run again; after a lost connection or a stop, all of them fail with `outcome`.
  void FailInFlight(absl::Status outcome);
  // Answers `batch` with `outcome` (docs/postgres.md, "Errors"); `all` also replaces the
  // errors commands met on their own (decided on top of a batch that did not commit).
  void FailBatch(std::vector<Pending*>& batch, const absl::Status& outcome, bool all);
  // Runs one statement on a connection of the read pool, prepared and kept on it or, with
  // `prepare` false (SQL built per call), run once. A connection the server ended since it was
  // last used (a restart, a switchover) is dropped and the statement runs on another.
  // Errors: PgError's, naming `context`; those of PgConnection::Open.
  absl::StatusOr<PgResult> Read(absl::string_view sql, const PgParams& params,
                                absl::string_view context, bool prepare = true);

  const PostgresEventStoreOptions options_;

  // Writer-thread state.
  std::unique_ptr<PgConnection> writer_;
  // The writer's statements, prepared on writer_ when it connects.
  struct Statements {
    const PgStatement* advance = nullptr;
    const PgStatement* insert = nullptr;
    const PgStatement* snapshot = nullptr;
    const PgStatement* checkpoint = nullptr;
  } statements_;
  std::deque<InFlight> in_flight_;
  std::unique_ptr<Transaction> transaction_;
  Head head_;
  int64_t epoch_ = 0;
  int64_t newest_checkpoint_ = 0;
  absl::flat_hash_map<std::string, StreamHead> streams_;
  // The first 8 bytes of every stored event id: a request whose first id is absent was never
  // appended; one present is looked up in the database.
  absl::flat_hash_set<uint64_t> id_prefixes_;
  // OK while this store may write; else why it stopped (Stop).
  absl::Status stopped_;
  bool reconnect_ = false;

  mutable absl::Mutex state_mu_;
  PostgresWriterState state_ ABSL_GUARDED_BY(state_mu_);

  // Read connections; a lost one is not kept.
  ConnectionPool<PgConnection> readers_;
};

}  // namespace credledger::store
