// PostgresLogImport (postgres_log_import.h): a copied log's rows into an empty PostgreSQL log,
// as stored, in one transaction.
#include "store/postgres/postgres_log_import.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "common/status_macros.h"
#include "store/log_hash.h"
#include "store/postgres/pg_migrations.h"
#include "store/postgres/postgres_event_rows.h"

namespace credledger::store {
namespace {

// Refuses a log that holds events. Checkpoints and snapshots name events (their triggers), so
// a log without events holds neither.
absl::Status RefuseNonEmptyLog(PgConnection& db) {
  ASSIGN_OR_RETURN(PgResult head, db.Query("SELECT seq FROM events ORDER BY seq DESC LIMIT 1",
                                           PgParams(), "copy: read the target's head"));
  if (head.rows() == 0) return absl::OkStatus();
  return absl::FailedPreconditionError(
      absl::StrCat("the log is not empty: it holds events up to seq ", head.Int(0, 0),
                   "; a copy goes into an empty log only"));
}

}  // namespace

absl::StatusOr<std::unique_ptr<PostgresLogImport>> PostgresLogImport::Start(
    const std::string& conninfo, const std::string& password, absl::Duration connect_timeout) {
  ASSIGN_OR_RETURN(std::unique_ptr<PgConnection> db,
                   PgConnection::Open(conninfo, connect_timeout, password));
  ASSIGN_OR_RETURN(const int64_t version, PostgresSchemaVersion(*db));
  if (version > 0) RETURN_IF_ERROR(RefuseNonEmptyLog(*db));
  RETURN_IF_ERROR(ApplyPostgresMigrations(*db, EmbeddedPostgresMigrations()));
  auto import = std::unique_ptr<PostgresLogImport>(new PostgresLogImport(std::move(db)));
  PgConnection& conn = *import->db_;
  RETURN_IF_ERROR(conn.Exec("BEGIN", "copy: begin"));
  import->in_transaction_ = true;
  RETURN_IF_ERROR(
      conn.Query("SELECT epoch FROM log_writer FOR UPDATE", PgParams(), "copy: lock log_writer")
          .status());
  RETURN_IF_ERROR(RefuseNonEmptyLog(conn));
  return import;
}

PostgresLogImport::PostgresLogImport(std::unique_ptr<PgConnection> db)
    : db_(std::move(db)), head_chain_hash_(ZeroHash()) {}

PostgresLogImport::~PostgresLogImport() {
  if (in_transaction_ && db_->ok()) db_->Exec("ROLLBACK", "copy: rollback").IgnoreError();
}

absl::Status PostgresLogImport::InsertAll(absl::string_view insert_sql,
                                          const std::vector<PgParams>& rows,
                                          absl::FunctionRef<std::string(size_t)> name) {
  PgConnection& db = *db_;
  ASSIGN_OR_RETURN(const PgStatement* insert, db.Prepare(insert_sql));
  RETURN_IF_ERROR(db.EnterPipeline());
  for (const PgParams& row : rows) RETURN_IF_ERROR(db.Send(*insert, row));
  RETURN_IF_ERROR(db.Sync());
  absl::Status outcome = absl::OkStatus();
  for (size_t i = 0; i < rows.size(); ++i) {
    PgResult result = db.NextResult();
    if (result.raw() == nullptr) {
      return absl::UnavailableError(absl::StrCat("copy: the connection closed: ",
                                                 PgError(nullptr, db.raw(), "postgres").message()));
    }
    if (outcome.ok()) outcome = CheckResult(result, db, name(i));
  }
  PgResult sync = db.NextResult();
  if (sync.raw() == nullptr || PQresultStatus(sync.raw()) != PGRES_PIPELINE_SYNC) {
    return absl::UnavailableError(
        absl::StrCat("copy: the connection closed mid-pipeline: ", outcome.message()));
  }
  RETURN_IF_ERROR(db.ExitPipeline());
  return outcome;
}

absl::Status PostgresLogImport::AddEvents(const std::vector<RecordedEvent>& events) {
  if (events.empty()) return absl::OkStatus();
  std::vector<PgParams> rows;
  rows.reserve(events.size());
  for (const RecordedEvent& e : events) rows.push_back(EventRowParams(e));
  RETURN_IF_ERROR(InsertAll(InsertEventSql(), rows, [&](size_t i) {
    return absl::StrCat("copy: event seq ", events[i].seq);
  }));
  head_seq_ = events.back().seq;
  head_chain_hash_ = events.back().chain_hash;
  return absl::OkStatus();
}

absl::Status PostgresLogImport::AddCheckpoints(const std::vector<v1::Checkpoint>& checkpoints) {
  std::vector<PgParams> rows;
  rows.reserve(checkpoints.size());
  for (const v1::Checkpoint& c : checkpoints) rows.push_back(CheckpointRowParams(c));
  return InsertAll(InsertCheckpointSql(), rows, [&](size_t i) {
    return absl::StrCat("copy: checkpoint at seq ", checkpoints[i].seq());
  });
}

absl::Status PostgresLogImport::AddSnapshot(const Snapshot& snapshot) {
  return db_
      ->Query(InsertSnapshotSql(), SnapshotRowParams(snapshot),
              absl::StrCat("copy: snapshot \"", snapshot.projection, "\" at seq ", snapshot.seq))
      .status();
}

absl::Status PostgresLogImport::Commit() {
  ASSIGN_OR_RETURN(PgResult moved, db_->Query("UPDATE log_writer SET seq = $1, chain_hash = $2",
                                              PgParams().Int(head_seq_).Bytes(head_chain_hash_),
                                              "copy: set log_writer to the copied head"));
  if (moved.affected_rows() != 1) {
    return absl::DataLossError("copy: the log_writer row of the PostgreSQL log is missing");
  }
  RETURN_IF_ERROR(db_->Exec("COMMIT", "copy: commit"));
  in_transaction_ = false;
  return absl::OkStatus();
}

}  // namespace credledger::store
