// The PostgreSQL log's forward-only schema migrations (docs/postgres.md, "Schema"): the files
// `migrations/postgres/NNNN_description.sql`, numbered as the SQLite log's, embedded at build
// time and applied by the rule of store/migrations.h, each in its own transaction under a
// transaction-scoped advisory lock, so replicas starting together apply each file once.
#pragma once

#include <cstdint>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "store/migrations.h"
#include "store/postgres/pg.h"

namespace credledger::store {

// The PostgreSQL migrations compiled into this binary, sorted by file name.
const std::vector<EmbeddedMigration>& EmbeddedPostgresMigrations();

// The key of the advisory lock migrations take (pg_advisory_xact_lock).
inline constexpr int64_t kMigrationLockKey = 0x63726564'6c656467;  // "credledg"

// Applies every migration of `migrations` that `db` has not recorded yet, in its own
// transaction that first takes the advisory lock and re-reads what is applied.
// Errors: PendingMigrations' (newer schema, edited migration, malformed name); PgError's from
// a failing file (which leaves nothing behind).
absl::Status ApplyPostgresMigrations(PgConnection& db,
                                     const std::vector<EmbeddedMigration>& migrations);

// The highest applied migration version of `db`; 0 when it has no schema_migrations table.
// Reads only. Errors: PgError's.
absl::StatusOr<int64_t> PostgresSchemaVersion(PgConnection& db);

}  // namespace credledger::store
