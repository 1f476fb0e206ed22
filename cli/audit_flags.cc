// The flag values the audit and forensic subcommands share (audit_flags.h).
#include "cli/audit_flags.h"

#include "absl/strings/str_cat.h"
#include "cli/client_command.h"
#include "common/status_macros.h"
#include "store/open/log_location.h"

namespace credledger::cli {

absl::Status SplitTargetFlag(const std::string& value, std::string* target_namespace,
                             std::string* name) {
  if (SplitTarget(value, target_namespace, name)) return absl::OkStatus();
  return absl::InvalidArgumentError(
      absl::StrCat("--target: expected ", kTargetArg, ", got \"", value, "\""));
}

absl::StatusOr<absl::Time> ParseTimeFlag(absl::string_view flag, const std::string& value) {
  absl::Time t;
  std::string error;
  if (!absl::ParseTime(absl::RFC3339_full, value, &t, &error)) {
    return absl::InvalidArgumentError(
        absl::StrCat("--", flag, ": expected an RFC 3339 time such as 2026-01-02T03:04:05Z, got \"",
                     value, "\""));
  }
  return t;
}

void OfflineLogFlags::Define(FlagSet& flags, const std::string& db_help) {
  flags.Add("db", &db, db_help);
  flags.AddNonEmpty("store", &store, store::kStoreFlagHelp);
  flags.AddNonEmpty("store-password-file", &store_password_file, store::kStorePasswordFileHelp);
}

absl::StatusOr<std::unique_ptr<store::EventLog>> OfflineLogFlags::OpenReadOnly() const {
  ASSIGN_OR_RETURN(const store::LogLocation location,
                   store::ParseLogLocation(db, !db.empty(), store, store_password_file));
  store::OpenLogOptions options;
  options.read_only = true;
  absl::StatusOr<std::unique_ptr<store::EventLog>> opened = store::OpenLog(location, options);
  if (!opened.ok()) {
    return absl::Status(opened.status().code(),
                        absl::StrCat(location.Describe(), ": ", opened.status().message()));
  }
  return opened;
}

}  // namespace credledger::cli
