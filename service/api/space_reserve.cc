#include "service/api/space_reserve.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "common/file_util.h"

namespace credledger::service {

SpaceReserve::FreeBytes SpaceReserve::FileSystemOf(std::filesystem::path path) {
  return [path = std::move(path)] { return common::FreeBytesOf(path); };
}

SpaceReserve::SpaceReserve(FreeBytes free_bytes, uint64_t reserve_bytes)
    : free_bytes_(std::move(free_bytes)), reserve_bytes_(reserve_bytes) {}

absl::Status SpaceReserve::Check() const {
  if (reserve_bytes_ == 0) return absl::OkStatus();
  absl::StatusOr<uint64_t> free = free_bytes_();
  if (!free.ok() || *free >= reserve_bytes_) return absl::OkStatus();
  return absl::ResourceExhaustedError(absl::StrCat(
      "free space on the log's file system is ", *free, " bytes, below the reserve of ",
      reserve_bytes_, " bytes (--space-reserve): reports and heartbeats are refused"));
}

}  // namespace credledger::service
