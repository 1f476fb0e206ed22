// WriteFileAtomically: replaces a small file (a port file, a state file) so that a reader
// sees either the old content or the whole new one, never a partial file.
//
// Thread-safety: stateless; concurrent writers of one path must not overlap.
#pragma once

#include <filesystem>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"

namespace credledger::common {

// Writes `text` to "<path>.tmp", then renames it over `path`.
// Errors: kInternal naming the file and the reason when it cannot be written or renamed.
absl::Status WriteFileAtomically(const std::filesystem::path& path, absl::string_view text);

}  // namespace credledger::common
