// The shape of a flag that names a file credledger writes (serve --port-file and
// --http-port-file, export --output, keygen's keys, backup --to, copy-log --to-db): checked
// with the other flags, so that a folder given by mistake is a usage error naming the flag
// before anything is opened or started (docs/api.md, "Bad input"), not a failure after
// start-up.
//
// Thread-safety: thread-safe; reads the file system (one stat), writes nothing.
#pragma once

#include <string>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"

namespace credledger::cli {

// Checks that `path` can name a file: it does not end in '/', is not an existing directory,
// and its folder exists (the path as given, relative to the working directory; no writer of
// these flags creates folders). Whether the file can be created is left to the writer, which
// names the flag and the system's reason.
// REQUIRES: `path` is not empty (each flag says itself what empty means).
// Errors: kInvalidArgument "<flag>: \"<path>\" names a directory; give a file path" or
// "<flag>: \"<folder>\" is not an existing folder; create it first".
absl::Status CheckFilePathFlag(absl::string_view flag, const std::string& path);

}  // namespace credledger::cli
