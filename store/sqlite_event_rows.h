// The rows of the events and checkpoints tables, as SqliteEventStore reads them
// (docs/log-format.md): the column lists of its SELECTs and INSERTs, the readers that fill
// a RecordedEvent or a Checkpoint from a statement's row, and the binders of a row to an
// INSERT. Internal to the store's SQLite files.
//
// Thread-safety: stateless functions; a Statement belongs to one thread at a time.
#pragma once

#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "credledger/v1/audit.pb.h"
#include "store/event_columns.h"
#include "store/event_store.h"
#include "store/sqlite.h"

namespace credledger::store {

// Reads the row (kFoldColumns, or the first columns of kEventColumns) into `e`, reusing the
// memory of its strings; empties the fields kFoldColumns leaves out.
void ReadFoldRowInto(const Statement& row, RecordedEvent& e);
// Reads the row (kEventColumns) into `e`, reusing the memory of its strings.
void ReadEventRowInto(const Statement& row, RecordedEvent& e);
// The event of the row (kEventColumns).
RecordedEvent ReadEventRow(const Statement& row);
// The checkpoint of the row (kCheckpointColumns).
v1::Checkpoint ReadCheckpointRow(const Statement& row);

// Binds every field of `e` to the 13 parameters of an INSERT of kEventColumns, in that order.
void BindEventRow(Statement& insert, const RecordedEvent& e);
// Binds `c` to the 5 parameters of an INSERT of kCheckpointColumns, in that order.
void BindCheckpointRow(Statement& insert, const v1::Checkpoint& c);

// Reads every row of `stmt` into `events` with `read_row` (ReadEventRowInto for kEventColumns,
// ReadFoldRowInto for kFoldColumns), overwriting its elements (their memory reused) and
// dropping those left over. Errors: Statement::Step's.
absl::Status CollectEventsInto(Statement& stmt, void (*read_row)(const Statement&, RecordedEvent&),
                               std::vector<RecordedEvent>& events);
// Every row of `stmt` (kEventColumns) as events. Errors: Statement::Step's.
absl::StatusOr<std::vector<RecordedEvent>> CollectEvents(Statement& stmt);

}  // namespace credledger::store
