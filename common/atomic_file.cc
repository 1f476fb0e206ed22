#include "common/atomic_file.h"

#include <fcntl.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <string>

#include "absl/strings/str_cat.h"
#include "common/quote_cut.h"

namespace credledger::common {
namespace {

namespace fs = std::filesystem;

// Longest part of a path quoted in a message.
constexpr size_t kShownPathBytes = 300;
// Temporary names tried before giving up (each taken one is a leftover of a killed writer).
constexpr int kTemporaryNameAttempts = 100;

std::string Shown(const fs::path& path) { return QuoteCut(path.string(), kShownPathBytes); }

// The OS error `error` as a status: "<label>: cannot <what>: <reason>".
absl::Status OsError(absl::StatusCode code, absl::string_view label, absl::string_view what,
                     int error) {
  return absl::Status(code, absl::StrCat(label, ": cannot ", what, ": ", std::strerror(error)));
}

// Creates `path` as CreateNewFile does and returns its descriptor, open for writing; on a
// failure returns -1 with errno set.
int OpenNew(const fs::path& path, const FileWriteOptions& options) {
  const int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, options.mode);
  if (fd < 0 || !options.exact_mode || fchmod(fd, options.mode) == 0) return fd;
  const int error = errno;
  close(fd);
  unlink(path.c_str());
  errno = error;
  return -1;
}

// Writes all of `text` to `fd` and syncs it; returns 0 or the errno of the failure.
int WriteAndSync(int fd, absl::string_view text) {
  for (size_t written = 0; written < text.size();) {
    const ssize_t n = write(fd, text.data() + written, text.size() - written);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return errno;
    written += static_cast<size_t>(n);
  }
  return fsync(fd) == 0 ? 0 : errno;
}

// Syncs the file or folder at `path`; returns 0 or the errno of the failure.
int SyncPath(const fs::path& path) {
  const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return errno;
  const int error = fsync(fd) == 0 ? 0 : errno;
  close(fd);
  return error;
}

// Renames `from` to `to`, keeping anything at `to` unless options.replace; then syncs the
// folder of `to`.
absl::Status Rename(const fs::path& from, const fs::path& to, const FileWriteOptions& options) {
  bool moved = false;
  if (options.replace) {
    moved = rename(from.c_str(), to.c_str()) == 0;
  } else {
    moved = renameat2(AT_FDCWD, from.c_str(), AT_FDCWD, to.c_str(), RENAME_NOREPLACE) == 0;
    if (!moved && (errno == EINVAL || errno == ENOSYS) && link(from.c_str(), to.c_str()) == 0) {
      unlink(from.c_str());
      moved = true;
    }
  }
  if (!moved && errno == EEXIST && !options.replace) {
    return absl::AlreadyExistsError(
        absl::StrCat(options.label, ": ", Shown(to), " exists and is kept"));
  }
  if (!moved) {
    return OsError(absl::StatusCode::kUnavailable, options.label,
                   absl::StrCat("move ", Shown(from), " to ", Shown(to)), errno);
  }
  return SyncFolderOf(to, options.label);
}

}  // namespace

absl::Status CreateNewFile(const fs::path& path, const FileWriteOptions& options) {
  const int fd = OpenNew(path, options);
  if (fd < 0 && errno == EEXIST) {
    return absl::AlreadyExistsError(absl::StrCat(options.label, ": ", Shown(path), " exists"));
  }
  if (fd < 0) {
    return OsError(absl::StatusCode::kFailedPrecondition, options.label,
                   absl::StrCat("create ", Shown(path)), errno);
  }
  close(fd);
  return absl::OkStatus();
}

absl::Status MoveIntoPlace(const fs::path& from, const fs::path& to,
                           const FileWriteOptions& options) {
  if (const int error = SyncPath(from); error != 0) {
    return OsError(absl::StatusCode::kUnavailable, options.label,
                   absl::StrCat("sync ", Shown(from)), error);
  }
  return Rename(from, to, options);
}

absl::Status SyncFolderOf(const fs::path& path, absl::string_view label) {
  const fs::path folder = path.has_parent_path() ? path.parent_path() : fs::path(".");
  if (const int error = SyncPath(folder); error != 0) {
    return OsError(absl::StatusCode::kUnavailable, label,
                   absl::StrCat("sync the folder ", Shown(folder)), error);
  }
  return absl::OkStatus();
}

absl::Status WriteFileAtomically(const fs::path& path, absl::string_view text,
                                 const FileWriteOptions& options) {
  static std::atomic<uint64_t> next_temporary{0};
  fs::path temporary;
  int fd = -1;
  for (int attempt = 0; fd < 0 && attempt < kTemporaryNameAttempts; ++attempt) {
    temporary = absl::StrCat(path.string(), ".tmp-", getpid(), "-", next_temporary++);
    fd = OpenNew(temporary, options);
    if (fd < 0 && errno != EEXIST) break;
  }
  if (fd < 0) {
    return OsError(absl::StatusCode::kFailedPrecondition, options.label,
                   absl::StrCat("create ", Shown(path)), errno);
  }
  int error = WriteAndSync(fd, text);
  if (close(fd) != 0 && error == 0) error = errno;
  absl::Status moved =
      error == 0 ? Rename(temporary, path, options)
                 : OsError(absl::StatusCode::kUnavailable, options.label,
                           absl::StrCat("write ", Shown(path)), error);
  // After a failed rename the temporary is still there; after a failed folder sync it is
  // not, and this does nothing.
  if (!moved.ok()) unlink(temporary.c_str());
  return moved;
}

}  // namespace credledger::common
