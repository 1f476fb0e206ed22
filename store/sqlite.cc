#include "store/sqlite.h"

#include <sys/types.h>

#include "absl/strings/str_cat.h"
#include "common/atomic_file.h"

namespace credledger::store {
namespace {

// The mode of a database file this process creates: the log is for the service alone
// (docs/operations.md, "File modes").
constexpr mode_t kNewDatabaseMode = 0600;

}  // namespace

absl::Status SqliteError(int rc, absl::string_view context, sqlite3* db) {
  std::string message = absl::StrCat(context, ": ", sqlite3_errstr(rc));
  if (db != nullptr) {
    const char* detail = sqlite3_errmsg(db);
    if (detail != nullptr && absl::string_view(detail) != sqlite3_errstr(rc)) {
      absl::StrAppend(&message, " (", detail, ")");
    }
  }
  // SQLite words every I/O error alike; a failed fsync deserves its name.
  if (rc == SQLITE_IOERR_FSYNC) absl::StrAppend(&message, " (fsync failed)");
  switch (rc & 0xff) {
    case SQLITE_BUSY:
    case SQLITE_LOCKED:
    case SQLITE_FULL:
    case SQLITE_IOERR:
      return absl::UnavailableError(message);
    case SQLITE_CORRUPT:
    case SQLITE_NOTADB:
      return absl::DataLossError(message);
    case SQLITE_CONSTRAINT:
      return absl::AbortedError(message);
    case SQLITE_READONLY:
    case SQLITE_PERM:
    case SQLITE_CANTOPEN:
      return absl::FailedPreconditionError(message);
    default:
      return absl::InternalError(message);
  }
}

Statement::~Statement() {
  if (stmt_ == nullptr) return;
  if (owned_) {
    sqlite3_finalize(stmt_);
  } else {
    Reset();  // also ends the read transaction an unfinished step holds
  }
}

Statement::Statement(Statement&& other) noexcept
    : db_(other.db_), stmt_(other.stmt_), owned_(other.owned_) {
  other.stmt_ = nullptr;
}

Statement& Statement::Bind(int index, int64_t value) {
  sqlite3_bind_int64(stmt_, index, value);
  return *this;
}

Statement& Statement::BindText(int index, absl::string_view value) {
  sqlite3_bind_text64(stmt_, index, value.data(), value.size(), SQLITE_TRANSIENT, SQLITE_UTF8);
  return *this;
}

Statement& Statement::BindBlob(int index, absl::string_view value) {
  // A zero-length blob must still bind as a blob, not NULL.
  static const char kEmpty = 0;
  sqlite3_bind_blob64(stmt_, index, value.empty() ? &kEmpty : value.data(), value.size(),
                      SQLITE_TRANSIENT);
  return *this;
}

absl::StatusOr<bool> Statement::Step() {
  int rc = sqlite3_step(stmt_);
  if (rc == SQLITE_ROW) return true;
  if (rc == SQLITE_DONE) return false;
  return SqliteError(rc, sqlite3_sql(stmt_), db_);
}

absl::Status Statement::Run() {
  while (true) {
    absl::StatusOr<bool> row = Step();
    if (!row.ok()) return row.status();
    if (!*row) return absl::OkStatus();
  }
}

void Statement::Reset() {
  sqlite3_reset(stmt_);
  sqlite3_clear_bindings(stmt_);
}

int64_t Statement::ColumnInt(int column) const { return sqlite3_column_int64(stmt_, column); }

std::string Statement::ColumnText(int column) const { return std::string(ColumnTextView(column)); }

std::string Statement::ColumnBlob(int column) const { return std::string(ColumnBlobView(column)); }

absl::string_view Statement::ColumnTextView(int column) const {
  const unsigned char* text = sqlite3_column_text(stmt_, column);
  const int size = sqlite3_column_bytes(stmt_, column);
  return text == nullptr ? absl::string_view()
                         : absl::string_view(reinterpret_cast<const char*>(text), size);
}

absl::string_view Statement::ColumnBlobView(int column) const {
  const void* blob = sqlite3_column_blob(stmt_, column);
  const int size = sqlite3_column_bytes(stmt_, column);
  return blob == nullptr ? absl::string_view()
                         : absl::string_view(static_cast<const char*>(blob), size);
}

bool Statement::ColumnIsNull(int column) const {
  return sqlite3_column_type(stmt_, column) == SQLITE_NULL;
}

absl::StatusOr<std::unique_ptr<Connection>> Connection::Open(const std::filesystem::path& path,
                                                             bool create, bool read_only,
                                                             const std::string& vfs) {
  int flags = SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_EXRESCODE;
  if (read_only) {
    flags |= SQLITE_OPEN_READONLY;
  } else {
    flags |= SQLITE_OPEN_READWRITE | (create ? SQLITE_OPEN_CREATE : 0);
  }
  if (create && !read_only) {
    // SQLite would create the file with mode 0644 less the umask, and gives its -wal, -shm
    // and journal files the database file's mode: a file made here first, with exactly
    // 0600, keeps all of them private. An existing file keeps its mode. Any other failure
    // (a missing folder, no permission) is left to sqlite3_open_v2, which reports it.
    common::CreateNewFile(path, {.label = "open", .mode = kNewDatabaseMode, .exact_mode = true})
        .IgnoreError();
  }
  sqlite3* db = nullptr;
  int rc = sqlite3_open_v2(path.c_str(), &db, flags, vfs.empty() ? nullptr : vfs.c_str());
  if (rc != SQLITE_OK) {
    absl::Status status = SqliteError(rc, absl::StrCat("open ", path.string()), db);
    sqlite3_close_v2(db);
    return status;
  }
  return std::unique_ptr<Connection>(new Connection(db));
}

Connection::~Connection() {
  for (auto& [sql, stmt] : cached_) sqlite3_finalize(stmt);
  sqlite3_close_v2(db_);
}

absl::StatusOr<sqlite3_stmt*> Connection::Cached(absl::string_view sql, absl::string_view context) {
  auto it = cached_.find(sql);
  if (it == cached_.end()) {
    sqlite3_stmt* stmt = nullptr;
    const int rc = sqlite3_prepare_v3(db_, sql.data(), static_cast<int>(sql.size()),
                                      SQLITE_PREPARE_PERSISTENT, &stmt, nullptr);
    if (rc != SQLITE_OK) return SqliteError(rc, context, db_);
    it = cached_.emplace(std::string(sql), stmt).first;
  }
  return it->second;
}

absl::Status Connection::ExecCached(absl::string_view sql, absl::string_view context) {
  absl::StatusOr<sqlite3_stmt*> stmt = Cached(sql, context);
  if (!stmt.ok()) return stmt.status();
  int rc = sqlite3_step(*stmt);
  while (rc == SQLITE_ROW) rc = sqlite3_step(*stmt);
  absl::Status status = rc == SQLITE_DONE ? absl::OkStatus() : SqliteError(rc, context, db_);
  sqlite3_reset(*stmt);  // leaves the error code of the step on the connection
  return status;
}

absl::StatusOr<Statement> Connection::PrepareCached(absl::string_view sql) {
  absl::StatusOr<sqlite3_stmt*> stmt = Cached(sql, absl::StrCat("prepare: ", sql));
  if (!stmt.ok()) return stmt.status();
  return Statement(db_, *stmt, /*owned=*/false);
}

absl::Status Connection::Exec(absl::string_view sql, absl::string_view context) {
  int rc = sqlite3_exec(db_, std::string(sql).c_str(), nullptr, nullptr, nullptr);
  if (rc != SQLITE_OK) return SqliteError(rc, context, db_);
  return absl::OkStatus();
}

absl::StatusOr<Statement> Connection::Prepare(absl::string_view sql) {
  sqlite3_stmt* stmt = nullptr;
  int rc = sqlite3_prepare_v3(db_, sql.data(), static_cast<int>(sql.size()),
                              SQLITE_PREPARE_PERSISTENT, &stmt, nullptr);
  if (rc != SQLITE_OK) return SqliteError(rc, absl::StrCat("prepare: ", sql), db_);
  return Statement(db_, stmt);
}

absl::StatusOr<int64_t> Connection::QueryInt(absl::string_view sql, int64_t fallback) {
  absl::StatusOr<Statement> stmt = Prepare(sql);
  if (!stmt.ok()) return stmt.status();
  absl::StatusOr<bool> row = stmt->Step();
  if (!row.ok()) return row.status();
  if (!*row || stmt->ColumnIsNull(0)) return fallback;
  return stmt->ColumnInt(0);
}

}  // namespace credledger::store
