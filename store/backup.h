// Online backup of the event log (docs/operations.md, "Backup and restore"): a consistent
// copy of the whole database while the service keeps writing, through SQLite's backup API.
//
// The copy is one read transaction on the source: it holds exactly the events committed
// when the copy began (WAL mode lets the writer go on meanwhile). It is written to a
// temporary file beside the destination, checked with PRAGMA quick_check, and only then
// synced and moved into place (common/atomic_file.h, MoveIntoPlace: never over a file that
// appeared meanwhile; the folder synced after), so the destination is either absent or a
// complete database.
//
// Thread-safety: one call per destination at a time.
#pragma once

#include <cstdint>
#include <filesystem>

#include "absl/status/statusor.h"

namespace credledger::store {

struct BackupResult {
  int64_t head_seq = 0;  // the newest event in the copy (0 for an empty log)
  int64_t bytes = 0;     // size of the copy
};

// Copies the log at `source` to `destination`, which must not exist yet.
// Errors: kNotFound when `source` does not exist; kAlreadyExists when `destination` does
// (checked first, and again by the move); kFailedPrecondition when the destination's folder
// cannot be written; kDataLoss when the source is not a credledger log or the copy fails its
// check; kUnavailable for I/O errors (a full disk, a failed sync) — the temporary file is then
// removed.
absl::StatusOr<BackupResult> BackupDatabase(const std::filesystem::path& source,
                                            const std::filesystem::path& destination);

}  // namespace credledger::store
