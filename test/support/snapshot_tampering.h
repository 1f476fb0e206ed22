// What an attacker holding the database file does to projection snapshots, for the tests of
// sealed snapshots (docs/audit.md, "Snapshots"): decode a credential snapshot, undo a Target's
// revocation and add a Target that never existed, and overwrite a snapshot row through a
// separate SQLite connection (the table is not append-only). For tests only.
#pragma once

#include <sqlite3.h>

#include <cstdint>
#include <filesystem>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "credledger/v1/state.pb.h"
#include "store/event_codec.h"
#include "store/event_store.h"

namespace credledger::testing {

// The credential fleet state `state` (a CredentialProjection snapshot) with Target
// `ns`/`unrevoked` no longer revoked and a copy of it added as `ns`/`ghost`.
// Errors: kDataLoss when `state` does not parse; kNotFound when it has no `ns`/`unrevoked`.
inline absl::StatusOr<std::string> ForgeCredentialFleet(absl::string_view state,
                                                        absl::string_view ns,
                                                        absl::string_view unrevoked,
                                                        absl::string_view ghost) {
  v1::CredentialFleetState fleet;
  if (!fleet.ParseFromArray(state.data(), static_cast<int>(state.size()))) {
    return absl::DataLossError("forge: the snapshot's state does not parse");
  }
  for (int i = 0; i < fleet.targets_size(); ++i) {
    v1::TargetState& target = *fleet.mutable_targets(i);
    if (target.namespace_() != ns || target.name() != unrevoked) continue;
    target.set_revoked(false);
    v1::TargetState copy = target;
    copy.set_name(std::string(ghost));
    *fleet.add_targets() = std::move(copy);
    return store::SerializeDeterministic(fleet);
  }
  return absl::NotFoundError(absl::StrCat("forge: no Target ", ns, "/", unrevoked));
}

// Runs `sql` on a connection of its own to the database file `db`, as an attacker with the
// file would. Errors: kInternal with SQLite's message.
inline absl::Status RawExec(const std::filesystem::path& db, const std::string& sql) {
  sqlite3* raw = nullptr;
  absl::Status status;
  if (sqlite3_open(db.c_str(), &raw) != SQLITE_OK) {
    status = absl::InternalError(absl::StrCat("open ", db.string()));
  } else {
    sqlite3_busy_timeout(raw, 10000);
    char* error = nullptr;
    if (sqlite3_exec(raw, sql.c_str(), nullptr, nullptr, &error) != SQLITE_OK) {
      status = absl::InternalError(error == nullptr ? "sqlite3_exec failed" : error);
    }
    sqlite3_free(error);
  }
  sqlite3_close(raw);
  return status;
}

// Overwrites the row of `forged.projection` at `forged.seq` in the database file `db` with the
// fields of `forged` (schema_version, state and the whole seal), on a connection of its own.
// Errors: kInternal with SQLite's message; kNotFound when there is no such row.
inline absl::Status OverwriteSnapshotRow(const std::filesystem::path& db,
                                         const store::Snapshot& forged) {
  sqlite3* raw = nullptr;
  if (sqlite3_open(db.c_str(), &raw) != SQLITE_OK) {
    sqlite3_close(raw);
    return absl::InternalError(absl::StrCat("open ", db.string()));
  }
  sqlite3_busy_timeout(raw, 10000);
  sqlite3_stmt* stmt = nullptr;
  absl::Status status;
  if (sqlite3_prepare_v2(raw,
                         "UPDATE projection_snapshots SET schema_version = ?1, state = ?2, "
                         "chain_hash = ?3, state_sha256 = ?4, key_id = ?5, signature = ?6 "
                         "WHERE projection = ?7 AND seq = ?8",
                         -1, &stmt, nullptr) != SQLITE_OK) {
    status = absl::InternalError(sqlite3_errmsg(raw));
  } else {
    const auto blob = [stmt](int index, const std::string& bytes) {
      sqlite3_bind_blob(stmt, index, bytes.data(), static_cast<int>(bytes.size()),
                        SQLITE_TRANSIENT);
    };
    const auto text = [stmt](int index, const std::string& value) {
      sqlite3_bind_text(stmt, index, value.data(), static_cast<int>(value.size()),
                        SQLITE_TRANSIENT);
    };
    sqlite3_bind_int64(stmt, 1, forged.schema_version);
    blob(2, forged.state);
    blob(3, forged.chain_hash);
    blob(4, forged.state_sha256);
    text(5, forged.key_id);
    blob(6, forged.signature);
    text(7, forged.projection);
    sqlite3_bind_int64(stmt, 8, forged.seq);
    if (sqlite3_step(stmt) != SQLITE_DONE) {
      status = absl::InternalError(sqlite3_errmsg(raw));
    } else if (sqlite3_changes(raw) != 1) {
      status = absl::NotFoundError(
          absl::StrCat("no snapshot ", forged.projection, " at seq ", forged.seq));
    }
  }
  sqlite3_finalize(stmt);
  sqlite3_close(raw);
  return status;
}

}  // namespace credledger::testing
