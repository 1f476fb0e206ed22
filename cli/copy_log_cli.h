// `credledger copy-log`: an event log copied into an empty log on the other (or the same)
// backend, byte for byte, and checked against its source (docs/operations.md, "Moving a log
// between SQLite and PostgreSQL"; store/open/log_copy.h).
#pragma once

#include <ostream>

#include "cli/framework/subcommands.h"
#include "store/open/log_location.h"

namespace credledger::cli {

// Adds `copy-log` to `dispatcher`.
void AddCopyLogCommand(Dispatcher& dispatcher);

// Copies the log at `from` into the empty log at `to` (store::CopyLog) and reports it: on
// success prints to `out` "copied N events (seq 1..N, chain <the first 16 hex digits of the
// head's chain_hash>), C checkpoints and K snapshots from <from> to <to>; the copy verifies"
// ("copied 0 events, ..." for an empty log) and returns kExitOk; otherwise prints the error to
// `err` and returns kExitFailure. Logs are named by LogLocation::Name, never with a password.
int RunLogCopy(const store::LogLocation& from, const store::LogLocation& to, std::ostream& out,
               std::ostream& err);

}  // namespace credledger::cli
