// FileWitness: a witness kept in an append-only file (docs/audit.md, "Witnesses"), for a
// volume other than the database's, or for a service whose cluster does not outlive it (the
// embedded cluster of `make run`). One checkpoint per line (witness.h); lines are only ever
// appended, each synced before Append returns.
//
// Thread-safety: not thread-safe; one writer per file.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "audit/witness.h"

namespace credledger::audit {

class FileWitness final : public WitnessStore {
 public:
  // `path`: the file, created by the first Append when missing (its folder must exist).
  // `name`: the witness spec, for messages.
  FileWitness(std::filesystem::path path, std::string name);

  // The newest kWitnessHistory checkpoints (read from the file's last 64 KiB); empty when
  // the file does not exist or is empty. Errors: kDataLoss when a line does not parse;
  // kFailedPrecondition when the file cannot be read.
  absl::StatusOr<std::vector<v1::Checkpoint>> Read() override;
  // Every checkpoint of the file, oldest first (for `credledger verify --witness`). Errors:
  // kNotFound when the file does not exist; otherwise as Read.
  absl::StatusOr<std::vector<v1::Checkpoint>> ReadAll() const;
  // Appends `checkpoint` as one line and syncs the file (and its folder when the file was
  // created). Errors: kFailedPrecondition when the file cannot be opened; kUnavailable when
  // writing or syncing fails.
  absl::Status Append(const v1::Checkpoint& checkpoint) override;
  const std::string& name() const override { return name_; }

 private:
  const std::filesystem::path path_;
  const std::string name_;
};

}  // namespace credledger::audit
