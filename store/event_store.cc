#include "store/event_store.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "common/fault_points.h"

namespace credledger::store {

absl::Status EventStore::ReadAllInto(int64_t after_seq, int limit, EventFields /*fields*/,
                                     std::vector<RecordedEvent>& page) {
  absl::StatusOr<std::vector<RecordedEvent>> read = ReadAll(after_seq, limit);
  if (!read.ok()) return read.status();
  page = *std::move(read);
  return absl::OkStatus();
}

absl::StatusOr<std::optional<RecordedEvent>> EventStore::ReadEvent(int64_t seq) {
  if (seq < 1) return std::optional<RecordedEvent>();
  absl::StatusOr<std::vector<RecordedEvent>> read = ReadAll(seq - 1, 1);
  if (!read.ok()) return read.status();
  if (read->empty() || read->front().seq != seq) return std::optional<RecordedEvent>();
  return std::optional<RecordedEvent>(std::move(read->front()));
}

absl::StatusOr<AppendResult> EventStore::Append(AppendRequest request) {
  AppendResult result;
  absl::Status status = Execute([&](WriteTransaction& tx) -> absl::Status {
    absl::StatusOr<AppendResult> appended = tx.Append(request);
    if (!appended.ok()) return appended.status();
    result = *std::move(appended);
    return absl::OkStatus();
  });
  if (!status.ok()) return status;
  return result;
}

absl::Status EventStore::SaveSnapshot(Snapshot snapshot) {
  absl::Status saved = Execute([&](WriteTransaction& tx) { return tx.PutSnapshot(snapshot); });
  if (saved.ok()) common::FaultPoint("store.after_snapshot_write");
  return saved;
}

absl::Status EventStore::SaveCheckpoint(v1::Checkpoint checkpoint) {
  absl::Status saved = Execute([&](WriteTransaction& tx) { return tx.PutCheckpoint(checkpoint); });
  if (saved.ok()) common::FaultPoint("store.after_checkpoint_write");
  return saved;
}

absl::Status CheckExpectedVersion(const StreamAppend& append, int64_t found) {
  if (append.expected.is_any() || found == append.expected.required_version()) {
    return absl::OkStatus();
  }
  return absl::AbortedError(absl::StrCat("stream \"", append.stream, "\": expected version ",
                                         append.expected.required_version(), ", found ", found,
                                         " (another writer appended first; reload and retry)"));
}

absl::Status ValidateAppendRequest(const AppendRequest& request) {
  if (request.request_id.empty()) {
    return absl::InvalidArgumentError("request_id: must not be empty");
  }
  bool any = false;
  for (const StreamAppend& s : request.streams) {
    if (s.stream.empty()) return absl::InvalidArgumentError("stream: must not be empty");
    for (const NewEvent& e : s.events) {
      if (e.type.empty()) {
        return absl::InvalidArgumentError(
            absl::StrCat("stream \"", s.stream, "\": event type must not be empty"));
      }
      if (e.schema_version < 1) {
        return absl::InvalidArgumentError(
            absl::StrCat("stream \"", s.stream, "\": event schema_version must be >= 1"));
      }
      any = true;
    }
  }
  if (!any) return absl::InvalidArgumentError("append: a request needs at least one event");
  return absl::OkStatus();
}

absl::Status ValidateSnapshot(const Snapshot& snapshot, ChainHashLookup chain_hash_at) {
  if (snapshot.projection.empty()) {
    return absl::InvalidArgumentError("snapshot: projection must not be empty");
  }
  if (snapshot.key_id.empty() || snapshot.signature.empty()) {
    return absl::InvalidArgumentError("snapshot: key_id and signature must be set");
  }
  absl::StatusOr<std::string> chain_hash = chain_hash_at(snapshot.seq);
  if (!chain_hash.ok()) return chain_hash.status();
  if (*chain_hash != snapshot.chain_hash) {
    return absl::InvalidArgumentError(
        absl::StrCat("snapshot: chain_hash differs from the chain_hash of seq ", snapshot.seq));
  }
  return absl::OkStatus();
}

absl::Status ValidateCheckpoint(const v1::Checkpoint& checkpoint, ChainHashLookup chain_hash_at,
                                int64_t newest_checkpoint_seq) {
  if (checkpoint.key_id().empty() || checkpoint.signature().empty()) {
    return absl::InvalidArgumentError("checkpoint: key_id and signature must be set");
  }
  absl::StatusOr<std::string> chain_hash = chain_hash_at(checkpoint.seq());
  if (!chain_hash.ok()) return chain_hash.status();
  if (*chain_hash != checkpoint.chain_hash()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "checkpoint: chain_hash differs from the chain_hash of seq ", checkpoint.seq()));
  }
  if (checkpoint.seq() <= newest_checkpoint_seq) {
    return absl::InvalidArgumentError(absl::StrCat("checkpoint: seq ", checkpoint.seq(),
                                                   " is not above the newest checkpoint's ",
                                                   newest_checkpoint_seq));
  }
  return absl::OkStatus();
}

}  // namespace credledger::store
