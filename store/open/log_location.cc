#include "store/open/log_location.h"

#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "common/file_util.h"
#include "common/status_macros.h"
#include "store/migrations.h"
#include "store/postgres/pg.h"
#include "store/postgres/pg_migrations.h"
#include "store/postgres/postgres_event_store.h"
#include "store/sqlite.h"

namespace credledger::store {
namespace {

// The value of `keyword` in a parsed connection string, or "".
std::string ValueOf(const PQconninfoOption* options, const char* keyword) {
  for (const PQconninfoOption* o = options; o->keyword != nullptr; ++o) {
    if (absl::string_view(o->keyword) == keyword && o->val != nullptr) return o->val;
  }
  return "";
}

struct ParsedConninfo {
  std::string user, host, port, dbname, password;
};

// The parts of `conninfo`. Errors: kInvalidArgument naming `flag` when it does not parse.
absl::StatusOr<ParsedConninfo> ParseConninfo(const std::string& conninfo, absl::string_view flag) {
  char* error = nullptr;
  PQconninfoOption* options = PQconninfoParse(conninfo.c_str(), &error);
  if (options == nullptr) {
    std::string reason = error == nullptr ? "out of memory" : error;
    PQfreemem(error);
    return absl::InvalidArgumentError(
        absl::StrCat(flag,
                     ": not a libpq connection string (a postgresql:// URI or "
                     "keyword=value pairs): ",
                     absl::StripAsciiWhitespace(reason)));
  }
  ParsedConninfo parsed{ValueOf(options, "user"), ValueOf(options, "host"),
                        ValueOf(options, "port"), ValueOf(options, "dbname"),
                        ValueOf(options, "password")};
  PQconninfoFree(options);
  return parsed;
}

// The first line of the file at `path`. Errors: kNotFound or kFailedPrecondition naming
// `flag` when the file cannot be read or its first line is empty.
absl::StatusOr<std::string> ReadPasswordFile(const std::string& path, absl::string_view flag) {
  absl::StatusOr<std::string> text = common::ReadSmallFile(path);
  if (!text.ok()) {
    return absl::Status(text.status().code(), absl::StrCat(flag, ": ", text.status().message()));
  }
  std::string password(text->substr(0, text->find('\n')));
  if (!password.empty() && password.back() == '\r') password.pop_back();
  if (password.empty()) {
    return absl::FailedPreconditionError(
        absl::StrCat(flag, ": the first line of \"", path, "\" is empty; it must be the password"));
  }
  return password;
}

}  // namespace

std::string LogLocation::Name() const {
  if (!is_postgres()) return sqlite_path.string();
  absl::StatusOr<ParsedConninfo> parsed = ParseConninfo(postgres_conninfo, "--store");
  if (!parsed.ok()) return "(a connection string that does not parse)";
  return absl::StrCat("postgresql://", parsed->user.empty() ? "" : parsed->user + "@", parsed->host,
                      parsed->port.empty() ? "" : ":" + parsed->port, "/", parsed->dbname);
}

std::string LogLocation::Describe() const {
  return absl::StrCat(is_postgres() ? "--store " : "--db ", Name());
}

absl::StatusOr<LogLocation> ParseLogLocation(const std::string& db, bool db_given,
                                             const std::string& store,
                                             const std::string& store_password_file,
                                             const LogFlagNames& names) {
  LogLocation location;
  if (store.empty()) {
    if (!store_password_file.empty()) {
      return absl::InvalidArgumentError(
          absl::StrCat(names.store_password_file, ": only with ", names.store));
    }
    if (db.empty()) {
      return absl::InvalidArgumentError(
          absl::StrCat(names.db, ": required (the event log's SQLite file), or ", names.store,
                       " for PostgreSQL"));
    }
    location.sqlite_path = db;
    return location;
  }
  if (db_given) {
    return absl::InvalidArgumentError(absl::StrCat(names.db, " and ", names.store, ": give one; ",
                                                   names.db, " is a SQLite file, ", names.store,
                                                   " a PostgreSQL database"));
  }
  ASSIGN_OR_RETURN(ParsedConninfo parsed, ParseConninfo(store, names.store));
  if (!parsed.password.empty()) {
    return absl::InvalidArgumentError(absl::StrCat(
        names.store,
        ": carries a password, which every user of this machine can read on a command line; "
        "give it with ",
        names.store_password_file, ", PGPASSWORD or a password file instead"));
  }
  location.postgres_conninfo = store;
  if (!store_password_file.empty()) {
    ASSIGN_OR_RETURN(location.postgres_password,
                     ReadPasswordFile(store_password_file, names.store_password_file));
  }
  return location;
}

absl::StatusOr<std::unique_ptr<EventLog>> OpenLog(const LogLocation& location,
                                                  const OpenLogOptions& options) {
  if (location.is_postgres()) {
    PostgresEventStoreOptions pg;
    pg.conninfo = location.postgres_conninfo;
    pg.password = location.postgres_password;
    pg.clock = options.clock;
    pg.read_only = options.read_only;
    pg.holder = options.holder;
    pg.write_fence = options.write_fence;
    pg.on_stopped = options.on_stopped;
    pg.connect_timeout = kLogConnectTimeout;
    ASSIGN_OR_RETURN(std::unique_ptr<PostgresEventStore> log, PostgresEventStore::Open(pg));
    return std::unique_ptr<EventLog>(std::move(log));
  }
  SqliteEventStoreOptions sqlite;
  sqlite.path = location.sqlite_path;
  sqlite.clock = options.clock;
  sqlite.read_only = options.read_only;
  sqlite.synchronous = options.synchronous;
  if (options.read_connections > 0) sqlite.read_connections = options.read_connections;
  sqlite.write_fence = options.write_fence;
  ASSIGN_OR_RETURN(std::unique_ptr<SqliteEventStore> log, SqliteEventStore::Open(sqlite));
  return std::unique_ptr<EventLog>(std::move(log));
}

absl::StatusOr<int64_t> MigrateLog(const LogLocation& location) {
  if (location.is_postgres()) {
    ASSIGN_OR_RETURN(std::unique_ptr<PgConnection> db,
                     PgConnection::Open(location.postgres_conninfo, kLogConnectTimeout,
                                        location.postgres_password));
    RETURN_IF_ERROR(ApplyPostgresMigrations(*db, EmbeddedPostgresMigrations()));
    return PostgresSchemaVersion(*db);
  }
  {
    // Opening read-write migrates the file and sets it up (WAL) as the service will.
    ASSIGN_OR_RETURN(std::unique_ptr<EventLog> log, OpenLog(location, OpenLogOptions()));
    log->Close();
  }
  ASSIGN_OR_RETURN(std::unique_ptr<Connection> db,
                   Connection::Open(location.sqlite_path, /*create=*/false, /*read_only=*/true));
  return SchemaVersion(*db);
}

}  // namespace credledger::store
