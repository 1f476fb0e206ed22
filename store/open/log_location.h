// Where an event log is and how to open it, on either backend (docs/operations.md, "Where the
// log is"): a SQLite file (--db PATH) or a PostgreSQL database (--store, a libpq URI or
// keyword/value string, with the password from --store-password-file, PGPASSWORD or a libpq
// password file, never from the command line).
//
// Thread-safety: the functions are thread-safe.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "common/clock.h"
#include "store/event_log.h"
#include "store/sqlite_event_store.h"

namespace credledger::store {

// How long a command waits to connect to a PostgreSQL server.
inline constexpr absl::Duration kLogConnectTimeout = absl::Seconds(10);

// The help texts of the flags every command that opens a log defines.
inline constexpr char kStoreFlagHelp[] =
    "the event log on PostgreSQL: a libpq URI (postgresql://user@host:5432/credledger) or "
    "keyword/value string; instead of --db. No password in it: use --store-password-file, "
    "PGPASSWORD or a password file (docs/operations.md, \"PostgreSQL\")";
inline constexpr char kStorePasswordFileHelp[] =
    "with --store: a file holding the database password (its first line)";

struct LogLocation {
  // The SQLite file; empty for PostgreSQL.
  std::filesystem::path sqlite_path = {};
  // The libpq connection string, holding no password; empty for SQLite.
  std::string postgres_conninfo = {};
  // The password read from --store-password-file; empty: libpq's own sources.
  std::string postgres_password = {};

  bool is_postgres() const { return !postgres_conninfo.empty(); }
  // For messages and logs, never with a password: the SQLite file's path, or
  // "postgresql://<user>@<host>:<port>/<database>" built from the string's parts.
  std::string Name() const;
  // Name() after the flag that gives it: "--db <path>" or "--store postgresql://...".
  std::string Describe() const;
};

// The names of the three flags that give a log, as errors name them: a command that names
// two logs gives each its own (`copy-log --from-db`, `--to-store`, ...).
struct LogFlagNames {
  std::string db = "--db";
  std::string store = "--store";
  std::string store_password_file = "--store-password-file";
};

// The location the flags name. `db_given` says whether --db was given on the command line
// (it may carry a default otherwise); `names` are the flags' names in errors.
// Errors: kInvalidArgument when --db and --store are both given, neither names a log, --store
// does not parse or carries a password, or --store-password-file is given without --store;
// kNotFound / kFailedPrecondition when the password file cannot be read or is empty.
absl::StatusOr<LogLocation> ParseLogLocation(const std::string& db, bool db_given,
                                             const std::string& store,
                                             const std::string& store_password_file,
                                             const LogFlagNames& names = LogFlagNames());

struct OpenLogOptions {
  // Source of recorded_at_us. Not owned.
  common::Clock* clock = common::RealClock::Default();
  // Opens an existing log for reading only.
  bool read_only = false;
  // SQLite: PRAGMA synchronous.
  SqliteEventStoreOptions::Synchronous synchronous = SqliteEventStoreOptions::Synchronous::kFull;
  // SQLite: the connections kept in the read pool (SqliteEventStoreOptions::read_connections);
  // 0: the store's default.
  int read_connections = 0;
  // PostgreSQL: who writes, recorded in log_writer.holder.
  std::string holder = "credledger";
  // Asked before every commit (the Lease fence); empty: none.
  std::function<absl::Status()> write_fence = {};
  // PostgreSQL: called once when the store stops writing for good (PostgresEventStoreOptions).
  std::function<void(const absl::Status&)> on_stopped = {};
};

// Opens the log at `location` (SqliteEventStore or PostgresEventStore; a SQLite file is
// created when missing unless read-only). Errors: those of the backend's Open.
absl::StatusOr<std::unique_ptr<EventLog>> OpenLog(const LogLocation& location,
                                                  const OpenLogOptions& options);

// Creates or migrates the log's schema without becoming its writer (a running service keeps
// writing) and returns its schema version. Errors: the backend's migration errors.
absl::StatusOr<int64_t> MigrateLog(const LogLocation& location);

}  // namespace credledger::store
