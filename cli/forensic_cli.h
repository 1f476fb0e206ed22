// The forensic subcommands (docs/forensics.md; docs/api.md, "AuditService"):
//
//   credledger replay      GetStateAt: state, conditions and rollups as of a time or seq
//   credledger timeline    Timeline: a Target's (or an identity's) history
//   credledger diff        Diff: what changed between two points
//   credledger valid-credentials   ValidCredentialsAt: tokens that could authenticate at T
//
// Each calls the server (ClientCommand flags), or with --db <file> answers from a copy of the
// database opened read-only, without a server (AuditApi in the CLI's process), through the
// same printer.
#pragma once

#include "cli/framework/subcommands.h"

namespace credledger::cli {

// Adds replay, timeline, diff and valid-credentials to `dispatcher`, in this order.
void AddForensicCommands(Dispatcher& dispatcher);

}  // namespace credledger::cli
