// The private parts of PostgresEventStore that its files share (postgres_event_store.cc: open,
// the fence and the writer; postgres_event_store_reads.cc: the read pool and reads;
// postgres_write_transaction.cc: the transaction a command sees). Not for use outside them.
#pragma once

#include <cstdint>
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
// reads answer from the store's caches, the rows this batch appended so far and, for older
// events, the database; appends go to the batch and move the caches. Nothing reaches the
// database before PostgresEventStore sends the batch.
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

  // How far the batch has come: a command that fails is undone back to its mark.
  struct Mark {
    size_t rows = 0;
    size_t snapshots = 0;
    size_t checkpoints = 0;
    size_t undo = 0;
    Head head;
    int64_t newest_checkpoint = 0;
  };
  // Starts a batch on the store's current head.
  void Begin();
  Mark mark() const;
  // Undoes everything after `mark`: rows, snapshots, checkpoints, stream heads and the head.
  void RollbackTo(const Mark& mark);
  // Whether the batch holds anything to send.
  bool empty() const { return rows_.empty() && snapshots_.empty() && checkpoints_.empty(); }

  const std::vector<RecordedEvent>& rows() const { return rows_; }
  const std::vector<Snapshot>& snapshots() const { return snapshots_; }
  const std::vector<v1::Checkpoint>& checkpoints() const { return checkpoints_; }

 private:
  // The stream's head as the batch sees it (version -1 and the zero hash when empty).
  StreamHead HeadOf(absl::string_view stream) const;
  absl::StatusOr<AppendResult> AppendUnchecked(const AppendRequest& request);
  // The chain_hash of the event at `seq`. Errors: kInvalidArgument "<what>: seq N is not an
  // event of the log"; PgError's.
  absl::StatusOr<std::string> ChainHashAt(int64_t seq, absl::string_view what);

  PostgresEventStore* store_;
  Head committed_;  // the head when the batch began
  std::vector<RecordedEvent> rows_;
  std::vector<Snapshot> snapshots_;
  std::vector<v1::Checkpoint> checkpoints_;
  // Each stream head the batch moved, with the value before, newest last.
  std::vector<std::pair<std::string, std::optional<StreamHead>>> undo_;
  // The stream versions at the batch's start of the streams it touched.
  absl::flat_hash_map<std::string, int64_t> committed_versions_;
  // The batch's rows by event id.
  absl::flat_hash_map<std::string, size_t> batch_ids_;
};

}  // namespace credledger::store
