#include "cli/export_output.h"

#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"

namespace credledger::service {
namespace {

namespace fs = std::filesystem;

std::string Quoted(const std::string& path) { return absl::StrCat("\"", path, "\""); }

absl::Status OsError(absl::string_view what, const std::string& path) {
  return absl::FailedPreconditionError(
      absl::StrCat("--output: cannot ", what, " ", Quoted(path), ": ", std::strerror(errno)));
}

// The refusal of a `partial` that exists: an interrupted export, or one still running.
absl::Status PartialExists(const std::string& partial) {
  return absl::AlreadyExistsError(
      absl::StrCat("--output: ", Quoted(partial),
                   " exists: an interrupted export, kept to resume from; write the resumed "
                   "export to another --output, or move it away first"));
}

// Whether `path` lies in the system's device or process tree (/dev/stdout, /dev/fd/3,
// /proc/self/fd/1): it names an open file or a device, whatever it resolves to.
bool IsSystemPath(const std::string& path) {
  std::error_code ignored;
  const std::string absolute = fs::absolute(path, ignored).lexically_normal().string();
  return absl::StartsWith(absolute, "/dev/") || absl::StartsWith(absolute, "/proc/");
}

// Moves `from` to `to` unless something is at `to`: renameat2(RENAME_NOREPLACE), or where the
// file system lacks it, a hard link then unlink. errno is set when it returns false.
bool RenameNoReplace(const std::string& from, const std::string& to) {
  if (renameat2(AT_FDCWD, from.c_str(), AT_FDCWD, to.c_str(), RENAME_NOREPLACE) == 0) return true;
  if (errno != EINVAL && errno != ENOSYS) return false;
  if (link(from.c_str(), to.c_str()) != 0) return false;
  unlink(from.c_str());
  return true;
}

}  // namespace

absl::StatusOr<std::unique_ptr<ExportOutput>> ExportOutput::Open(const std::string& path,
                                                                 bool overwrite) {
  std::error_code ignored;
  const fs::file_status target = fs::status(path, ignored);  // through symbolic links
  if (IsSystemPath(path) || (fs::exists(target) && !fs::is_regular_file(target))) {
    auto direct = std::unique_ptr<ExportOutput>(new ExportOutput(path, path, overwrite));
    direct->file_.open(path, std::ios::binary | std::ios::out);
    if (!direct->file_) return OsError("open", path);
    return direct;
  }
  // A symbolic link stays: the export replaces the file it names.
  const fs::file_status entry = fs::symlink_status(path, ignored);
  const std::string file =
      fs::is_symlink(entry) ? fs::weakly_canonical(path, ignored).string() : path;
  const std::string partial = absl::StrCat(file, ".partial");
  if (fs::exists(fs::symlink_status(partial, ignored))) return PartialExists(partial);
  if (!overwrite && fs::exists(entry)) {
    return absl::AlreadyExistsError(
        absl::StrCat("--output: ", Quoted(path),
                     " exists; pass --overwrite to replace it once the new export is complete, "
                     "or choose another path"));
  }
  // O_EXCL: never a file another export writes, never through a symbolic link.
  const int fd = open(partial.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd < 0) {
    if (errno == EEXIST) return PartialExists(partial);  // created meanwhile
    return OsError("create", partial);
  }
  close(fd);
  auto output = std::unique_ptr<ExportOutput>(new ExportOutput(file, partial, overwrite));
  output->file_.open(partial, std::ios::binary | std::ios::out);
  if (!output->file_) {
    absl::Status error = OsError("open", partial);
    fs::remove(partial, ignored);
    return error;
  }
  return output;
}

std::string ExportOutput::Abandon(bool keep_partial) {
  file_.close();
  if (written_ == path_) return "";
  if (keep_partial) return written_;
  std::error_code ignored;
  fs::remove(written_, ignored);
  return "";
}

absl::Status ExportOutput::Commit() {
  file_.close();
  if (!file_) {
    return absl::FailedPreconditionError(
        absl::StrCat("--output: writing ", Quoted(written_), " failed"));
  }
  if (written_ == path_) return absl::OkStatus();
  if (overwrite_) {
    std::error_code renamed;
    fs::rename(written_, path_, renamed);
    if (renamed) {
      return absl::FailedPreconditionError(absl::StrCat("--output: cannot move ", Quoted(written_),
                                                        " to ", Quoted(path_), ": ",
                                                        renamed.message()));
    }
    return absl::OkStatus();
  }
  if (RenameNoReplace(written_, path_)) return absl::OkStatus();
  if (errno == EEXIST) {
    return absl::AlreadyExistsError(
        absl::StrCat("--output: ", Quoted(path_),
                     " appeared during the export and is left as it is; the complete export is in ",
                     Quoted(written_)));
  }
  return OsError(absl::StrCat("move ", Quoted(written_), " to"), path_);
}

}  // namespace credledger::service
