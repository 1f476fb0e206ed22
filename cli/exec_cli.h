// `credledger exec --credentials-dir DIR -- CMD [ARGS...]`: replaces the process with CMD,
// whose environment is the inherited one plus one variable per file of DIR (a mounted
// mirror Secret), minus the keys that could steer Terraform or the Kubernetes client
// (credentials_env.h; docs/mirrors.md, "Delivery to workloads").
//
// Stderr names what was filtered, values never, each name quoted as common::QuoteCut does:
// `exec: not passed to "CMD" (TF_/KUBE_ variables): from files: "TF_VAR_x"; inherited:
// "TF_LOG"` and `exec: files ignored, the caller's value (if any) is kept: "TF_INPUT"`. Exit
// codes when CMD does not run: 2 for usage errors, 1 when DIR cannot be read, 127 when CMD is
// not found and 126 when it cannot be executed (as a POSIX shell reports them). Once CMD
// runs, the exit code is CMD's.
//
// Thread-safety: not thread-safe; one command per process run.
#pragma once

#include <cstddef>
#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "cli/framework/subcommands.h"

namespace credledger::cli {

// Largest credential file read: 1 MiB, the most a Kubernetes Secret holds in total.
inline constexpr size_t kMaxCredentialFileBytes = size_t{1} << 20;
// Exit codes when the command cannot be started.
inline constexpr int kExitCommandNotExecutable = 126;
inline constexpr int kExitCommandNotFound = 127;

// Adds "exec" to `dispatcher`.
void AddExecCommands(Dispatcher& dispatcher);

// Reads the credential files directly in `dir`: regular files and symbolic links to regular
// files, skipping names that start with '.' (the `..data` and `..<timestamp>` entries of a
// Kubernetes Secret volume) and other kinds of entries (directories, sockets, ...).
// Returns (file name, content) pairs ordered by name.
// Errors: kNotFound or kFailedPrecondition naming `dir` when it cannot be listed, and naming
// the file when one cannot be read, is a dangling link, or is larger than
// kMaxCredentialFileBytes. Messages never contain file contents.
absl::StatusOr<std::vector<std::pair<std::string, std::string>>> ReadCredentialsDir(
    const std::filesystem::path& dir);

}  // namespace credledger::cli
