// The flag values that the audit and forensic subcommands share (docs/forensics.md; docs/audit.md,
// "Export"): a Target given as --target, RFC 3339 times, and the log file of --db, opened
// read-only; repeatable lists of values are cli/framework/flag_value_list.h.
//
// Thread-safety: the functions are thread-safe.
#pragma once

#include <memory>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "cli/framework/flag_value_list.h"
#include "store/sqlite_event_store.h"

namespace credledger::cli {

// Splits the value of a --target flag. Errors: kInvalidArgument unless <namespace>/<name>.
absl::Status SplitTargetFlag(const std::string& value, std::string* target_namespace,
                             std::string* name);

// An RFC 3339 time with any offset and fraction ("2026-01-02T03:04:05Z",
// "2026-01-02T05:04:05.25+02:00"). Errors: kInvalidArgument naming `flag`.
absl::StatusOr<absl::Time> ParseTimeFlag(absl::string_view flag, const std::string& value);

// Opens an existing log file (the value of --db) for reading only. Errors:
// SqliteEventStore::Open's, with the message naming `--db`.
absl::StatusOr<std::unique_ptr<store::SqliteEventStore>> OpenReadOnly(const std::string& path);

}  // namespace credledger::cli
