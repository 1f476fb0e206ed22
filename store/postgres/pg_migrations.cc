#include "store/postgres/pg_migrations.h"

#include <map>
#include <string>

#include "absl/strings/str_cat.h"
#include "common/status_macros.h"

namespace credledger::store {
namespace {

constexpr absl::string_view kCreateTable = R"sql(
CREATE TABLE IF NOT EXISTS schema_migrations (
  version       bigint PRIMARY KEY,
  file_name     text   NOT NULL,
  sha256        text   NOT NULL,
  applied_at_us bigint NOT NULL
))sql";

// Whether `db` has the schema_migrations table.
absl::StatusOr<bool> HasMigrationsTable(PgConnection& db) {
  ASSIGN_OR_RETURN(PgResult table, db.Query("SELECT to_regclass('schema_migrations') IS NOT NULL",
                                            PgParams(), "migration: find schema_migrations"));
  return table.rows() == 1 && table.Bytes(0, 0) == absl::string_view("\x01", 1);
}

// Creates schema_migrations when `db` has none. Only then: CREATE TABLE IF NOT EXISTS needs
// the CREATE privilege on the schema even when the table exists, and the role the service
// writes with need not have it (docs/postgres.md, "Privileges").
absl::Status CreateMigrationsTable(PgConnection& db) {
  ASSIGN_OR_RETURN(const bool exists, HasMigrationsTable(db));
  if (exists) return absl::OkStatus();
  return db.Exec(kCreateTable, "migration: create schema_migrations");
}

absl::StatusOr<std::map<int64_t, AppliedMigration>> ReadApplied(PgConnection& db) {
  ASSIGN_OR_RETURN(PgResult rows, db.Query("SELECT version, file_name, sha256 FROM "
                                           "schema_migrations ORDER BY version",
                                           PgParams(), "migration: read schema_migrations"));
  std::map<int64_t, AppliedMigration> applied;
  for (int i = 0; i < rows.rows(); ++i) {
    applied[rows.Int(i, 0)] = {rows.String(i, 1), rows.String(i, 2)};
  }
  return applied;
}

// Applies the first migration still pending, if any, in one transaction under the lock.
// Sets `applied_one` to whether there was one.
absl::Status ApplyNext(PgConnection& db, const std::vector<EmbeddedMigration>& migrations,
                       bool& applied_one) {
  applied_one = false;
  ASSIGN_OR_RETURN(auto applied, ReadApplied(db));
  ASSIGN_OR_RETURN(std::vector<PendingMigration> pending, PendingMigrations(applied, migrations));
  if (pending.empty()) return absl::OkStatus();
  const PendingMigration& next = pending.front();
  RETURN_IF_ERROR(
      db.Exec(next.migration->sql, absl::StrCat("migration ", next.migration->file_name)));
  RETURN_IF_ERROR(
      db.Query("INSERT INTO schema_migrations (version, file_name, sha256, "
               "applied_at_us) VALUES ($1, $2, $3, (extract(epoch FROM "
               "clock_timestamp()) * 1000000)::bigint)",
               PgParams().Int(next.version).Text(next.migration->file_name).Text(next.sha256),
               "migration: record")
          .status());
  applied_one = true;
  return absl::OkStatus();
}

}  // namespace

absl::Status ApplyPostgresMigrations(PgConnection& db,
                                     const std::vector<EmbeddedMigration>& migrations) {
  while (true) {
    RETURN_IF_ERROR(db.Exec("BEGIN", "migration: begin"));
    bool applied_one = false;
    absl::Status status = db.Query("SELECT pg_advisory_xact_lock($1)",
                                   PgParams().Int(kMigrationLockKey), "migration: lock")
                              .status();
    if (status.ok()) status = CreateMigrationsTable(db);
    if (status.ok()) status = ApplyNext(db, migrations, applied_one);
    if (status.ok()) status = db.Exec("COMMIT", "migration: commit");
    if (!status.ok()) {
      db.Exec("ROLLBACK", "migration: rollback").IgnoreError();
      return status;
    }
    if (!applied_one) return absl::OkStatus();
  }
}

absl::StatusOr<int64_t> PostgresSchemaVersion(PgConnection& db) {
  ASSIGN_OR_RETURN(const bool exists, HasMigrationsTable(db));
  if (!exists) return 0;
  ASSIGN_OR_RETURN(PgResult newest, db.Query("SELECT COALESCE(MAX(version), 0) FROM "
                                             "schema_migrations",
                                             PgParams(), "migration: read schema version"));
  return newest.Int(0, 0);
}

}  // namespace credledger::store
