// PostgresEventStore::Transaction (postgres_event_store_internal.h): what a command sees on the
// writer thread. Appends hash each event into the global and the stream's chain
// (docs/log-format.md) in memory; the store sends the batch's rows afterwards.
#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "common/fault_points.h"
#include "common/status_macros.h"
#include "store/event_columns.h"
#include "store/log_hash.h"
#include "store/postgres/postgres_event_store_internal.h"

namespace credledger::store {

uint64_t EventIdPrefix(absl::string_view event_id) {
  uint64_t prefix = 0;
  for (size_t i = 0; i < 8 && i < event_id.size(); ++i) {
    prefix = (prefix << 8) | static_cast<unsigned char>(event_id[i]);
  }
  return prefix;
}

void PostgresEventStore::Transaction::Reset() {
  committed_ = store_->head_;
  committed_newest_checkpoint_ = store_->newest_checkpoint_;
  rows_.clear();
  batch_start_ = 0;
  snapshots_.clear();
  checkpoints_.clear();
  undo_.clear();
  uncommitted_ids_.clear();
}

void PostgresEventStore::Transaction::Begin() {
  batch_start_ = rows_.size();
  snapshots_.clear();
  checkpoints_.clear();
}

PostgresEventStore::Transaction::Mark PostgresEventStore::Transaction::mark() const {
  return Mark{rows_.size(), snapshots_.size(), checkpoints_.size(),
              undo_.size(), store_->head_,     store_->newest_checkpoint_};
}

void PostgresEventStore::Transaction::RollbackTo(const Mark& mark) {
  for (size_t i = mark.rows; i < rows_.size(); ++i) uncommitted_ids_.erase(rows_[i].event_id);
  rows_.resize(mark.rows);
  snapshots_.resize(mark.snapshots);
  checkpoints_.resize(mark.checkpoints);
  while (undo_.size() > mark.undo) {
    auto& [stream, before] = undo_.back();
    if (before.has_value()) {
      store_->streams_[stream] = *std::move(before);
    } else {
      store_->streams_.erase(stream);
    }
    undo_.pop_back();
  }
  store_->head_ = mark.head;
  store_->newest_checkpoint_ = mark.newest_checkpoint;
}

void PostgresEventStore::Transaction::RollbackAll() {
  RollbackTo(Mark{0, 0, 0, 0, committed_, committed_newest_checkpoint_});
  batch_start_ = 0;
}

void PostgresEventStore::Transaction::Committed(size_t rows, size_t undo,
                                                int64_t newest_checkpoint) {
  for (size_t i = 0; i < rows; ++i) {
    const RecordedEvent& e = rows_.front();
    uncommitted_ids_.erase(e.event_id);
    committed_ = Head{e.seq, e.chain_hash, e.recorded_at_us};
    rows_.pop_front();
  }
  batch_start_ = batch_start_ > rows ? batch_start_ - rows : 0;
  for (size_t i = 0; i < undo; ++i) undo_.pop_front();
  committed_newest_checkpoint_ = newest_checkpoint;
}

PostgresEventStore::StreamHead PostgresEventStore::Transaction::HeadOf(
    absl::string_view stream) const {
  auto it = store_->streams_.find(stream);
  if (it == store_->streams_.end()) return StreamHead{-1, ZeroHash()};
  return it->second;
}

absl::StatusOr<std::vector<RecordedEvent>> PostgresEventStore::Transaction::ReadStream(
    absl::string_view stream, int64_t from_version) {
  std::vector<RecordedEvent> events;
  const StreamHead head = HeadOf(stream);
  if (from_version > head.version) return events;
  // The stream's uncommitted rows; its committed version is the one before the first of them.
  std::vector<const RecordedEvent*> uncommitted;
  for (const RecordedEvent& e : rows_) {
    if (e.stream == stream) uncommitted.push_back(&e);
  }
  const int64_t committed_version =
      uncommitted.empty() ? head.version : uncommitted.front()->stream_version - 1;
  if (from_version <= committed_version) {
    // Bounded by the committed version: a batch in flight may commit while this reads.
    ASSIGN_OR_RETURN(PgResult rows,
                     store_->Read(absl::StrCat("SELECT ", kEventColumns,
                                               " FROM events WHERE stream = $1 AND "
                                               "stream_version BETWEEN $2 AND $3 "
                                               "ORDER BY stream_version"),
                                  PgParams().Text(stream).Int(from_version).Int(committed_version),
                                  "append: read stream"));
    for (int i = 0; i < rows.rows(); ++i) events.push_back(ReadEventRow(rows, i));
  }
  for (const RecordedEvent* e : uncommitted) {
    if (e->stream_version >= from_version) events.push_back(*e);
  }
  return events;
}

absl::StatusOr<int64_t> PostgresEventStore::Transaction::StreamVersion(absl::string_view stream) {
  return HeadOf(stream).version;
}

absl::StatusOr<std::vector<RecordedEvent>> PostgresEventStore::Transaction::FindRequest(
    absl::string_view request_id) {
  std::vector<RecordedEvent> events;
  for (int64_t index = 0;; ++index) {
    const std::string id = EventIdFor(request_id, index);
    auto uncommitted = uncommitted_ids_.find(id);
    if (uncommitted != uncommitted_ids_.end()) {
      events.push_back(Uncommitted(uncommitted->second));
      continue;
    }
    if (!store_->id_prefixes_.contains(EventIdPrefix(id))) break;
    ASSIGN_OR_RETURN(PgResult row, store_->Read(absl::StrCat("SELECT ", kEventColumns,
                                                             " FROM events WHERE event_id = $1"),
                                                PgParams().Bytes(id), "append: find request"));
    if (row.rows() == 0) break;
    events.push_back(ReadEventRow(row, 0));
  }
  return events;
}

absl::StatusOr<AppendResult> PostgresEventStore::Transaction::Append(const AppendRequest& request) {
  RETURN_IF_ERROR(ValidateAppendRequest(request));
  ASSIGN_OR_RETURN(std::vector<RecordedEvent> prior, FindRequest(request.request_id));
  if (!prior.empty()) return AppendResult{std::move(prior), /*replayed=*/true};
  const Mark before = mark();
  absl::StatusOr<AppendResult> result = AppendUnchecked(request);
  if (!result.ok()) RollbackTo(before);
  return result;
}

absl::StatusOr<AppendResult> PostgresEventStore::Transaction::AppendUnchecked(
    const AppendRequest& request) {
  AppendResult result;
  Head& head = store_->head_;
  const int64_t now_us = absl::ToUnixMicros(store_->options_.clock->Now());
  int64_t index = 0;
  for (const StreamAppend& append : request.streams) {
    StreamHead stream_head = HeadOf(append.stream);
    RETURN_IF_ERROR(CheckExpectedVersion(append, stream_head.version));
    if (append.events.empty()) continue;
    auto found = store_->streams_.find(append.stream);
    undo_.emplace_back(append.stream, found == store_->streams_.end()
                                          ? std::nullopt
                                          : std::optional<StreamHead>(found->second));
    for (const NewEvent& in : append.events) {
      RecordedEvent e = NextEvent(head, append.stream, stream_head.version++, stream_head.hash,
                                  request.request_id, index++, in, now_us);
      stream_head.hash = e.stream_hash;
      head = {e.seq, e.chain_hash, e.recorded_at_us};
      uncommitted_ids_[e.event_id] = e.seq;
      // Kept when the batch fails: a prefix of an id never stored costs one lookup, no more.
      store_->id_prefixes_.insert(EventIdPrefix(e.event_id));
      rows_.push_back(e);
      result.events.push_back(std::move(e));
    }
    store_->streams_[append.stream] = stream_head;
  }
  return result;
}

absl::StatusOr<std::string> PostgresEventStore::Transaction::ChainHashAt(int64_t seq,
                                                                         absl::string_view what) {
  const Head& head = store_->head_;
  if (seq < 1 || seq > head.seq) {
    return absl::InvalidArgumentError(
        absl::StrCat(what, ": seq ", seq, " is not an event of the log"));
  }
  if (seq == head.seq) return head.chain_hash;
  if (seq > committed_.seq) return Uncommitted(seq).chain_hash;
  ASSIGN_OR_RETURN(PgResult row, store_->Read("SELECT chain_hash FROM events WHERE seq = $1",
                                              PgParams().Int(seq), absl::StrCat(what, ": read")));
  if (row.rows() == 0) {
    return absl::InvalidArgumentError(
        absl::StrCat(what, ": seq ", seq, " is not an event of the log"));
  }
  return row.String(0, 0);
}

absl::Status PostgresEventStore::Transaction::PutSnapshot(const Snapshot& snapshot) {
  RETURN_IF_ERROR(
      ValidateSnapshot(snapshot, [this](int64_t seq) { return ChainHashAt(seq, "snapshot"); }));
  snapshots_.push_back(snapshot);
  common::FaultPoint("store.after_snapshot_insert");
  return absl::OkStatus();
}

absl::Status PostgresEventStore::Transaction::PutCheckpoint(const v1::Checkpoint& checkpoint) {
  RETURN_IF_ERROR(ValidateCheckpoint(
      checkpoint, [this](int64_t seq) { return ChainHashAt(seq, "checkpoint"); },
      store_->newest_checkpoint_));
  checkpoints_.push_back(checkpoint);
  store_->newest_checkpoint_ = checkpoint.seq();
  common::FaultPoint("store.after_checkpoint_insert");
  return absl::OkStatus();
}

}  // namespace credledger::store
