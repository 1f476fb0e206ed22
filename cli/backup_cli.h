// `credledger backup`: a consistent copy of the event log while the service runs
// (docs/operations.md, "Backup and restore"; store/backup.h), and `credledger copy-log`
// (cli/copy_log_cli.h), the copy of a log between backends that `backup --store` uses.
#pragma once

#include "cli/framework/subcommands.h"

namespace credledger::cli {

// Adds `backup` and `copy-log` to `dispatcher`.
void AddBackupCommands(Dispatcher& dispatcher);

}  // namespace credledger::cli
