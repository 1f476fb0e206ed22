// OpenEventLog: how `credledger serve` opens the event log at --db or --store
// (docs/operations.md, "Install"; docs/api.md, "Server subcommands"), creating its folder when
// missing and warning when it found no log there.
#pragma once

#include <filesystem>
#include <functional>
#include <memory>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "common/clock.h"
#include "store/open/log_location.h"
#include "store/sqlite_event_store.h"

namespace credledger::service {

// The warning OpenEventLog logs (with field `db`, the path) when it created a new log.
inline constexpr char kNewEventLogMessage[] =
    "created a new, empty event log: there was no database at --db (no file, or an empty one); "
    "expected at the first start only, otherwise check --db and the volume mounted there";

// The warning OpenEventLog logs (with field `store`, the location without a password) when
// it found an empty PostgreSQL log.
inline constexpr char kEmptyPostgresLogMessage[] =
    "the event log on PostgreSQL is empty: expected at the first start only, otherwise check "
    "--store";

// Opens (creating and migrating) the event log at `location` with `options` (with
// `read_only`, an existing log for reading only). For a SQLite file, creates its parent
// directory when missing and logs kNewEventLogMessage when there was no file (or an empty one)
// and the log was created; for PostgreSQL, logs kEmptyPostgresLogMessage when the log holds no
// event. Errors: kFailedPrecondition when the directory cannot be created; store::OpenLog's,
// on PostgreSQL prefixed with "--store <location>: " (the location without a password).
absl::StatusOr<std::unique_ptr<store::EventLog>> OpenEventLog(const store::LogLocation& location,
                                                              store::OpenLogOptions options);

}  // namespace credledger::service
