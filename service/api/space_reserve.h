// SpaceReserve: the free space kept for the commands that must commit on a nearly full disk
// (docs/reports.md, "Limits"; docs/operations.md, "Limits"). While the file system holding
// the log has fewer free bytes than the reserve (--space-reserve), status reports and
// heartbeats are refused (ReportIngest, ReportScheduler); every other command (revocations,
// deletions, rollout confirmations, the kube bridge's outcomes, operator commands) still
// commits into the reserve.
//
// The free space is read through a seam (FreeBytes), statvfs(3) of the database in the
// service and a fake in tests, on every check: one system call per report.
//
// Thread-safety: all methods are thread-safe when the FreeBytes function is.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace credledger::service {

class SpaceReserve {
 public:
  // Returns the bytes still free for the log, or an error when they cannot be read.
  using FreeBytes = std::function<absl::StatusOr<uint64_t>()>;

  // The free bytes of the file system holding `path` (common::FreeBytesOf).
  static FreeBytes FileSystemOf(std::filesystem::path path);

  // `reserve_bytes` 0 disables the reserve (Check is always OK, free_bytes is not called).
  SpaceReserve(FreeBytes free_bytes, uint64_t reserve_bytes);

  // OK while reports may be appended: the reserve is 0, at least `reserve_bytes` are free, or
  // the free space cannot be read (a reading failure never stops reports).
  // Errors: kResourceExhausted "free space on the log's file system is <free> bytes, below
  // the reserve of <reserve> bytes (--space-reserve): reports and heartbeats are refused".
  absl::Status Check() const;

  // The configured reserve in bytes (0: disabled).
  uint64_t reserve_bytes() const { return reserve_bytes_; }

 private:
  const FreeBytes free_bytes_;
  const uint64_t reserve_bytes_;
};

}  // namespace credledger::service
