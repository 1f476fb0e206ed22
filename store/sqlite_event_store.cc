// SqliteEventStore (sqlite_event_store.h): opening the log, and the writer thread that
// group-commits queued commands (docs/design.md, "Group commit"). The read side is in
// sqlite_event_store_reads.cc, the transaction a command sees in sqlite_write_transaction.cc.
#include "store/sqlite_event_store.h"

#include <algorithm>
#include <filesystem>
#include <map>
#include <string>
#include <system_error>
#include <utility>

#include "absl/strings/str_cat.h"
#include "common/fault_points.h"
#include "common/status_macros.h"
#include "store/log_hash.h"
#include "store/migrations.h"
#include "store/sqlite_event_store_internal.h"

namespace credledger::store {

absl::Status ConfigureConnection(Connection& db, const SqliteEventStoreOptions& options) {
  RETURN_IF_ERROR(db.Exec(
      absl::StrCat("PRAGMA busy_timeout = ", absl::ToInt64Milliseconds(options.busy_timeout)),
      "pragma busy_timeout"));
  RETURN_IF_ERROR(db.Exec("PRAGMA foreign_keys = ON", "pragma foreign_keys"));
  RETURN_IF_ERROR(db.Exec("PRAGMA recursive_triggers = ON", "pragma recursive_triggers"));
  const char* sync =
      options.synchronous == SqliteEventStoreOptions::Synchronous::kFull ? "FULL" : "NORMAL";
  return db.Exec(absl::StrCat("PRAGMA synchronous = ", sync), "pragma synchronous");
}

SqliteEventStore::SqliteEventStore(SqliteEventStoreOptions options)
    : EventLog(options.max_batch_commands),
      options_(std::move(options)),
      readers_(options_.read_connections, [this] { return OpenReader(); }) {}

absl::StatusOr<std::unique_ptr<SqliteEventStore>> SqliteEventStore::Open(
    SqliteEventStoreOptions options) {
  if (options.path.empty()) return absl::InvalidArgumentError("store: path must not be empty");
  if (options.read_connections < 1 || options.max_batch_commands < 1) {
    return absl::InvalidArgumentError(
        "store: read_connections and max_batch_commands must be >= 1");
  }
  if (!options.vfs.empty() && sqlite3_vfs_find(options.vfs.c_str()) == nullptr) {
    return absl::InvalidArgumentError(
        absl::StrCat("store: vfs \"", options.vfs, "\" is not a registered SQLite VFS"));
  }
  auto store = std::unique_ptr<SqliteEventStore>(new SqliteEventStore(std::move(options)));
  RETURN_IF_ERROR(store->Initialize());
  if (!store->options_.read_only) {
    store->StartWriter();
  }
  return store;
}

absl::Status SqliteEventStore::InitializeReadOnly() {
  std::error_code ec;
  if (!std::filesystem::exists(options_.path, ec)) {
    return absl::FailedPreconditionError(
        absl::StrCat("store ", options_.path.string(), ": no such database file"));
  }
  ASSIGN_OR_RETURN(std::unique_ptr<Connection> db,
                   Connection::Open(options_.path, /*create=*/false,
                                    /*read_only=*/true, options_.vfs));
  RETURN_IF_ERROR(ConfigureConnection(*db, options_));
  ASSIGN_OR_RETURN(int64_t version, SchemaVersion(*db));
  ASSIGN_OR_RETURN(const int64_t newest, NewestVersion(EmbeddedMigrations()));
  if (version != newest) {
    return absl::FailedPreconditionError(
        absl::StrCat("store ", options_.path.string(), ": schema version ", version,
                     ", this binary reads ", newest, " read-only; ",
                     version < newest ? "open it read-write once (credledger migrate) to migrate it"
                                      : "use a newer credledger"));
  }
  RETURN_IF_ERROR(CheckStoredTypes(*db));
  ASSIGN_OR_RETURN(head_, LoadHead(*db));
  readers_.Release(std::move(db));
  OpenReadOnly(head_.seq);
  return absl::OkStatus();
}

absl::Status SqliteEventStore::CheckStoredTypes(Connection& db) {
  std::map<std::string, int64_t> stored;
  ASSIGN_OR_RETURN(Statement types, db.Prepare("SELECT type, max_schema_version FROM event_types"));
  while (true) {
    ASSIGN_OR_RETURN(bool more, types.Step());
    if (!more) break;
    stored[types.ColumnText(0)] = types.ColumnInt(1);
  }
  return options_.codec->CheckStoredTypes(stored);
}

absl::Status SqliteEventStore::Initialize() {
  if (options_.read_only) return InitializeReadOnly();
  ASSIGN_OR_RETURN(writer_, Connection::Open(options_.path, /*create=*/true,
                                             /*read_only=*/false, options_.vfs));
  // The busy timeout first: switching to WAL waits for a lock another connection holds.
  RETURN_IF_ERROR(ConfigureConnection(*writer_, options_));
  {
    ASSIGN_OR_RETURN(Statement wal, writer_->Prepare("PRAGMA journal_mode = WAL"));
    ASSIGN_OR_RETURN(bool row, wal.Step());
    if (!row || wal.ColumnText(0) != "wal") {
      return absl::FailedPreconditionError(
          absl::StrCat("store ", options_.path.string(), ": cannot enable WAL mode"));
    }
  }
  RETURN_IF_ERROR(ApplyMigrations(*writer_, EmbeddedMigrations()));
  RETURN_IF_ERROR(CheckStoredTypes(*writer_));

  ASSIGN_OR_RETURN(head_, LoadHead(*writer_));
  ASSIGN_OR_RETURN(transaction_, Transaction::Create(this));
  PublishHead(head_.seq);
  return absl::OkStatus();
}

absl::StatusOr<SqliteEventStore::Head> SqliteEventStore::LoadHead(Connection& db) {
  ASSIGN_OR_RETURN(Statement stmt, db.Prepare("SELECT seq, chain_hash, recorded_at_us FROM "
                                              "events ORDER BY seq DESC LIMIT 1"));
  ASSIGN_OR_RETURN(bool row, stmt.Step());
  if (!row) return Head{0, ZeroHash(), 0};
  return Head{stmt.ColumnInt(0), stmt.ColumnBlob(1), stmt.ColumnInt(2)};
}

SqliteEventStore::~SqliteEventStore() { Close(); }

void SqliteEventStore::RunBatch(std::vector<Pending*>& batch) {
  Connection& db = *writer_;
  absl::Status batch_error = db.ExecCached("BEGIN IMMEDIATE", "append: begin");
  if (!batch_error.ok() && (sqlite3_extended_errcode(db.raw()) & 0xff) == SQLITE_BUSY) {
    batch_error = absl::UnavailableError(absl::StrCat(
        "the event log is locked by another connection for longer than the busy timeout (",
        absl::FormatDuration(options_.busy_timeout), ")"));
  }
  const Head batch_start = head_;
  for (size_t i = 0; i < batch.size() && batch_error.ok(); ++i) {
    Pending& p = *batch[i];
    const Head saved = head_;
    p.result = db.ExecCached("SAVEPOINT command", "append: savepoint");
    if (p.result.ok()) p.result = p.command(*transaction_);
    if (p.result.ok()) {
      p.result = db.ExecCached("RELEASE command", "append: release");
      if (!p.result.ok()) batch_error = p.result;
      common::FaultPoint("store.after_batch_command");
      continue;
    }
    head_ = saved;
    // An I/O error or a full disk can roll back the whole transaction under us.
    if (sqlite3_get_autocommit(db.raw())) {
      batch_error = absl::UnavailableError(
          absl::StrCat("append: transaction rolled back: ", p.result.message()));
      break;
    }
    absl::Status undo = db.ExecCached("ROLLBACK TO command", "append: rollback to savepoint");
    if (undo.ok()) undo = db.ExecCached("RELEASE command", "append: release");
    if (!undo.ok()) batch_error = undo;
  }
  // The fence is asked last, right before the commit: a replica that lost its Lease while the
  // batch ran commits nothing.
  if (batch_error.ok() && options_.write_fence) batch_error = options_.write_fence();
  if (batch_error.ok()) {
    common::FaultPoint("store.before_commit");
    batch_error = db.ExecCached("COMMIT", "append: commit");
    // Durable, but no caller knows yet: a kill here leaves commands committed unanswered.
    if (batch_error.ok()) common::FaultPoint("store.after_commit");
  }
  if (!batch_error.ok()) {
    if (!sqlite3_get_autocommit(db.raw()))
      db.ExecCached("ROLLBACK", "append: rollback").IgnoreError();
    // The commit did not happen, so the head is the batch's start. This holds for a failed
    // fsync too: SQLite makes a WAL commit visible only after its fsync succeeded.
    head_ = batch_start;
    FailCommands(batch, batch_error, "not committed, nothing was appended");
  }
  PublishHead(head_.seq);
  CountBatch(batch.size(), head_.seq - batch_start.seq, !batch_error.ok());
  Complete(batch);
}

}  // namespace credledger::store
