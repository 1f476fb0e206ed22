// `credledger export` (docs/audit.md, "Export"; docs/api.md, "AuditService"): streams the
// events of the log from the server (ExportEvents), rendered as JSON Lines, CloudEvents or CSV,
// to stdout or to an --output file (export_output.h), with a one-line summary on stderr, and
// names the --after-seq to resume with when the export stops midway.
#pragma once

#include "cli/framework/subcommands.h"

namespace credledger::cli {

// Adds "export" to `dispatcher`.
void AddExportCommand(Dispatcher& dispatcher);

}  // namespace credledger::cli
