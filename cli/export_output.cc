#include "cli/export_output.h"

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "common/atomic_file.h"
#include "common/quote_cut.h"

namespace credledger::cli {
namespace {

namespace fs = std::filesystem;

// Longest part of a path quoted in a message.
constexpr size_t kShownPathBytes = 300;

std::string Quoted(const std::string& path) { return common::QuoteCut(path, kShownPathBytes); }

// How the .partial is created and moved: mode 0644 less the umask; the move replaces an
// existing export only with `overwrite`.
common::FileWriteOptions WriteOptions(bool overwrite) {
  return {.label = "--output", .mode = 0644, .replace = overwrite};
}

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
  // Exclusively: never a file another export writes, never through a symbolic link.
  const absl::Status created = common::CreateNewFile(partial, WriteOptions(overwrite));
  if (absl::IsAlreadyExists(created)) return PartialExists(partial);  // created meanwhile
  if (!created.ok()) return created;
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
  const absl::Status moved = common::MoveIntoPlace(written_, path_, WriteOptions(overwrite_));
  if (absl::IsAlreadyExists(moved)) {
    return absl::AlreadyExistsError(
        absl::StrCat("--output: ", Quoted(path_),
                     " appeared during the export and is left as it is; the complete export is in ",
                     Quoted(written_)));
  }
  return moved;
}

}  // namespace credledger::cli
