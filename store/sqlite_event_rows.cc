// The row readers and binders of the events and checkpoints tables (sqlite_event_rows.h).
#include "store/sqlite_event_rows.h"

#include <string>

#include "common/status_macros.h"

namespace credledger::store {
namespace {

void Assign(std::string& to, absl::string_view bytes) { to.assign(bytes.data(), bytes.size()); }

}  // namespace

void ReadFoldRowInto(const Statement& row, RecordedEvent& e) {
  e.seq = row.ColumnInt(0);
  Assign(e.stream, row.ColumnTextView(1));
  e.stream_version = row.ColumnInt(2);
  Assign(e.type, row.ColumnTextView(3));
  e.schema_version = static_cast<uint32_t>(row.ColumnInt(4));
  e.recorded_at_us = row.ColumnInt(5);
  Assign(e.payload, row.ColumnBlobView(6));
  e.event_id.clear();
  e.metadata.clear();
  e.digest.clear();
  e.prev_chain_hash.clear();
  e.chain_hash.clear();
  e.stream_hash.clear();
}

void ReadEventRowInto(const Statement& row, RecordedEvent& e) {
  ReadFoldRowInto(row, e);
  Assign(e.event_id, row.ColumnBlobView(7));
  Assign(e.metadata, row.ColumnBlobView(8));
  Assign(e.digest, row.ColumnBlobView(9));
  Assign(e.prev_chain_hash, row.ColumnBlobView(10));
  Assign(e.chain_hash, row.ColumnBlobView(11));
  Assign(e.stream_hash, row.ColumnBlobView(12));
}

RecordedEvent ReadEventRow(const Statement& row) {
  RecordedEvent e;
  ReadEventRowInto(row, e);
  return e;
}

v1::Checkpoint ReadCheckpointRow(const Statement& row) {
  v1::Checkpoint c;
  c.set_seq(row.ColumnInt(0));
  c.set_chain_hash(row.ColumnBlob(1));
  c.set_signed_at_us(row.ColumnInt(2));
  c.set_key_id(row.ColumnText(3));
  c.set_signature(row.ColumnBlob(4));
  return c;
}

void BindEventRow(Statement& insert, const RecordedEvent& e) {
  insert.Bind(1, e.seq)
      .BindText(2, e.stream)
      .Bind(3, e.stream_version)
      .BindText(4, e.type)
      .Bind(5, e.schema_version)
      .Bind(6, e.recorded_at_us)
      .BindBlob(7, e.payload)
      .BindBlob(8, e.event_id)
      .BindBlob(9, e.metadata)
      .BindBlob(10, e.digest)
      .BindBlob(11, e.prev_chain_hash)
      .BindBlob(12, e.chain_hash)
      .BindBlob(13, e.stream_hash);
}

void BindCheckpointRow(Statement& insert, const v1::Checkpoint& c) {
  insert.Bind(1, c.seq())
      .BindBlob(2, c.chain_hash())
      .Bind(3, c.signed_at_us())
      .BindText(4, c.key_id())
      .BindBlob(5, c.signature());
}

absl::Status CollectEventsInto(Statement& stmt, void (*read_row)(const Statement&, RecordedEvent&),
                               std::vector<RecordedEvent>& events) {
  size_t count = 0;
  while (true) {
    ASSIGN_OR_RETURN(bool row, stmt.Step());
    if (!row) break;
    if (count == events.size()) events.emplace_back();
    read_row(stmt, events[count++]);
  }
  events.resize(count);
  return absl::OkStatus();
}

absl::StatusOr<std::vector<RecordedEvent>> CollectEvents(Statement& stmt) {
  std::vector<RecordedEvent> events;
  RETURN_IF_ERROR(CollectEventsInto(stmt, ReadEventRowInto, events));
  return events;
}

}  // namespace credledger::store
