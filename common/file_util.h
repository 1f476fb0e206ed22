// Small-file helpers for credentials and configuration files (kubeconfigs, tokens, TLS
// files, spec files, the authorization policy).
//
// Messages name the file and the OS error, never the content (the files hold tokens and keys).
// Thread-safety: stateless functions.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <string>

#include "absl/status/statusor.h"

namespace credledger::common {

// 1 MiB: larger than any kubeconfig, certificate bundle or token we accept.
inline constexpr size_t kMaxConfigFileBytes = size_t{1} << 20;

// Reads the whole regular file `path` (symlinks followed), at most `max_bytes` bytes.
// Returns its bytes.
// Errors: kNotFound when the file does not exist; kFailedPrecondition when it cannot be
// opened or read, is not a regular file, or is longer than `max_bytes`. The message is
// `"<path>": <reason>`.
absl::StatusOr<std::string> ReadSmallFile(const std::filesystem::path& path,
                                          size_t max_bytes = kMaxConfigFileBytes);

// Identity of a file's current content as far as stat(2) tells: device, inode, size and
// modification time in nanoseconds. Two equal stamps mean "probably unchanged".
struct FileStamp {
  uint64_t device = 0;
  uint64_t inode = 0;
  int64_t size = -1;
  int64_t mtime_ns = 0;
  friend bool operator==(const FileStamp&, const FileStamp&) = default;
};

// stat(2) of `path` (symlinks followed).
// Errors: kNotFound when it does not exist; kFailedPrecondition for other stat failures.
absl::StatusOr<FileStamp> StatFile(const std::filesystem::path& path);

// Bytes an unprivileged process may still write on the file system holding `path` (statvfs(3):
// f_bavail * f_frsize).
// Errors: kNotFound when `path` does not exist; kFailedPrecondition for other statvfs failures.
absl::StatusOr<uint64_t> FreeBytesOf(const std::filesystem::path& path);

}  // namespace credledger::common
