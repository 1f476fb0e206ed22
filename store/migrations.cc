#include "store/migrations.h"

#include <map>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "common/sha256.h"
#include "common/status_macros.h"

namespace credledger::store {
namespace {

constexpr absl::string_view kCreateTable = R"sql(
CREATE TABLE IF NOT EXISTS schema_migrations (
  version       INTEGER PRIMARY KEY,
  file_name     TEXT    NOT NULL,
  sha256        TEXT    NOT NULL,
  applied_at_us INTEGER NOT NULL
) STRICT;
)sql";

absl::StatusOr<int64_t> VersionOf(const EmbeddedMigration& m) {
  int64_t version = 0;
  if (m.file_name.size() < 6 || m.file_name[4] != '_' ||
      !absl::SimpleAtoi(m.file_name.substr(0, 4), &version) || version <= 0 ||
      !absl::ascii_isdigit(m.file_name[0])) {
    return absl::InvalidArgumentError(
        absl::StrCat("migration file \"", m.file_name, "\": name must be NNNN_description.sql"));
  }
  return version;
}

absl::StatusOr<std::map<int64_t, AppliedMigration>> ReadApplied(Connection& db) {
  std::map<int64_t, AppliedMigration> applied;
  ASSIGN_OR_RETURN(Statement stmt,
                   db.Prepare("SELECT version, file_name, sha256 FROM schema_migrations"));
  while (true) {
    ASSIGN_OR_RETURN(bool row, stmt.Step());
    if (!row) break;
    applied[stmt.ColumnInt(0)] = {stmt.ColumnText(1), stmt.ColumnText(2)};
  }
  return applied;
}

absl::Status ApplyOne(Connection& db, int64_t version, const EmbeddedMigration& m,
                      const std::string& hash) {
  RETURN_IF_ERROR(db.Exec("BEGIN IMMEDIATE", "migration: begin"));
  absl::Status status = db.Exec(m.sql, absl::StrCat("migration ", m.file_name));
  if (status.ok()) {
    absl::StatusOr<Statement> insert = db.Prepare(
        "INSERT INTO schema_migrations (version, file_name, sha256, applied_at_us) "
        "VALUES (?, ?, ?, CAST((julianday('now') - 2440587.5) * 86400000000.0 AS INTEGER))");
    status = insert.status();
    if (status.ok()) {
      insert->Bind(1, version).BindText(2, m.file_name).BindText(3, hash);
      status = insert->Run();
    }
  }
  if (status.ok()) status = db.Exec("COMMIT", "migration: commit");
  if (!status.ok()) {
    db.Exec("ROLLBACK", "migration: rollback").IgnoreError();
  }
  return status;
}

}  // namespace

absl::StatusOr<int64_t> SchemaVersion(Connection& db) {
  RETURN_IF_ERROR(db.Exec(kCreateTable, "migration: create schema_migrations"));
  return db.QueryInt("SELECT MAX(version) FROM schema_migrations", 0);
}

absl::StatusOr<int64_t> NewestVersion(const std::vector<EmbeddedMigration>& migrations) {
  if (migrations.empty()) return 0;
  return VersionOf(migrations.back());
}

absl::StatusOr<std::vector<PendingMigration>> PendingMigrations(
    const std::map<int64_t, AppliedMigration>& applied,
    const std::vector<EmbeddedMigration>& migrations) {
  int64_t newest_known = 0;
  for (const EmbeddedMigration& m : migrations) {
    ASSIGN_OR_RETURN(int64_t version, VersionOf(m));
    if (version <= newest_known) {
      return absl::InvalidArgumentError(
          absl::StrCat("migration file \"", m.file_name, "\": versions must increase"));
    }
    newest_known = version;
  }
  if (!applied.empty() && applied.rbegin()->first > newest_known) {
    return absl::FailedPreconditionError(absl::StrCat(
        "database schema version ", applied.rbegin()->first, " (",
        applied.rbegin()->second.file_name, ") is newer than this binary's ", newest_known,
        ": it was written by a newer credledger; run that version or newer"));
  }
  std::vector<PendingMigration> pending;
  for (const EmbeddedMigration& m : migrations) {
    ASSIGN_OR_RETURN(int64_t version, VersionOf(m));
    std::string hash = common::HexEncode(common::Sha256Of(m.sql));
    auto it = applied.find(version);
    if (it == applied.end()) {
      pending.push_back({version, &m, std::move(hash)});
    } else if (it->second.sha256 != hash) {
      return absl::FailedPreconditionError(absl::StrCat(
          "migration ", m.file_name,
          " differs from the one applied to this database "
          "(sha256 ",
          it->second.sha256, ", binary has ", hash, "): applied migrations must never be edited"));
    }
  }
  return pending;
}

absl::Status ApplyMigrations(Connection& db, const std::vector<EmbeddedMigration>& migrations) {
  RETURN_IF_ERROR(db.Exec(kCreateTable, "migration: create schema_migrations"));
  ASSIGN_OR_RETURN(auto applied, ReadApplied(db));
  ASSIGN_OR_RETURN(std::vector<PendingMigration> pending, PendingMigrations(applied, migrations));
  for (const PendingMigration& p : pending) {
    RETURN_IF_ERROR(ApplyOne(db, p.version, *p.migration, p.sha256));
  }
  return absl::OkStatus();
}

}  // namespace credledger::store
