// `credledger keygen`: writes a new Ed25519 key pair for signing checkpoints and export
// trailers, and with --fingerprint-key a new fingerprint key for source Secrets
// (docs/audit.md, "Keys" and "Source fingerprints").
#pragma once

#include "cli/framework/subcommands.h"

namespace credledger::cli {

// Adds `keygen` to `dispatcher`.
void AddKeygenCommands(Dispatcher& dispatcher);

}  // namespace credledger::cli
