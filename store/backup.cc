#include "store/backup.h"

#include <sqlite3.h>

#include <memory>
#include <string>
#include <system_error>

#include "absl/cleanup/cleanup.h"
#include "absl/strings/str_cat.h"
#include "common/atomic_file.h"
#include "common/status_macros.h"
#include "store/sqlite.h"

namespace credledger::store {

absl::StatusOr<BackupResult> BackupDatabase(const std::filesystem::path& source,
                                            const std::filesystem::path& destination) {
  std::error_code error;
  if (!std::filesystem::exists(source, error)) {
    return absl::NotFoundError(absl::StrCat("backup: no database at \"", source.string(), "\""));
  }
  if (std::filesystem::exists(destination, error)) {
    return absl::AlreadyExistsError(
        absl::StrCat("backup: \"", destination.string(), "\" exists; choose a new file name"));
  }
  const std::filesystem::path temporary = destination.string() + ".partial";
  std::filesystem::remove(temporary, error);
  auto remove_temporary = absl::MakeCleanup([&] {
    std::error_code ignored;
    std::filesystem::remove(temporary, ignored);
  });

  ASSIGN_OR_RETURN(std::unique_ptr<Connection> from,
                   Connection::Open(source, /*create=*/false, /*read_only=*/true));
  ASSIGN_OR_RETURN(int64_t tables,
                   from->QueryInt("SELECT COUNT(*) FROM sqlite_master WHERE type = 'table' AND "
                                  "name = 'events'",
                                  0));
  if (tables != 1) {
    return absl::DataLossError(
        absl::StrCat("backup: \"", source.string(), "\" is not a credledger event log"));
  }
  absl::StatusOr<std::unique_ptr<Connection>> to =
      Connection::Open(temporary, /*create=*/true, /*read_only=*/false);
  if (!to.ok()) {
    return absl::FailedPreconditionError(absl::StrCat(
        "backup: cannot create \"", temporary.string(), "\": ", to.status().message()));
  }
  sqlite3_backup* backup = sqlite3_backup_init((*to)->raw(), "main", from->raw(), "main");
  if (backup == nullptr) {
    return SqliteError(sqlite3_errcode((*to)->raw()), "backup: start", (*to)->raw());
  }
  // All pages in one step: one read transaction, so the copy is one consistent state.
  const int stepped = sqlite3_backup_step(backup, -1);
  const int finished = sqlite3_backup_finish(backup);
  if (stepped != SQLITE_DONE) return SqliteError(stepped, "backup: copy", (*to)->raw());
  if (finished != SQLITE_OK) return SqliteError(finished, "backup: finish", (*to)->raw());

  BackupResult result;
  ASSIGN_OR_RETURN(result.head_seq, (*to)->QueryInt("SELECT MAX(seq) FROM events", 0));
  {
    ASSIGN_OR_RETURN(Statement check, (*to)->Prepare("PRAGMA quick_check"));
    ASSIGN_OR_RETURN(bool row, check.Step());
    const std::string verdict = row ? check.ColumnText(0) : "no answer";
    if (verdict != "ok") {
      return absl::DataLossError(absl::StrCat("backup: the copy fails its check: ", verdict));
    }
  }
  // Closing checkpoints the copy's write-ahead log into the file itself.
  to->reset();
  from.reset();
  // Synced, moved without replacing a file that appeared meanwhile, and the folder synced.
  RETURN_IF_ERROR(
      common::MoveIntoPlace(temporary, destination, {.label = "backup", .replace = false}));
  std::move(remove_temporary).Cancel();
  result.bytes = static_cast<int64_t>(std::filesystem::file_size(destination, error));
  return result;
}

}  // namespace credledger::store
