// SqliteEventStore::Transaction (sqlite_event_store_internal.h): what a command sees on the
// writer thread; appends hash each event into the global and the stream's chain
// (docs/log-format.md).
#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "common/fault_points.h"
#include "common/status_macros.h"
#include "store/log_hash.h"
#include "store/sqlite_event_rows.h"
#include "store/sqlite_event_store_internal.h"

namespace credledger::store {
absl::StatusOr<std::unique_ptr<SqliteEventStore::Transaction>>
SqliteEventStore::Transaction::Create(SqliteEventStore* store) {
  Connection& db = *store->writer_;
  auto tx = std::unique_ptr<Transaction>(new Transaction(store));
  ASSIGN_OR_RETURN(Statement insert,
                   db.Prepare(absl::StrCat("INSERT INTO events (", kEventColumns,
                                           ") VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?)")));
  ASSIGN_OR_RETURN(Statement stream_head,
                   db.Prepare("SELECT stream_version, stream_hash FROM events WHERE stream = ? "
                              "ORDER BY stream_version DESC LIMIT 1"));
  ASSIGN_OR_RETURN(Statement by_id, db.Prepare(absl::StrCat("SELECT ", kEventColumns,
                                                            " FROM events WHERE event_id = ?")));
  ASSIGN_OR_RETURN(Statement read_stream,
                   db.Prepare(absl::StrCat("SELECT ", kEventColumns,
                                           " FROM events WHERE stream = ? AND "
                                           "stream_version >= ? ORDER BY stream_version")));
  ASSIGN_OR_RETURN(Statement put_snapshot,
                   db.Prepare("INSERT INTO projection_snapshots (projection, seq, "
                              "schema_version, state, chain_hash, state_sha256, key_id, "
                              "signature) VALUES (?,?,?,?,?,?,?,?) ON CONFLICT (projection, seq) "
                              "DO UPDATE SET schema_version = excluded.schema_version, state = "
                              "excluded.state, chain_hash = excluded.chain_hash, state_sha256 = "
                              "excluded.state_sha256, key_id = excluded.key_id, signature = "
                              "excluded.signature"));
  tx->insert_.emplace(std::move(insert));
  tx->stream_head_.emplace(std::move(stream_head));
  tx->by_id_.emplace(std::move(by_id));
  tx->read_stream_.emplace(std::move(read_stream));
  ASSIGN_OR_RETURN(Statement put_checkpoint,
                   db.Prepare("INSERT INTO checkpoints (seq, chain_hash, signed_at_us, "
                              "key_id, signature) VALUES (?,?,?,?,?)"));
  ASSIGN_OR_RETURN(Statement chain_at, db.Prepare("SELECT chain_hash FROM events WHERE seq = ?"));
  ASSIGN_OR_RETURN(Statement newest_checkpoint,
                   db.Prepare("SELECT IFNULL(MAX(seq), 0) FROM checkpoints"));
  tx->put_snapshot_.emplace(std::move(put_snapshot));
  tx->put_checkpoint_.emplace(std::move(put_checkpoint));
  tx->chain_at_.emplace(std::move(chain_at));
  tx->newest_checkpoint_.emplace(std::move(newest_checkpoint));
  return tx;
}

absl::StatusOr<std::string> SqliteEventStore::Transaction::ChainHashAt(int64_t seq,
                                                                       absl::string_view what) {
  Statement& at = *chain_at_;
  at.Reset();
  at.Bind(1, seq);
  ASSIGN_OR_RETURN(bool row, at.Step());
  if (!row) {
    return absl::InvalidArgumentError(
        absl::StrCat(what, ": seq ", seq, " is not an event of the log"));
  }
  std::string chain_hash = at.ColumnBlob(0);
  at.Reset();  // see StreamHead
  return chain_hash;
}

absl::StatusOr<std::vector<RecordedEvent>> SqliteEventStore::Transaction::ReadStream(
    absl::string_view stream, int64_t from_version) {
  Statement& stmt = *read_stream_;
  stmt.Reset();
  stmt.BindText(1, stream).Bind(2, from_version);
  return CollectEvents(stmt);
}

absl::StatusOr<int64_t> SqliteEventStore::Transaction::StreamVersion(absl::string_view stream) {
  ASSIGN_OR_RETURN(auto head, StreamHead(stream));
  return head.first;
}

absl::StatusOr<std::vector<RecordedEvent>> SqliteEventStore::Transaction::FindRequest(
    absl::string_view request_id) {
  std::vector<RecordedEvent> events;
  for (int64_t index = 0;; ++index) {
    Statement& stmt = *by_id_;
    stmt.Reset();
    stmt.BindBlob(1, EventIdFor(request_id, index));
    ASSIGN_OR_RETURN(bool row, stmt.Step());
    if (!row) break;
    events.push_back(ReadEventRow(stmt));
  }
  return events;
}

absl::StatusOr<AppendResult> SqliteEventStore::Transaction::Append(const AppendRequest& request) {
  RETURN_IF_ERROR(ValidateAppendRequest(request));
  ASSIGN_OR_RETURN(std::vector<RecordedEvent> prior, FindRequest(request.request_id));
  if (!prior.empty()) return AppendResult{std::move(prior), /*replayed=*/true};

  // A nested savepoint makes this call atomic even when the command goes on after an error.
  Head saved = store_->head_;
  RETURN_IF_ERROR(store_->writer_->ExecCached("SAVEPOINT append", "append: savepoint"));
  absl::StatusOr<AppendResult> result = AppendUnchecked(request);
  if (result.ok()) {
    RETURN_IF_ERROR(store_->writer_->ExecCached("RELEASE append", "append: release"));
    return result;
  }
  store_->head_ = std::move(saved);
  if (!sqlite3_get_autocommit(store_->writer_->raw())) {
    store_->writer_->ExecCached("ROLLBACK TO append", "append: rollback").IgnoreError();
    store_->writer_->ExecCached("RELEASE append", "append: release").IgnoreError();
  }
  return result;
}

absl::Status SqliteEventStore::Transaction::PutSnapshot(const Snapshot& snapshot) {
  RETURN_IF_ERROR(
      ValidateSnapshot(snapshot, [this](int64_t seq) { return ChainHashAt(seq, "snapshot"); }));
  Statement& stmt = *put_snapshot_;
  stmt.Reset();
  stmt.BindText(1, snapshot.projection)
      .Bind(2, snapshot.seq)
      .Bind(3, snapshot.schema_version)
      .BindBlob(4, snapshot.state)
      .BindBlob(5, snapshot.chain_hash)
      .BindBlob(6, snapshot.state_sha256)
      .BindText(7, snapshot.key_id)
      .BindBlob(8, snapshot.signature);
  RETURN_IF_ERROR(stmt.Run());
  common::FaultPoint("store.after_snapshot_insert");
  return absl::OkStatus();
}

absl::Status SqliteEventStore::Transaction::PutCheckpoint(const v1::Checkpoint& checkpoint) {
  Statement& newest_stmt = *newest_checkpoint_;
  newest_stmt.Reset();
  ASSIGN_OR_RETURN(bool row, newest_stmt.Step());
  const int64_t newest = row ? newest_stmt.ColumnInt(0) : 0;
  newest_stmt.Reset();  // see StreamHead
  RETURN_IF_ERROR(ValidateCheckpoint(
      checkpoint, [this](int64_t seq) { return ChainHashAt(seq, "checkpoint"); }, newest));
  Statement& stmt = *put_checkpoint_;
  stmt.Reset();
  BindCheckpointRow(stmt, checkpoint);
  RETURN_IF_ERROR(stmt.Run());
  common::FaultPoint("store.after_checkpoint_insert");
  return absl::OkStatus();
}

absl::StatusOr<std::pair<int64_t, std::string>> SqliteEventStore::Transaction::StreamHead(
    absl::string_view stream) {
  Statement& stmt = *stream_head_;
  stmt.Reset();
  stmt.BindText(1, stream);
  ASSIGN_OR_RETURN(bool row, stmt.Step());
  if (!row) return std::make_pair(int64_t{-1}, ZeroHash());
  auto head = std::make_pair(stmt.ColumnInt(0), stmt.ColumnBlob(1));
  // A cached statement left on a row keeps the write connection's read transaction open
  // after COMMIT, and SQLite can then never checkpoint the WAL, which grows without bound.
  stmt.Reset();
  return head;
}

absl::StatusOr<AppendResult> SqliteEventStore::Transaction::AppendUnchecked(
    const AppendRequest& request) {
  AppendResult result;
  Head& head = store_->head_;
  const int64_t now_us = absl::ToUnixMicros(store_->options_.clock->Now());
  int64_t index = 0;
  for (const StreamAppend& append : request.streams) {
    ASSIGN_OR_RETURN(auto stream_head, StreamHead(append.stream));
    auto [version, stream_hash] = std::move(stream_head);
    RETURN_IF_ERROR(CheckExpectedVersion(append, version));
    for (const NewEvent& in : append.events) {
      RecordedEvent e = NextEvent(head, append.stream, version++, stream_hash, request.request_id,
                                  index++, in, now_us);
      RETURN_IF_ERROR(Insert(e));
      stream_hash = e.stream_hash;
      head = {e.seq, e.chain_hash, e.recorded_at_us};
      result.events.push_back(std::move(e));
    }
  }
  return result;
}

absl::Status SqliteEventStore::Transaction::Insert(const RecordedEvent& e) {
  Statement& stmt = *insert_;
  stmt.Reset();
  BindEventRow(stmt, e);
  return stmt.Run();
}

}  // namespace credledger::store
