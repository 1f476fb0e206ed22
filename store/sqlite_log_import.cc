// SqliteLogImport (sqlite_log_import.h): a copied log's rows into a new SQLite file, as stored.
#include "store/sqlite_log_import.h"

#include <string>
#include <system_error>
#include <utility>

#include "absl/strings/str_cat.h"
#include "common/atomic_file.h"
#include "common/status_macros.h"
#include "store/event_columns.h"
#include "store/migrations.h"
#include "store/sqlite_event_rows.h"

namespace credledger::store {

SqliteLogImport::SqliteLogImport(std::filesystem::path destination)
    : destination_(std::move(destination)), partial_(destination_.string() + ".partial") {}

absl::StatusOr<std::unique_ptr<SqliteLogImport>> SqliteLogImport::Start(
    const std::filesystem::path& destination) {
  std::error_code error;
  if (std::filesystem::exists(std::filesystem::symlink_status(destination, error))) {
    return absl::FailedPreconditionError(absl::StrCat(
        "\"", destination.string(), "\" exists; a copy is written to a new file only"));
  }
  auto import = std::unique_ptr<SqliteLogImport>(new SqliteLogImport(destination));
  import->RemovePartial();
  absl::StatusOr<std::unique_ptr<Connection>> db =
      Connection::Open(import->partial_, /*create=*/true, /*read_only=*/false);
  if (!db.ok()) {
    return absl::FailedPreconditionError(
        absl::StrCat("cannot create \"", import->partial_.string(), "\": ", db.status().message()));
  }
  import->db_ = *std::move(db);
  Connection& conn = *import->db_;
  RETURN_IF_ERROR(ApplyMigrations(conn, EmbeddedMigrations()));
  ASSIGN_OR_RETURN(Statement insert_event,
                   conn.Prepare(absl::StrCat("INSERT INTO events (", kEventColumns,
                                             ") VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?)")));
  ASSIGN_OR_RETURN(Statement insert_checkpoint,
                   conn.Prepare(absl::StrCat("INSERT INTO checkpoints (", kCheckpointColumns,
                                             ") VALUES (?,?,?,?,?)")));
  ASSIGN_OR_RETURN(Statement insert_snapshot,
                   conn.Prepare("INSERT INTO projection_snapshots (projection, seq, "
                                "schema_version, state, chain_hash, state_sha256, key_id, "
                                "signature) VALUES (?,?,?,?,?,?,?,?)"));
  import->insert_event_.emplace(std::move(insert_event));
  import->insert_checkpoint_.emplace(std::move(insert_checkpoint));
  import->insert_snapshot_.emplace(std::move(insert_snapshot));
  RETURN_IF_ERROR(conn.Exec("BEGIN IMMEDIATE", "copy: begin"));
  return import;
}

SqliteLogImport::~SqliteLogImport() {
  Close();  // an open transaction is rolled back
  if (!published_) RemovePartial();
}

void SqliteLogImport::Close() {
  insert_event_.reset();
  insert_checkpoint_.reset();
  insert_snapshot_.reset();
  db_.reset();
}

void SqliteLogImport::RemovePartial() const {
  std::error_code ignored;
  std::filesystem::remove(partial_, ignored);
  // A journal left by a copy that was killed would be taken for the new file's own.
  std::filesystem::remove(partial_.string() + "-journal", ignored);
}

absl::Status SqliteLogImport::AddEvents(const std::vector<RecordedEvent>& events) {
  Statement& insert = *insert_event_;
  for (const RecordedEvent& e : events) {
    insert.Reset();
    BindEventRow(insert, e);
    absl::Status inserted = insert.Run();
    if (!inserted.ok()) {
      return absl::Status(inserted.code(),
                          absl::StrCat("copy: event seq ", e.seq, ": ", inserted.message()));
    }
  }
  return absl::OkStatus();
}

absl::Status SqliteLogImport::AddCheckpoints(const std::vector<v1::Checkpoint>& checkpoints) {
  Statement& insert = *insert_checkpoint_;
  for (const v1::Checkpoint& c : checkpoints) {
    insert.Reset();
    BindCheckpointRow(insert, c);
    absl::Status inserted = insert.Run();
    if (!inserted.ok()) {
      return absl::Status(inserted.code(), absl::StrCat("copy: checkpoint at seq ", c.seq(), ": ",
                                                        inserted.message()));
    }
  }
  return absl::OkStatus();
}

absl::Status SqliteLogImport::AddSnapshot(const Snapshot& s) {
  Statement& insert = *insert_snapshot_;
  insert.Reset();
  insert.BindText(1, s.projection)
      .Bind(2, s.seq)
      .Bind(3, s.schema_version)
      .BindBlob(4, s.state)
      .BindBlob(5, s.chain_hash)
      .BindBlob(6, s.state_sha256)
      .BindText(7, s.key_id)
      .BindBlob(8, s.signature);
  absl::Status inserted = insert.Run();
  if (!inserted.ok()) {
    return absl::Status(inserted.code(),
                        absl::StrCat("copy: snapshot \"", s.projection, "\" at seq ", s.seq, ": ",
                                     inserted.message()));
  }
  return absl::OkStatus();
}

absl::Status SqliteLogImport::Commit() {
  insert_event_->Reset();
  insert_checkpoint_->Reset();
  insert_snapshot_->Reset();
  RETURN_IF_ERROR(db_->Exec("COMMIT", "copy: commit"));
  Close();
  return absl::OkStatus();
}

absl::Status SqliteLogImport::Publish() {
  RETURN_IF_ERROR(
      common::MoveIntoPlace(partial_, destination_, {.label = "copy", .replace = false}));
  published_ = true;
  return absl::OkStatus();
}

}  // namespace credledger::store
