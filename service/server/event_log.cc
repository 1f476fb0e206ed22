// OpenEventLog (event_log.h).
#include "service/server/event_log.h"

#include <system_error>
#include <utility>

#include "absl/strings/str_cat.h"
#include "common/log.h"

namespace credledger::service {

absl::StatusOr<std::unique_ptr<store::EventLog>> OpenEventLog(const store::LogLocation& location,
                                                              store::OpenLogOptions options) {
  const bool read_only = options.read_only;
  if (location.is_postgres()) {
    absl::StatusOr<std::unique_ptr<store::EventLog>> log = store::OpenLog(location, options);
    if (!log.ok()) {
      return absl::Status(log.status().code(),
                          absl::StrCat(location.Describe(), ": ", log.status().message()));
    }
    if ((*log)->HeadSeq() == 0 && !read_only) {
      common::Log(common::LogLevel::kWarning, kEmptyPostgresLogMessage,
                  {{"store", location.Describe()}});
    }
    return log;
  }
  const std::filesystem::path& db_path = location.sqlite_path;
  if (db_path.has_parent_path() && !read_only) {
    std::error_code error;
    std::filesystem::create_directories(db_path.parent_path(), error);
    if (error) {
      return absl::FailedPreconditionError(absl::StrCat(
          "--db: cannot create \"", db_path.parent_path().string(), "\": ", error.message()));
    }
  }
  // No file, or an empty one (SQLite makes a new database of it).
  std::error_code missing;
  const bool creates = !read_only && (!std::filesystem::exists(db_path, missing) ||
                                      std::filesystem::file_size(db_path, missing) == 0);
  absl::StatusOr<std::unique_ptr<store::EventLog>> log = store::OpenLog(location, options);
  if (log.ok() && creates) {
    // Expected once, at the first start; at any later start a mistyped --db or a volume that
    // is not mounted would otherwise go unnoticed behind an empty fleet.
    common::Log(common::LogLevel::kWarning, kNewEventLogMessage, {{"db", db_path.string()}});
  }
  return log;
}

}  // namespace credledger::service
