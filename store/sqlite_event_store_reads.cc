// SqliteEventStore's read side (docs/design.md, "Storage"): a small pool of read-only
// connections (read_connections of them kept, store/connection_pool.h), each call one short
// read transaction on a connection borrowed from it; thread-safe, as every public method.
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "common/status_macros.h"
#include "store/log_hash.h"
#include "store/sqlite_event_rows.h"
#include "store/sqlite_event_store.h"
#include "store/sqlite_event_store_internal.h"

namespace credledger::store {

absl::StatusOr<std::unique_ptr<Connection>> SqliteEventStore::OpenReader() const {
  ASSIGN_OR_RETURN(
      std::unique_ptr<Connection> db,
      Connection::Open(options_.path, /*create=*/false, options_.read_only, options_.vfs));
  RETURN_IF_ERROR(ConfigureConnection(*db, options_));
  RETURN_IF_ERROR(db->Exec("PRAGMA query_only = ON", "pragma query_only"));
  return db;
}

absl::StatusOr<std::vector<RecordedEvent>> SqliteEventStore::ReadAll(int64_t after_seq, int limit) {
  std::vector<RecordedEvent> events;
  RETURN_IF_ERROR(ReadAllInto(after_seq, limit, EventFields::kAll, events));
  return events;
}

absl::Status SqliteEventStore::ReadAllInto(int64_t after_seq, int limit, EventFields fields,
                                           std::vector<RecordedEvent>& page) {
  if (limit <= 0) return absl::InvalidArgumentError("read: limit must be > 0");
  ASSIGN_OR_RETURN(ReaderLease db, readers_.Acquire());
  static const std::string* const kAllSql = new std::string(
      absl::StrCat("SELECT ", kEventColumns, " FROM events WHERE seq > ? ORDER BY seq LIMIT ?"));
  static const std::string* const kFoldSql = new std::string(
      absl::StrCat("SELECT ", kFoldColumns, " FROM events WHERE seq > ? ORDER BY seq LIMIT ?"));
  const bool all = fields == EventFields::kAll;
  ASSIGN_OR_RETURN(Statement stmt, db->PrepareCached(all ? *kAllSql : *kFoldSql));
  stmt.Bind(1, after_seq).Bind(2, limit);
  return CollectEventsInto(stmt, all ? ReadEventRowInto : ReadFoldRowInto, page);
}

absl::StatusOr<std::vector<RecordedEvent>> SqliteEventStore::ReadStream(absl::string_view stream,
                                                                        int64_t from_version,
                                                                        int limit) {
  if (limit <= 0) return absl::InvalidArgumentError("read: limit must be > 0");
  ASSIGN_OR_RETURN(ReaderLease db, readers_.Acquire());
  ASSIGN_OR_RETURN(Statement stmt,
                   db->Prepare(absl::StrCat("SELECT ", kEventColumns,
                                            " FROM events WHERE stream = ? AND stream_version "
                                            ">= ? ORDER BY stream_version LIMIT ?")));
  stmt.BindText(1, stream).Bind(2, from_version).Bind(3, limit);
  return CollectEvents(stmt);
}

absl::StatusOr<RequestProbe> SqliteEventStore::ProbeRequest(absl::string_view request_id,
                                                            absl::string_view stream) {
  ASSIGN_OR_RETURN(ReaderLease db, readers_.Acquire());
  // One statement: both answers come from the same read transaction. A request's events have
  // the event ids of indexes 0, 1, ...: the first one tells whether it appended any.
  ASSIGN_OR_RETURN(Statement stmt,
                   db->PrepareCached("SELECT EXISTS (SELECT 1 FROM events WHERE event_id = ?), "
                                     "IFNULL((SELECT stream_version FROM events WHERE stream = ? "
                                     "ORDER BY stream_version DESC LIMIT 1), -1)"));
  stmt.BindBlob(1, EventIdFor(request_id, 0)).BindText(2, stream);
  ASSIGN_OR_RETURN(bool row, stmt.Step());
  if (!row) return absl::InternalError("probe request: no row");
  return RequestProbe{stmt.ColumnInt(0) != 0, stmt.ColumnInt(1)};
}

absl::StatusOr<int64_t> SqliteEventStore::SeqAtTime(int64_t time_us) {
  ASSIGN_OR_RETURN(ReaderLease db, readers_.Acquire());
  ASSIGN_OR_RETURN(Statement stmt,
                   db->Prepare("SELECT MAX(seq) FROM events WHERE recorded_at_us <= ?"));
  stmt.Bind(1, time_us);
  ASSIGN_OR_RETURN(bool row, stmt.Step());
  return row && !stmt.ColumnIsNull(0) ? stmt.ColumnInt(0) : 0;
}

absl::StatusOr<std::optional<Snapshot>> SqliteEventStore::LoadSnapshot(absl::string_view projection,
                                                                       int64_t max_seq) {
  ASSIGN_OR_RETURN(ReaderLease db, readers_.Acquire());
  ASSIGN_OR_RETURN(Statement stmt,
                   db->Prepare("SELECT seq, schema_version, state, chain_hash, state_sha256, "
                               "key_id, signature FROM projection_snapshots WHERE projection = "
                               "? AND seq <= ? ORDER BY seq DESC LIMIT 1"));
  stmt.BindText(1, projection).Bind(2, max_seq);
  ASSIGN_OR_RETURN(bool row, stmt.Step());
  if (!row) return std::optional<Snapshot>();
  return std::optional<Snapshot>(Snapshot{
      .projection = std::string(projection),
      .seq = stmt.ColumnInt(0),
      .schema_version = static_cast<uint32_t>(stmt.ColumnInt(1)),
      .state = stmt.ColumnBlob(2),
      .chain_hash = stmt.ColumnBlob(3),
      .state_sha256 = stmt.ColumnBlob(4),
      .key_id = stmt.ColumnText(5),
      .signature = stmt.ColumnBlob(6),
  });
}

absl::StatusOr<std::vector<SnapshotId>> SqliteEventStore::ListSnapshots() {
  ASSIGN_OR_RETURN(ReaderLease db, readers_.Acquire());
  ASSIGN_OR_RETURN(Statement stmt, db->Prepare("SELECT projection, seq FROM projection_snapshots "
                                               "ORDER BY seq, projection"));
  std::vector<SnapshotId> ids;
  while (true) {
    ASSIGN_OR_RETURN(bool row, stmt.Step());
    if (!row) return ids;
    ids.push_back(SnapshotId{stmt.ColumnText(0), stmt.ColumnInt(1)});
  }
}

absl::StatusOr<std::vector<RecordedEvent>> SqliteEventStore::ReadFiltered(const EventFilter& filter,
                                                                          int64_t after_seq,
                                                                          int limit) {
  if (limit <= 0) return absl::InvalidArgumentError("read: limit must be > 0");
  if (!filter.stream.empty() && !filter.stream_prefix.empty()) {
    return absl::InvalidArgumentError("read: stream and stream_prefix exclude each other");
  }
  std::string sql = absl::StrCat("SELECT ", kEventColumns, " FROM events WHERE seq > ?");
  if (filter.until_seq > 0) absl::StrAppend(&sql, " AND seq <= ?");
  if (!filter.stream.empty()) absl::StrAppend(&sql, " AND stream = ?");
  // substr() rather than LIKE or GLOB: a prefix may hold their wildcard characters.
  if (!filter.stream_prefix.empty()) absl::StrAppend(&sql, " AND substr(stream, 1, ?) = ?");
  if (!filter.types.empty()) {
    absl::StrAppend(&sql, " AND type IN (?");
    for (size_t i = 1; i < filter.types.size(); ++i) absl::StrAppend(&sql, ",?");
    absl::StrAppend(&sql, ")");
  }
  absl::StrAppend(&sql, " ORDER BY seq LIMIT ?");
  ASSIGN_OR_RETURN(ReaderLease db, readers_.Acquire());
  ASSIGN_OR_RETURN(Statement stmt, db->Prepare(sql));
  int i = 1;
  stmt.Bind(i++, after_seq);
  if (filter.until_seq > 0) stmt.Bind(i++, filter.until_seq);
  if (!filter.stream.empty()) stmt.BindText(i++, filter.stream);
  if (!filter.stream_prefix.empty()) {
    stmt.Bind(i++, static_cast<int64_t>(filter.stream_prefix.size()));
    stmt.BindText(i++, filter.stream_prefix);
  }
  for (const std::string& type : filter.types) stmt.BindText(i++, type);
  stmt.Bind(i, limit);
  return CollectEvents(stmt);
}

absl::StatusOr<std::optional<v1::Checkpoint>> SqliteEventStore::LatestCheckpoint() {
  ASSIGN_OR_RETURN(ReaderLease db, readers_.Acquire());
  ASSIGN_OR_RETURN(Statement stmt,
                   db->Prepare(absl::StrCat("SELECT ", kCheckpointColumns,
                                            " FROM checkpoints ORDER BY seq DESC LIMIT 1")));
  ASSIGN_OR_RETURN(bool row, stmt.Step());
  if (!row) return std::optional<v1::Checkpoint>();
  return std::optional<v1::Checkpoint>(ReadCheckpointRow(stmt));
}

absl::StatusOr<std::vector<v1::Checkpoint>> SqliteEventStore::ReadCheckpoints(int64_t after_seq,
                                                                              int limit) {
  if (limit <= 0) return absl::InvalidArgumentError("read: limit must be > 0");
  ASSIGN_OR_RETURN(ReaderLease db, readers_.Acquire());
  ASSIGN_OR_RETURN(Statement stmt,
                   db->Prepare(absl::StrCat("SELECT ", kCheckpointColumns,
                                            " FROM checkpoints WHERE seq > ? ORDER BY seq "
                                            "LIMIT ?")));
  stmt.Bind(1, after_seq).Bind(2, limit);
  std::vector<v1::Checkpoint> checkpoints;
  while (true) {
    ASSIGN_OR_RETURN(bool row, stmt.Step());
    if (!row) break;
    checkpoints.push_back(ReadCheckpointRow(stmt));
  }
  return checkpoints;
}

}  // namespace credledger::store
