// Files that appear whole or not at all (docs/design.md, "Files"): every file credledger
// writes (port files, keys, exports, backups, the TLS copies) is written under another name,
// synced, and moved into place by one rename, after which its folder is synced too, so that
// neither a reader nor a crash ever sees part of it.
//
// Thread-safety: stateless; concurrent writers of one path get distinct temporary files.
#pragma once

#include <sys/types.h>

#include <filesystem>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"

namespace credledger::common {

// How a file is created and moved into place.
struct FileWriteOptions {
  // What the file is for, the start of every error message: a flag ("--port-file") or a
  // command ("backup"). Required.
  absl::string_view label;
  // The new file's permissions, less the umask unless `exact_mode`.
  mode_t mode = 0666;
  // Sets `mode` exactly whatever the umask (a private key's 0600, a public key's 0644); the
  // file never has more permissions than `mode`, not even before it is written.
  bool exact_mode = false;
  // Whether the move replaces what is at the path. When false, anything there (a dangling
  // symbolic link included) is kept and the move refused, also when it appears meanwhile.
  bool replace = true;
};

// Creates the empty file `path` with options.mode and exact_mode, exclusively (O_EXCL):
// never an existing file, never through a symbolic link.
// Errors: kAlreadyExists when anything is at `path`; kFailedPrecondition when it cannot be
// created (a missing folder, no permission), naming the label, the path and the OS error.
absl::Status CreateNewFile(const std::filesystem::path& path, const FileWriteOptions& options);

// Moves the complete file `from` to `to`: syncs `from` (for a symbolic link, what it names),
// renames it to `to` (without options.replace through renameat2 RENAME_NOREPLACE, or a hard
// link then unlink where the file system lacks it), then syncs `to`'s folder.
// Errors: kAlreadyExists when options.replace is false and anything is at `to` (`from` is
// left as it is); kUnavailable when a sync or the rename fails. Messages name the label and
// the paths.
absl::Status MoveIntoPlace(const std::filesystem::path& from, const std::filesystem::path& to,
                           const FileWriteOptions& options);

// Syncs the folder that holds `path` ("." for a bare file name), so that a file created,
// renamed or removed there stays so after a crash.
// Errors: kUnavailable naming `label` and the folder.
absl::Status SyncFolderOf(const std::filesystem::path& path, absl::string_view label);

// Writes `text` as the file `path`: into a new temporary file beside it
// ("<path>.tmp-<pid>-<n>", created as CreateNewFile does), synced, then MoveIntoPlace. A
// failed write leaves no temporary file.
// Errors: kAlreadyExists as MoveIntoPlace; kFailedPrecondition when the file cannot be created;
// kUnavailable when writing, a sync or the rename fails. Messages name the label and `path`.
absl::Status WriteFileAtomically(const std::filesystem::path& path, absl::string_view text,
                                 const FileWriteOptions& options);

}  // namespace credledger::common
