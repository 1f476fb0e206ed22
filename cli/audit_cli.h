// The audit and forensics subcommands (docs/api.md, "AuditService"; docs/audit.md, "Export"
// and "Verifying an export, step by step"; docs/forensics.md):
//
//   credledger export      ExportEvents, rendered as JSON Lines, CloudEvents or CSV
//   credledger verify      checks an export file offline, or a database (--db), with the
//                          service's public key; exit 0 only when everything verifies
//   credledger replay      GetStateAt: state, conditions and rollups as of a time or seq
//   credledger timeline    Timeline: a Target's history
//   credledger diff        Diff: what changed between two points
//   credledger valid-credentials   ValidCredentialsAt: tokens that could authenticate at T
//
// replay, timeline, diff and valid-credentials call the server (ClientCommand flags), or
// with --db <file> answer from a copy of the database opened read-only, without a server.
#pragma once

#include "cli/framework/subcommands.h"

namespace credledger::cli {

// Adds export, verify, replay, timeline, diff and valid-credentials to `dispatcher`.
void AddAuditCommands(Dispatcher& dispatcher);

}  // namespace credledger::cli
