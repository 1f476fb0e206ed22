// Forward-only schema migrations (docs/design.md, "Migrations").
//
// Each file `migrations/NNNN_description.sql` is embedded into the binary at build time and
// applied once, in order, in its own transaction, recorded in `schema_migrations` with the
// SHA-256 of its text. A released file is never edited: a recorded hash that differs from
// the embedded file, or a recorded version this binary does not know (a database written by
// a newer credledger), stops start-up.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "store/sqlite.h"

namespace credledger::store {

struct EmbeddedMigration {
  std::string file_name;  // "0001_event_log.sql"
  std::string sql;
};

// The SQLite migrations compiled into this binary (migrations/*.sql), sorted by file name.
const std::vector<EmbeddedMigration>& EmbeddedMigrations();

// A migration a database records as applied.
struct AppliedMigration {
  std::string file_name;
  std::string sha256;  // lowercase hex of the SHA-256 of its text
};

// A migration a database still needs.
struct PendingMigration {
  int64_t version = 0;
  const EmbeddedMigration* migration = nullptr;  // points into the list given
  std::string sha256;                            // lowercase hex, as recorded once applied
};

// The rule every backend applies its migrations by: the entries of `migrations` that
// `applied` (by version) lacks, in order. Errors as ApplyMigrations: kInvalidArgument for a
// malformed file name or versions that do not increase; kFailedPrecondition for an applied
// version newer than the newest of `migrations` or an applied migration whose hash differs.
absl::StatusOr<std::vector<PendingMigration>> PendingMigrations(
    const std::map<int64_t, AppliedMigration>& applied,
    const std::vector<EmbeddedMigration>& migrations);

// The version of the newest of `migrations` (0 when empty). Errors: kInvalidArgument for a
// malformed file name.
absl::StatusOr<int64_t> NewestVersion(const std::vector<EmbeddedMigration>& migrations);

// Applies every migration in `migrations` that `db` has not recorded yet.
// REQUIRES: file names start with a 4-digit version, strictly increasing.
// Errors: kFailedPrecondition when the database records a version newer than the newest in
// `migrations` ("newer schema", downgrade refused) or a migration whose text hash differs;
// kInvalidArgument for a malformed file name; SQLite errors from applying a file (the failed
// migration leaves nothing behind).
absl::Status ApplyMigrations(Connection& db, const std::vector<EmbeddedMigration>& migrations);

// The highest applied migration version of `db`; 0 when none.
absl::StatusOr<int64_t> SchemaVersion(Connection& db);

}  // namespace credledger::store
