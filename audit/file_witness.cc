#include "audit/file_witness.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>
#include <utility>

#include "absl/strings/str_cat.h"
#include "common/atomic_file.h"
#include "common/status_macros.h"

namespace credledger::audit {
namespace {

// Bytes of the file's end Read looks at: room for far more than kWitnessHistory lines.
constexpr off_t kTailBytes = 64 * 1024;

// Closes a file descriptor when it goes out of scope.
struct FdCloser {
  int fd;
  ~FdCloser() {
    if (fd >= 0) close(fd);
  }
};

absl::Status OsError(absl::StatusCode code, const std::string& name, absl::string_view what) {
  return absl::Status(code, absl::StrCat(name, ": ", what, ": ", std::strerror(errno)));
}

}  // namespace

FileWitness::FileWitness(std::filesystem::path path, std::string name)
    : path_(std::move(path)), name_(std::move(name)) {}

absl::StatusOr<std::vector<v1::Checkpoint>> FileWitness::Read() {
  const int fd = open(path_.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    if (errno == ENOENT) return std::vector<v1::Checkpoint>();
    return OsError(absl::StatusCode::kFailedPrecondition, name_, "cannot open");
  }
  FdCloser closer{fd};
  struct stat st {};
  if (fstat(fd, &st) != 0) return OsError(absl::StatusCode::kFailedPrecondition, name_, "stat");
  const off_t start = st.st_size > kTailBytes ? st.st_size - kTailBytes : 0;
  std::string tail(static_cast<size_t>(st.st_size - start), '\0');
  size_t done = 0;
  while (done < tail.size()) {
    const ssize_t n = pread(fd, tail.data() + done, tail.size() - done, start + done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return OsError(absl::StatusCode::kFailedPrecondition, name_, "read");
    if (n == 0) break;
    done += static_cast<size_t>(n);
  }
  tail.resize(done);
  // Read from the middle of the file, the first piece may be part of a line.
  if (start > 0) tail.erase(0, std::min(tail.size(), tail.find('\n') + 1));
  ASSIGN_OR_RETURN(std::vector<v1::Checkpoint> checkpoints, ParseWitnessLines(name_, tail));
  if (checkpoints.size() > kWitnessHistory) {
    checkpoints.erase(checkpoints.begin(), checkpoints.end() - kWitnessHistory);
  }
  return checkpoints;
}

absl::StatusOr<std::vector<v1::Checkpoint>> FileWitness::ReadAll() const {
  std::ifstream in(path_, std::ios::binary);
  if (!in) {
    return OsError(
        errno == ENOENT ? absl::StatusCode::kNotFound : absl::StatusCode::kFailedPrecondition,
        name_, "cannot open");
  }
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) return absl::FailedPreconditionError(absl::StrCat(name_, ": read failed"));
  return ParseWitnessLines(name_, text.str());
}

absl::Status FileWitness::Append(const v1::Checkpoint& checkpoint) {
  const int fd = open(path_.c_str(), O_RDWR | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0) return OsError(absl::StatusCode::kFailedPrecondition, name_, "cannot open");
  FdCloser closer{fd};
  struct stat st {};
  if (fstat(fd, &st) != 0) return OsError(absl::StatusCode::kUnavailable, name_, "stat");
  std::string line = RenderWitnessLines({checkpoint});
  // A line cut short by a crash is ended first, so that it stays one ignored line.
  if (st.st_size > 0) {
    char last = '\n';
    if (pread(fd, &last, 1, st.st_size - 1) != 1) {
      return OsError(absl::StatusCode::kUnavailable, name_, "read");
    }
    if (last != '\n') line.insert(0, "\n");
  }
  size_t done = 0;
  while (done < line.size()) {
    const ssize_t n = write(fd, line.data() + done, line.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return OsError(absl::StatusCode::kUnavailable, name_, "write");
    done += static_cast<size_t>(n);
  }
  if (fsync(fd) != 0) return OsError(absl::StatusCode::kUnavailable, name_, "sync");
  if (st.st_size == 0) RETURN_IF_ERROR(common::SyncFolderOf(path_, name_));
  return absl::OkStatus();
}

}  // namespace credledger::audit
