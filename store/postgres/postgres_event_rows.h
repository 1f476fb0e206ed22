// The rows of the PostgreSQL events, checkpoints and projection_snapshots tables
// (docs/log-format.md, "Storage"; docs/postgres.md, "Schema"): the readers that fill a
// RecordedEvent or a Checkpoint from a result's row, in the column orders of
// store/event_columns.h, and the parameters of a row's INSERT. Internal to store/postgres/.
//
// Thread-safety: stateless functions.
#pragma once

#include <string>

#include "credledger/v1/audit.pb.h"
#include "store/event_store.h"
#include "store/postgres/pg.h"

namespace credledger::store {

// Every column of an event (kEventColumns) of row `row` of `result`.
RecordedEvent ReadEventRow(const PgResult& result, int row);
// Reads row `row` (kEventColumns, or kFoldColumns with `all` false) into `e`, reusing its
// memory; empties the fields kFoldColumns leaves out.
void ReadEventRowInto(const PgResult& result, int row, bool all, RecordedEvent& e);
// The checkpoint of row `row` (kCheckpointColumns).
v1::Checkpoint ReadCheckpointRow(const PgResult& result, int row);
// The INSERT of one row into events (kEventColumns), checkpoints (kCheckpointColumns) and
// projection_snapshots, with the parameters the functions below give.
const std::string& InsertEventSql();
const std::string& InsertCheckpointSql();
const std::string& InsertSnapshotSql();

// The parameters of an INSERT of `e` into events (kEventColumns order); they borrow `e`'s
// bytes, so `e` must outlive them unchanged.
PgParams EventRowParams(const RecordedEvent& e);
// The parameters of an INSERT of `c` into checkpoints (kCheckpointColumns order).
PgParams CheckpointRowParams(const v1::Checkpoint& c);
// The parameters of an INSERT of `s` into projection_snapshots, in the order projection, seq,
// schema_version, state, chain_hash, state_sha256, key_id, signature.
PgParams SnapshotRowParams(const Snapshot& s);

}  // namespace credledger::store
