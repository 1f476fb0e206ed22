// ExportOutput: where `credledger export --output PATH` writes (docs/audit.md, "Export").
//
// A regular file (or a path where nothing is yet) is written through PATH.partial, created
// exclusively, and synced and moved to PATH only once the export is complete, so that a failed
// or interrupted export never replaces an earlier good one and two exports never share a
// .partial. An existing PATH (a dangling symbolic link included) is an earlier export, audit
// evidence: it is replaced only with `overwrite`, and without it the move refuses a file that
// appeared meanwhile. A PATH.partial that exists is an interrupted export kept to resume from:
// always refused. A symbolic link is kept: the file it names is written (through its own
// .partial) and replaced. Devices, pipes and every path under /dev/ or /proc/ (/dev/stdout,
// /dev/fd/3, even when they resolve to a regular file) are written directly.
//
// Thread-safety: not thread-safe; one per export.
#pragma once

#include <fstream>
#include <memory>
#include <ostream>
#include <string>
#include <utility>

#include "absl/status/statusor.h"

namespace credledger::cli {

class ExportOutput {
 public:
  // Opens `path` for writing as above.
  // Errors: kAlreadyExists when PATH exists and `overwrite` is false, or PATH.partial exists
  // (the messages name the path and what to do); kFailedPrecondition when the file cannot be
  // created or opened (with the OS error).
  static absl::StatusOr<std::unique_ptr<ExportOutput>> Open(const std::string& path,
                                                            bool overwrite);

  // Where the export's lines go.
  std::ostream& stream() { return file_; }
  // The file written until Commit: PATH.partial, or PATH itself when written directly.
  const std::string& written_path() const { return written_; }

  // Ends a failed export. Returns the path of the .partial kept for a resumed export when
  // `keep_partial` (events were written) and the output goes through one; otherwise removes
  // the .partial, if any, and returns "".
  std::string Abandon(bool keep_partial);
  // Ends a complete export: flushes, syncs the .partial and moves it to the file it stands
  // for, then syncs the folder (common/atomic_file.h, MoveIntoPlace).
  // Errors: kFailedPrecondition when a write failed; kUnavailable when a sync or the move
  // failed; kAlreadyExists when a file appeared at PATH during the export and `overwrite` was
  // false (the export stays complete in PATH.partial, which the message names).
  absl::Status Commit();

 private:
  ExportOutput(std::string path, std::string written, bool overwrite)
      : path_(std::move(path)), written_(std::move(written)), overwrite_(overwrite) {}

  const std::string path_;
  const std::string written_;
  const bool overwrite_;
  std::ofstream file_;
};

}  // namespace credledger::cli
