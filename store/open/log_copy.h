// CopyLog: an event log copied into an empty log on either backend, byte for byte, and checked
// against its source (docs/operations.md, "Moving a log between SQLite and PostgreSQL").
//
// The source is opened read-only and may be a running service's log: the copy holds its events
// up to the head seen when it was opened, and the checkpoints and snapshots up to that head,
// each read in pages, one short read at a time, while the service keeps writing. The rows go
// through the target backend's LogImport (store/log_import.h) as stored: nothing is hashed or
// timed again, so every chain hash, checkpoint signature and snapshot seal stays valid, and so
// do the checkpoints a witness holds. The target is a SQLite file that does not exist yet,
// written beside it and moved into place only once the copy verifies, or an empty PostgreSQL
// log, written in one transaction at whose end log_writer names the copied head. The copy is
// then opened read-only, as any reader opens it, and checked (store/open/log_copy_check.h).
//
// Thread-safety: thread-safe; one copy into a target at a time.
#pragma once

#include "absl/status/statusor.h"
#include "store/open/log_copy_check.h"
#include "store/open/log_location.h"

namespace credledger::store {

// Copies the log at `from` into the empty log at `to` and checks the copy; returns what it
// copied. Errors, each message starting "source <name>: " or "target <name>: "
// (LogLocation::Name, never a password): kFailedPrecondition when the target is not empty (a
// SQLite file that exists, a PostgreSQL log holding events, naming its head seq); OpenLog's
// for the source; the target's connection, migration and write errors; kDataLoss when the
// copy does not verify (CheckCopy), which for a PostgreSQL target happens after the commit and
// says so. A SQLite target is absent after any error; a PostgreSQL target is as it was (its
// schema perhaps created) after any error but the last.
absl::StatusOr<CopiedLog> CopyLog(const LogLocation& from, const LogLocation& to);

}  // namespace credledger::store
