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

}  // namespace credledger::store
