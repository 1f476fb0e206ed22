// LogImport: writes the rows of another log, as stored, into an empty log on one backend
// (docs/operations.md, "Moving a log between SQLite and PostgreSQL"). Used by
// store/open/log_copy.h only; it is not a way to append.
//
// An import inserts every column's bytes as given: seq, stream_version, event_id,
// recorded_at_us and every hash are never computed again, so a copied log keeps its chain and
// every checkpoint and snapshot seal stays valid. The schema's triggers still check each row
// (the next seq, the next stream_version, a new event_id, a later recorded_at_us, the link to
// the previous chain_hash, a checkpoint or snapshot naming the chain_hash of its event), so an
// import can only write a log that passes them. Nothing written is visible to readers before
// Commit; an import destroyed before Publish leaves no trace where the copy was asked for.
//
// Thread-safety: not thread-safe; one thread drives an import.
#pragma once

#include <vector>

#include "absl/status/status.h"
#include "credledger/v1/audit.pb.h"
#include "store/event_store.h"

namespace credledger::store {

class LogImport {
 public:
  // Abandons an import not published: what it wrote is rolled back or removed.
  virtual ~LogImport() = default;

  // Inserts `events` (every field set, as EventFields::kAll reads them), which continue the
  // events added before in seq order. Errors: kAborted when a row breaks a rule of the
  // schema (the first one named); the backend's I/O errors. After an error the import can
  // only be abandoned.
  virtual absl::Status AddEvents(const std::vector<RecordedEvent>& events) = 0;
  // Inserts `checkpoints` in seq order, each above the ones added before and naming an event
  // added before. Errors as AddEvents.
  virtual absl::Status AddCheckpoints(const std::vector<v1::Checkpoint>& checkpoints) = 0;
  // Inserts `snapshot` (sealed), naming an event added before. Errors as AddEvents.
  virtual absl::Status AddSnapshot(const Snapshot& snapshot) = 0;

  // Makes everything added durable and readable by a new reader of the copy (the backend says
  // where: SqliteLogImport beside its destination, PostgresLogImport in its database). Errors:
  // the backend's; nothing is then kept.
  virtual absl::Status Commit() = 0;
  // After Commit: puts the copy where it was asked for (SqliteLogImport moves its file into
  // place; a PostgreSQL copy is there since Commit). Errors: the backend's.
  virtual absl::Status Publish() = 0;
};

}  // namespace credledger::store
