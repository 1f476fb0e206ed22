// The private parts of PostgresEventStore that its files share (postgres_event_store.cc: open,
// the fence and the writer; postgres_event_store_reads.cc: the read pool and reads;
// postgres_write_transaction.cc: the transaction a command sees). Not for use outside them.
#pragma once

#include <cstdint>
#include <deque>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "store/postgres/pg.h"
#include "store/postgres/postgres_event_rows.h"
#include "store/postgres/postgres_event_store.h"

namespace credledger::store {

// The first 8 bytes of an event id, as the writer's cache of used ids keeps them.
uint64_t EventIdPrefix(absl::string_view event_id);

// The writer's view of the log while it decides a batch (docs/postgres.md, "The writer"):
// reads answer from the store's caches, the rows of the batches not yet confirmed committed
// (those in flight and this one) and, for older events, the database; appends go to the batch
// and move the caches. Nothing reaches the database before PostgresEventStore sends the batch.
//
// The uncommitted rows stay here until their batch's commit is confirmed (Committed) or undone
// with every later batch (RollbackAll): a batch is decided on top of the one in flight.
//
// Thread-safety: used on the writer thread only.
class PostgresEventStore::Transaction final : public WriteTransaction {
 public:
  explicit Transaction(PostgresEventStore* store) : store_(store) {}

  absl::StatusOr<std::vector<RecordedEvent>> ReadStream(absl::string_view stream,
                                                        int64_t from_version) override;
  absl::StatusOr<int64_t> StreamVersion(absl::string_view stream) override;
  absl::StatusOr<std::vector<RecordedEvent>> FindRequest(absl::string_view request_id) override;
  absl::StatusOr<AppendResult> Append(const AppendRequest& request) override;
  absl::Status PutSnapshot(const Snapshot& snapshot) override;
  absl::Status PutCheckpoint(const v1::Checkpoint& checkpoint) override;

  // How far the uncommitted batches have come: a command that fails is undone back to its mark.
  struct Mark {
    size_t rows = 0;
    size_t snapshots = 0;
    size_t checkpoints = 0;
    size_t undo = 0;
    Head head;
    int64_t newest_checkpoint = 0;
  };
  // Forgets everything uncommitted and takes the store's head and newest checkpoint as
  // committed (after the caches were loaded).
  void Reset();
  // Starts a batch on top of the uncommitted ones.
  void Begin();
  Mark mark() const;
  // Undoes everything after `mark`: rows, snapshots, checkpoints, stream heads and the head.
  void RollbackTo(const Mark& mark);
  // Undoes every uncommitted batch: the store's head, stream heads and newest checkpoint are
  // the committed ones again.
  void RollbackAll();
  // The oldest uncommitted batch, `rows` rows and `undo` undo entries long, committed; the
  // newest checkpoint after it is `newest_checkpoint`.
  void Committed(size_t rows, size_t undo, int64_t newest_checkpoint);

  // What the current batch holds: its rows (the last batch_rows() of rows()), snapshots and
  // checkpoints.
  size_t batch_rows() const { return rows_.size() - batch_start_; }
  bool batch_empty() const {
    return batch_rows() == 0 && snapshots_.empty() && checkpoints_.empty();
  }
  const std::deque<RecordedEvent>& rows() const { return rows_; }
  const std::vector<Snapshot>& snapshots() const { return snapshots_; }
  const std::vector<v1::Checkpoint>& checkpoints() const { return checkpoints_; }
  // The undo entries so far (Committed counts them per batch).
  size_t undo_size() const { return undo_.size(); }
  const Head& committed() const { return committed_; }

 private:
  // The stream's head as the batch sees it (version -1 and the zero hash when empty).
  StreamHead HeadOf(absl::string_view stream) const;
  absl::StatusOr<AppendResult> AppendUnchecked(const AppendRequest& request);
  // The uncommitted row at `seq` (committed_.seq < seq <= the store's head).
  const RecordedEvent& Uncommitted(int64_t seq) const { return rows_[seq - committed_.seq - 1]; }
  // The chain_hash of the event at `seq`. Errors: kInvalidArgument "<what>: seq N is not an
  // event of the log"; PgError's.
  absl::StatusOr<std::string> ChainHashAt(int64_t seq, absl::string_view what);

  PostgresEventStore* store_;
  Head committed_;  // the head of the last batch confirmed committed
  int64_t committed_newest_checkpoint_ = 0;
  // The rows after committed_, in seq order: those of the batches in flight, then this one's.
  std::deque<RecordedEvent> rows_;
  size_t batch_start_ = 0;  // this batch's first row in rows_
  std::vector<Snapshot> snapshots_;
  std::vector<v1::Checkpoint> checkpoints_;
  // Each stream head an uncommitted batch moved, with the value before, oldest first.
  std::deque<std::pair<std::string, std::optional<StreamHead>>> undo_;
  // The uncommitted rows' seqs by event id.
  absl::flat_hash_map<std::string, int64_t> uncommitted_ids_;
};

}  // namespace credledger::store
