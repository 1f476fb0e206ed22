// Thin RAII layer over the SQLite C API used by the store: a connection, prepared
// statements, and the mapping of SQLite result codes to absl::Status.
//
// Thread-safety: a Connection and its Statements belong to one thread at a time.
#pragma once

#include <sqlite3.h>

#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace credledger::store {

// Maps a SQLite result code to a status code: BUSY/LOCKED/FULL/IOERR → kUnavailable (retry
// later), CORRUPT/NOTADB → kDataLoss, CONSTRAINT → kAborted, READONLY/PERM → kFailedPrecondition,
// anything else → kInternal. `context` names the operation (for example "append: insert");
// the message then gives SQLite's words, and "(fsync failed)" for SQLITE_IOERR_FSYNC.
absl::Status SqliteError(int rc, absl::string_view context, sqlite3* db);

class Statement {
 public:
  // Finalizes `stmt` when destroyed when `owned`; else (a statement the connection keeps,
  // Connection::PrepareCached) resets it and clears its bindings.
  Statement(sqlite3* db, sqlite3_stmt* stmt, bool owned = true)
      : db_(db), stmt_(stmt), owned_(owned) {}
  ~Statement();
  Statement(const Statement&) = delete;
  Statement& operator=(const Statement&) = delete;
  Statement(Statement&& other) noexcept;

  // Binders take 1-based parameter indexes. Text and blob bytes are copied by SQLite.
  Statement& Bind(int index, int64_t value);
  Statement& BindText(int index, absl::string_view value);
  Statement& BindBlob(int index, absl::string_view value);

  // Steps once. Returns true when a row is available, false when done.
  // Errors: SqliteError mapping of the failing code.
  absl::StatusOr<bool> Step();
  // Steps to completion, expecting no rows to be needed. Errors as Step.
  absl::Status Run();
  // Resets for re-execution and clears bindings.
  void Reset();

  // Column readers, 0-based, valid after Step() returned true.
  int64_t ColumnInt(int column) const;
  std::string ColumnText(int column) const;
  std::string ColumnBlob(int column) const;
  bool ColumnIsNull(int column) const;
  // The column's bytes without a copy, as text or as a blob; valid until the next Step, Reset
  // or the statement's end.
  absl::string_view ColumnTextView(int column) const;
  absl::string_view ColumnBlobView(int column) const;

 private:
  sqlite3* db_;
  sqlite3_stmt* stmt_;
  bool owned_;
};

class Connection {
 public:
  // Opens (creating when `create`) the database at `path`; read-only when `read_only`;
  // through the registered VFS named `vfs` (empty: SQLite's default VFS). A database file it
  // creates has mode 0600 whatever the umask, and so have its -wal, -shm and journal files;
  // an existing file keeps its mode (docs/operations.md, "File modes").
  // Errors: kUnavailable/kFailedPrecondition/kDataLoss per SqliteError; kInternal for a
  // `vfs` that is not registered.
  static absl::StatusOr<std::unique_ptr<Connection>> Open(const std::filesystem::path& path,
                                                          bool create, bool read_only,
                                                          const std::string& vfs = "");
  ~Connection();
  Connection(const Connection&) = delete;
  Connection& operator=(const Connection&) = delete;

  // Runs one or more SQL statements without results. `context` names it in errors.
  absl::Status Exec(absl::string_view sql, absl::string_view context);
  // Runs one SQL statement without results through a statement compiled on its first use and
  // kept until the connection closes: for the transaction control (BEGIN, SAVEPOINT,
  // RELEASE, COMMIT, ...) that the write path runs for every command. Errors as Exec.
  absl::Status ExecCached(absl::string_view sql, absl::string_view context);
  // Compiles one statement. Errors: kInternal on invalid SQL.
  absl::StatusOr<Statement> Prepare(absl::string_view sql);
  // Like Prepare, for SQL run often (the log's page reads): the statement is compiled on its
  // first use and kept until the connection closes; the returned Statement resets it when
  // destroyed. REQUIRES: no other Statement of the same `sql` from this call is alive.
  // Errors as Prepare.
  absl::StatusOr<Statement> PrepareCached(absl::string_view sql);
  // Reads a single integer (first column of the first row); `fallback` when there is no row.
  absl::StatusOr<int64_t> QueryInt(absl::string_view sql, int64_t fallback);

  sqlite3* raw() const { return db_; }

 private:
  explicit Connection(sqlite3* db) : db_(db) {}
  // The kept statement of `sql`, compiled on first use. Errors as Prepare, naming `context`.
  absl::StatusOr<sqlite3_stmt*> Cached(absl::string_view sql, absl::string_view context);
  sqlite3* db_;
  // ExecCached's and PrepareCached's statements by SQL text; finalized before the connection
  // closes.
  std::map<std::string, sqlite3_stmt*, std::less<>> cached_;
};

}  // namespace credledger::store
