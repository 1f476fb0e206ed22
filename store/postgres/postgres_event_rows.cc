// The row readers and writers of the PostgreSQL log's tables (postgres_event_rows.h), in the
// column orders of store/event_columns.h.
#include "store/postgres/postgres_event_rows.h"

#include <string>

#include "absl/strings/str_cat.h"
#include "store/event_columns.h"

namespace credledger::store {
namespace {

void Assign(std::string& to, absl::string_view bytes) { to.assign(bytes.data(), bytes.size()); }

}  // namespace

void ReadEventRowInto(const PgResult& result, int row, bool all, RecordedEvent& e) {
  e.seq = result.Int(row, 0);
  Assign(e.stream, result.Bytes(row, 1));
  e.stream_version = result.Int(row, 2);
  Assign(e.type, result.Bytes(row, 3));
  e.schema_version = static_cast<uint32_t>(result.Int(row, 4));
  e.recorded_at_us = result.Int(row, 5);
  Assign(e.payload, result.Bytes(row, 6));
  if (!all) {
    e.event_id.clear();
    e.metadata.clear();
    e.digest.clear();
    e.prev_chain_hash.clear();
    e.chain_hash.clear();
    e.stream_hash.clear();
    return;
  }
  Assign(e.event_id, result.Bytes(row, 7));
  Assign(e.metadata, result.Bytes(row, 8));
  Assign(e.digest, result.Bytes(row, 9));
  Assign(e.prev_chain_hash, result.Bytes(row, 10));
  Assign(e.chain_hash, result.Bytes(row, 11));
  Assign(e.stream_hash, result.Bytes(row, 12));
}

RecordedEvent ReadEventRow(const PgResult& result, int row) {
  RecordedEvent e;
  ReadEventRowInto(result, row, /*all=*/true, e);
  return e;
}

v1::Checkpoint ReadCheckpointRow(const PgResult& result, int row) {
  v1::Checkpoint c;
  c.set_seq(result.Int(row, 0));
  c.set_chain_hash(result.String(row, 1));
  c.set_signed_at_us(result.Int(row, 2));
  c.set_key_id(result.String(row, 3));
  c.set_signature(result.String(row, 4));
  return c;
}

const std::string& InsertEventSql() {
  static const std::string* const sql =
      new std::string(absl::StrCat("INSERT INTO events (", kEventColumns,
                                   ") VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, "
                                   "$13)"));
  return *sql;
}

const std::string& InsertCheckpointSql() {
  static const std::string* const sql = new std::string(absl::StrCat(
      "INSERT INTO checkpoints (", kCheckpointColumns, ") VALUES ($1, $2, $3, $4, $5)"));
  return *sql;
}

const std::string& InsertSnapshotSql() {
  static const std::string* const sql = new std::string(
      "INSERT INTO projection_snapshots (projection, seq, schema_version, state, chain_hash, "
      "state_sha256, key_id, signature) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)");
  return *sql;
}

PgParams EventRowParams(const RecordedEvent& e) {
  PgParams params;
  params.Int(e.seq)
      .TextRef(e.stream)
      .Int(e.stream_version)
      .TextRef(e.type)
      .Int(e.schema_version)
      .Int(e.recorded_at_us)
      .BytesRef(e.payload)
      .BytesRef(e.event_id)
      .BytesRef(e.metadata)
      .BytesRef(e.digest)
      .BytesRef(e.prev_chain_hash)
      .BytesRef(e.chain_hash)
      .BytesRef(e.stream_hash);
  return params;
}

PgParams CheckpointRowParams(const v1::Checkpoint& c) {
  PgParams params;
  params.Int(c.seq())
      .Bytes(c.chain_hash())
      .Int(c.signed_at_us())
      .Text(c.key_id())
      .Bytes(c.signature());
  return params;
}

PgParams SnapshotRowParams(const Snapshot& s) {
  PgParams params;
  params.Text(s.projection)
      .Int(s.seq)
      .Int(s.schema_version)
      .Bytes(s.state)
      .Bytes(s.chain_hash)
      .Bytes(s.state_sha256)
      .Text(s.key_id)
      .Bytes(s.signature);
  return params;
}

}  // namespace credledger::store
