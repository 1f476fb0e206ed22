// SqliteLogImport: the LogImport (store/log_import.h) that writes a copied log as a new SQLite
// file (docs/operations.md, "Moving a log between SQLite and PostgreSQL").
//
// The copy is written beside its destination, to "<destination>.partial" (mode 0600, the schema
// of migrations/), in one transaction; a .partial left by an earlier copy that failed is
// removed first. Commit commits it and closes the file; Publish syncs it and moves it to the
// destination, never over a file that appeared there meanwhile (common/atomic_file.h,
// MoveIntoPlace), so the destination is either absent or a complete log. The file keeps
// SQLite's rollback journal until the service first opens it read-write, which switches it to
// WAL as for any log.
//
// Thread-safety: not thread-safe (LogImport).
#pragma once

#include <filesystem>
#include <memory>
#include <optional>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "store/log_import.h"
#include "store/sqlite.h"

namespace credledger::store {

class SqliteLogImport final : public LogImport {
 public:
  // Creates the file beside `destination` with the schema and begins the transaction.
  // Errors: kFailedPrecondition when anything is at `destination` already, or the file beside
  // it cannot be created (a missing folder, no permission); the migrations' errors.
  static absl::StatusOr<std::unique_ptr<SqliteLogImport>> Start(
      const std::filesystem::path& destination);
  // Closes the file and, unless published, removes it.
  ~SqliteLogImport() override;

  absl::Status AddEvents(const std::vector<RecordedEvent>& events) override;
  absl::Status AddCheckpoints(const std::vector<v1::Checkpoint>& checkpoints) override;
  absl::Status AddSnapshot(const Snapshot& snapshot) override;
  // Commits and closes the file at written_path().
  absl::Status Commit() override;
  // Moves the file to the destination. Errors: MoveIntoPlace's (kAlreadyExists when a file
  // appeared at the destination meanwhile; kUnavailable when a sync or the rename fails).
  absl::Status Publish() override;

  // The file the copy is written to: a complete log after Commit, until Publish.
  const std::filesystem::path& written_path() const { return partial_; }

 private:
  explicit SqliteLogImport(std::filesystem::path destination);
  // Finalizes the statements and closes the connection.
  void Close();
  // Removes the .partial file and its rollback journal.
  void RemovePartial() const;

  const std::filesystem::path destination_;
  const std::filesystem::path partial_;
  std::unique_ptr<Connection> db_;
  std::optional<Statement> insert_event_, insert_checkpoint_, insert_snapshot_;
  bool published_ = false;
};

}  // namespace credledger::store
