// The `credledger status` and `credledger fleet` client subcommands over ReportService
// (docs/reports.md, "Rollups"; docs/api.md, "ReportService"), with the client flags of
// ClientCommand (client_command.h: --server, --as, --output).
//
//   status <namespace>/<name>   one Target's rollup: conditions, releases with phase,
//                               revision and flags, preflight checks, capacity, report and
//                               liveness times (GetTargetStatus).
//   status                      a table of every active Target with its three conditions
//                               (ListFleetStatus).
//   fleet [--namespace NS] [--condition Type=Status]
//                               the fleet counts and the stale, rolled-back and drifted
//                               Targets (ListFleetStatus).
//   fleet --watch [--namespace NS] [--after-seq N]
//                               streams the snapshot, its counts, then every change
//                               (WatchFleet).
//
// A failed call prints "error: <CODE>: <message>" on stderr and exits 1; a malformed
// --condition, --condition with --watch, or --after-seq without --watch exits 2.
#pragma once

#include "cli/framework/subcommands.h"

namespace credledger::cli {

// Adds "status" and "fleet" to `dispatcher`.
void AddStatusCommands(Dispatcher& dispatcher);

}  // namespace credledger::cli
