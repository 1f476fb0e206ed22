// PostgresEventStore's read side (docs/postgres.md, "Reads"): a small pool of connections
// (read_connections of them kept, store/connection_pool.h), each call one statement on a connection
// borrowed from it, which PostgreSQL runs in a snapshot of its own, again on another connection
// when the server had ended the one borrowed; thread-safe, as every public method.
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "common/status_macros.h"
#include "store/event_columns.h"
#include "store/log_hash.h"
#include "store/postgres/postgres_event_store.h"
#include "store/postgres/postgres_event_store_internal.h"

namespace credledger::store {

absl::StatusOr<PgResult> PostgresEventStore::Read(absl::string_view sql, const PgParams& params,
                                                  absl::string_view context, bool prepare) {
  // A kept connection lost since its last use fails at once; every one of them is dropped
  // before a new connection is opened, so read_connections + 1 tries reach one that works.
  absl::Status lost;
  for (int tries = 0; tries <= options_.read_connections; ++tries) {
    ASSIGN_OR_RETURN(ReaderLease db, readers_.Acquire());
    absl::StatusOr<PgResult> result =
        prepare ? db->Query(sql, params, context) : db->QueryOnce(sql, params, context);
    if (result.ok() || (db->ok() && !SessionLost(result.status()))) return result;
    db.Discard();
    lost = result.status();
  }
  return lost;
}

absl::StatusOr<std::vector<RecordedEvent>> PostgresEventStore::ReadAll(int64_t after_seq,
                                                                       int limit) {
  std::vector<RecordedEvent> events;
  RETURN_IF_ERROR(ReadAllInto(after_seq, limit, EventFields::kAll, events));
  return events;
}

absl::Status PostgresEventStore::ReadAllInto(int64_t after_seq, int limit, EventFields fields,
                                             std::vector<RecordedEvent>& page) {
  if (limit <= 0) return absl::InvalidArgumentError("read: limit must be > 0");
  const bool all = fields == EventFields::kAll;
  ASSIGN_OR_RETURN(PgResult rows,
                   Read(absl::StrCat("SELECT ", all ? kEventColumns : kFoldColumns,
                                     " FROM events WHERE seq > $1 ORDER BY seq LIMIT $2"),
                        PgParams().Int(after_seq).Int(limit), "read"));
  page.resize(rows.rows());
  for (int i = 0; i < rows.rows(); ++i) ReadEventRowInto(rows, i, all, page[i]);
  return absl::OkStatus();
}

absl::StatusOr<std::vector<RecordedEvent>> PostgresEventStore::ReadStream(absl::string_view stream,
                                                                          int64_t from_version,
                                                                          int limit) {
  if (limit <= 0) return absl::InvalidArgumentError("read: limit must be > 0");
  ASSIGN_OR_RETURN(PgResult rows,
                   Read(absl::StrCat("SELECT ", kEventColumns,
                                     " FROM events WHERE stream = $1 AND stream_version >= $2 "
                                     "ORDER BY stream_version LIMIT $3"),
                        PgParams().Text(stream).Int(from_version).Int(limit), "read stream"));
  std::vector<RecordedEvent> events;
  for (int i = 0; i < rows.rows(); ++i) events.push_back(ReadEventRow(rows, i));
  return events;
}

absl::StatusOr<RequestProbe> PostgresEventStore::ProbeRequest(absl::string_view request_id,
                                                              absl::string_view stream) {
  // One statement: both answers come from its snapshot. A request's events have the event ids
  // of indexes 0, 1, ...: the first one tells whether it appended any.
  ASSIGN_OR_RETURN(
      PgResult row,
      Read("SELECT CAST(EXISTS (SELECT 1 FROM events WHERE event_id = $1) AS integer), "
           "COALESCE((SELECT stream_version FROM events WHERE stream = $2 "
           "ORDER BY stream_version DESC LIMIT 1), -1)",
           PgParams().Bytes(EventIdFor(request_id, 0)).Text(stream), "read: probe request"));
  return RequestProbe{row.Int(0, 0) != 0, row.Int(0, 1)};
}

absl::StatusOr<int64_t> PostgresEventStore::SeqAtTime(int64_t time_us) {
  ASSIGN_OR_RETURN(PgResult row,
                   Read("SELECT COALESCE(MAX(seq), 0) FROM events WHERE recorded_at_us <= $1",
                        PgParams().Int(time_us), "read: seq at time"));
  return row.Int(0, 0);
}

absl::StatusOr<std::optional<Snapshot>> PostgresEventStore::LoadSnapshot(
    absl::string_view projection, int64_t max_seq) {
  ASSIGN_OR_RETURN(PgResult row,
                   Read("SELECT seq, schema_version, state, chain_hash, state_sha256, key_id, "
                        "signature FROM projection_snapshots WHERE projection = $1 AND seq <= $2 "
                        "ORDER BY seq DESC LIMIT 1",
                        PgParams().Text(projection).Int(max_seq), "read snapshot"));
  if (row.rows() == 0) return std::optional<Snapshot>();
  return std::optional<Snapshot>(Snapshot{
      .projection = std::string(projection),
      .seq = row.Int(0, 0),
      .schema_version = static_cast<uint32_t>(row.Int(0, 1)),
      .state = row.String(0, 2),
      .chain_hash = row.String(0, 3),
      .state_sha256 = row.String(0, 4),
      .key_id = row.String(0, 5),
      .signature = row.String(0, 6),
  });
}

absl::StatusOr<std::vector<SnapshotId>> PostgresEventStore::ListSnapshots() {
  ASSIGN_OR_RETURN(PgResult rows,
                   Read("SELECT projection, seq FROM projection_snapshots ORDER BY seq, projection",
                        PgParams(), "read snapshots"));
  std::vector<SnapshotId> ids;
  for (int i = 0; i < rows.rows(); ++i)
    ids.push_back(SnapshotId{rows.String(i, 0), rows.Int(i, 1)});
  return ids;
}

absl::StatusOr<std::vector<RecordedEvent>> PostgresEventStore::ReadFiltered(
    const EventFilter& filter, int64_t after_seq, int limit) {
  if (limit <= 0) return absl::InvalidArgumentError("read: limit must be > 0");
  if (!filter.stream.empty() && !filter.stream_prefix.empty()) {
    return absl::InvalidArgumentError("read: stream and stream_prefix exclude each other");
  }
  PgParams params;
  params.Int(after_seq);
  std::string sql = absl::StrCat("SELECT ", kEventColumns, " FROM events WHERE seq > $1");
  auto next = [&params] { return absl::StrCat("$", params.size()); };
  if (filter.until_seq > 0) {
    params.Int(filter.until_seq);
    absl::StrAppend(&sql, " AND seq <= ", next());
  }
  if (!filter.stream.empty()) {
    params.Text(filter.stream);
    absl::StrAppend(&sql, " AND stream = ", next());
  }
  // starts_with() rather than LIKE: a prefix may hold LIKE's wildcard characters.
  if (!filter.stream_prefix.empty()) {
    params.Text(filter.stream_prefix);
    absl::StrAppend(&sql, " AND starts_with(stream, ", next(), ")");
  }
  if (!filter.types.empty()) {
    absl::StrAppend(&sql, " AND type IN (");
    for (size_t i = 0; i < filter.types.size(); ++i) {
      params.Text(filter.types[i]);
      absl::StrAppend(&sql, i == 0 ? "" : ", ", next());
    }
    absl::StrAppend(&sql, ")");
  }
  params.Int(limit);
  absl::StrAppend(&sql, " ORDER BY seq LIMIT ", next());
  ASSIGN_OR_RETURN(PgResult rows, Read(sql, params, "read filtered", /*prepare=*/false));
  std::vector<RecordedEvent> events;
  for (int i = 0; i < rows.rows(); ++i) events.push_back(ReadEventRow(rows, i));
  return events;
}

absl::StatusOr<std::optional<v1::Checkpoint>> PostgresEventStore::LatestCheckpoint() {
  ASSIGN_OR_RETURN(PgResult row, Read(absl::StrCat("SELECT ", kCheckpointColumns,
                                                   " FROM checkpoints ORDER BY seq DESC LIMIT 1"),
                                      PgParams(), "read checkpoint"));
  if (row.rows() == 0) return std::optional<v1::Checkpoint>();
  return std::optional<v1::Checkpoint>(ReadCheckpointRow(row, 0));
}

absl::StatusOr<std::vector<v1::Checkpoint>> PostgresEventStore::ReadCheckpoints(int64_t after_seq,
                                                                                int limit) {
  if (limit <= 0) return absl::InvalidArgumentError("read: limit must be > 0");
  ASSIGN_OR_RETURN(PgResult rows,
                   Read(absl::StrCat("SELECT ", kCheckpointColumns,
                                     " FROM checkpoints WHERE seq > $1 ORDER BY seq LIMIT $2"),
                        PgParams().Int(after_seq).Int(limit), "read checkpoints"));
  std::vector<v1::Checkpoint> checkpoints;
  for (int i = 0; i < rows.rows(); ++i) checkpoints.push_back(ReadCheckpointRow(rows, i));
  return checkpoints;
}

}  // namespace credledger::store
