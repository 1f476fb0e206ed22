// `credledger keygen`: writes a new Ed25519 key pair for signing checkpoints and export
// trailers (docs/audit.md, "Keys").
#pragma once

#include "cli/framework/subcommands.h"

namespace credledger::cli {

// Adds `keygen` to `dispatcher`.
void AddKeygenCommands(Dispatcher& dispatcher);

}  // namespace credledger::cli
