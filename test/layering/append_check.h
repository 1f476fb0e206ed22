// The append check: only the command bus (service/bus/) and the store itself (store/) reach the
// store's write entry point (docs/architecture.md, "One command bus").
//
// In every .h and .cc file of every library folder other than those two (folders under test/
// excepted), with comments and string and character literals blanked out, it reports:
//   - a name of the writer's interface: WriteTransaction, AppendRequest, StreamAppend,
//     `store::Command`;
//   - a call of Execute or Append on an event store: a receiver whose name starts with
//     "store" (`store_->Execute(`, `log_->store->Append(`, `bus.store()->Execute(`).
// Snapshots and checkpoints keep their narrow, named entries (SaveSnapshot, SaveCheckpoint),
// which the check allows.
//
// Thread-safety: stateless functions.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "test/layering/include_layers.h"

namespace credledger::testing {

// `text` with every comment and every string or character literal (raw strings included)
// replaced by spaces, newlines kept, so line numbers and columns still hold.
std::string BlankCommentsAndLiterals(absl::string_view text);

// The forbidden uses in `text` (a C++ file's contents), one "<line>: <what>" each, lines
// counted from 1.
std::vector<std::string> FindAppendsIn(absl::string_view text);

// Checks the files of every library folder of `layers` under `source_root` but service/bus/,
// store/ and those under test/. Returns one "<folder>/<file>:<line>: <what>" per forbidden use.
std::vector<std::string> FindAppendViolations(const Layers& layers,
                                              const std::filesystem::path& source_root);

}  // namespace credledger::testing
