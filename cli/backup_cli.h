// `credledger backup`: a consistent copy of the event log while the service runs
// (docs/operations.md, "Backup and restore"; store/backup.h).
#pragma once

#include "cli/framework/subcommands.h"

namespace credledger::cli {

// Adds `backup` to `dispatcher`.
void AddBackupCommands(Dispatcher& dispatcher);

}  // namespace credledger::cli
