// PostgresLogImport: the LogImport (store/log_import.h) that writes a copied log into an empty
// PostgreSQL log (docs/operations.md, "Moving a log between SQLite and PostgreSQL";
// docs/postgres.md, "Schema" and "The fence").
//
// Start connects and, when the database has no schema or an older one, migrates it as
// `credledger migrate` does (a database already holding events is refused before anything is
// changed). It then begins the one transaction of the whole copy, locks the log_writer row, so
// that no writer commits until the copy ends, and checks that the log is still empty. Rows go
// to the server a call at a time, each call's rows in one pipeline. Commit sets log_writer's
// seq and chain_hash to the last event added (its epoch and holder stay as they are), so the
// next writer opens on the copied head, and commits. An import abandoned before rolls back:
// the database is then as Start found it, but for a schema Start created.
//
// Thread-safety: not thread-safe (LogImport).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/functional/function_ref.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "store/log_import.h"
#include "store/postgres/pg.h"

namespace credledger::store {

class PostgresLogImport final : public LogImport {
 public:
  // Connects with `conninfo` and `password` (PgConnection::Open), migrates, begins the
  // transaction and locks log_writer.
  // Errors: kFailedPrecondition "the log is not empty: ..." naming its head seq when events
  // are stored; PgConnection::Open's; the migrations' (a newer or edited schema); PgError's.
  static absl::StatusOr<std::unique_ptr<PostgresLogImport>> Start(const std::string& conninfo,
                                                                  const std::string& password,
                                                                  absl::Duration connect_timeout);
  // Rolls back an import not committed.
  ~PostgresLogImport() override;

  absl::Status AddEvents(const std::vector<RecordedEvent>& events) override;
  absl::Status AddCheckpoints(const std::vector<v1::Checkpoint>& checkpoints) override;
  absl::Status AddSnapshot(const Snapshot& snapshot) override;
  // Moves log_writer to the copied head and commits. Errors: kDataLoss when the log_writer
  // row is missing; PgError's.
  absl::Status Commit() override;
  // Nothing left to do: the copy is in place once committed.
  absl::Status Publish() override { return absl::OkStatus(); }

 private:
  explicit PostgresLogImport(std::unique_ptr<PgConnection> db);
  // Runs `insert` once per entry of `rows` in one pipeline. Errors: the first failed row's,
  // its context `name(i)`; kUnavailable when the connection drops.
  absl::Status InsertAll(absl::string_view insert_sql, const std::vector<PgParams>& rows,
                         absl::FunctionRef<std::string(size_t)> name);

  std::unique_ptr<PgConnection> db_;
  bool in_transaction_ = false;
  // The last event added (none: 0 and the zero hash): what log_writer names at Commit.
  int64_t head_seq_ = 0;
  std::string head_chain_hash_;
};

}  // namespace credledger::store
