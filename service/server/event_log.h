// OpenEventLog: how `credledger serve` and `credledger migrate` open the event log at --db
// (docs/operations.md, "Install"; docs/api.md, "Server subcommands"), creating its folder when
// missing and warning when it found no log there.
#pragma once

#include <filesystem>
#include <functional>
#include <memory>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "common/clock.h"
#include "store/sqlite_event_store.h"

namespace credledger::service {

// The warning OpenEventLog logs (with field `db`, the path) when it created a new log.
inline constexpr char kNewEventLogMessage[] =
    "created a new, empty event log: there was no database at --db (no file, or an empty one); "
    "expected at the first start only, otherwise check --db and the volume mounted there";

// Creates the parent directory of `db_path` when missing, then opens (creating and
// migrating) the event log there; with `read_only`, opens an existing log for reading only.
// Logs kNewEventLogMessage when there was no file (or an empty one) at `db_path` and the log
// was created.
// Errors: kFailedPrecondition when the directory cannot be created; SqliteEventStore::Open's.
absl::StatusOr<std::unique_ptr<store::SqliteEventStore>> OpenEventLog(
    const std::filesystem::path& db_path, store::SqliteEventStoreOptions::Synchronous synchronous,
    common::Clock* clock, bool read_only = false,
    std::function<absl::Status()> write_fence = {});

}  // namespace credledger::service
