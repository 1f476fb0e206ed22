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
#include "cli/framework/flag_set.h"
#include "cli/framework/flag_value_list.h"
#include "store/event_log.h"

namespace credledger::cli {

// Splits the value of a --target flag. Errors: kInvalidArgument unless <namespace>/<name>.
absl::Status SplitTargetFlag(const std::string& value, std::string* target_namespace,
                             std::string* name);

// An RFC 3339 time with any offset and fraction ("2026-01-02T03:04:05Z",
// "2026-01-02T05:04:05.25+02:00"). Errors: kInvalidArgument naming `flag`.
absl::StatusOr<absl::Time> ParseTimeFlag(absl::string_view flag, const std::string& value);

// The flags that name a log read without a server: --db (a SQLite file, a copy of the
// database) or --store with --store-password-file (a PostgreSQL database;
// docs/operations.md, "PostgreSQL").
struct OfflineLogFlags {
  std::string db;
  std::string store;
  std::string store_password_file;

  // Adds the three flags, --db with `db_help`.
  void Define(FlagSet& flags, const std::string& db_help);
  // Whether --db or --store was given.
  bool given() const { return !db.empty() || !store.empty(); }
  // Opens the log for reading only. Errors: store::ParseLogLocation's; store::OpenLog's, the
  // message naming the location.
  absl::StatusOr<std::unique_ptr<store::EventLog>> OpenReadOnly() const;
};

}  // namespace credledger::cli
