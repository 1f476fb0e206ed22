// The `credledger target ...` client subcommands: one per TargetService RPC (docs/api.md,
// "RPCs and subcommands"), with the client flags of ClientCommand (client_command.h:
// --server, --as, --output).
//
// Mutating subcommands send --request-id, or generate one (a random UUID) and print
// "request-id: <id>" on stderr first, so the operator can retry the same request.
// A failed call prints "error: <CODE>: <message>" on stderr and exits 1.
#pragma once

#include "cli/framework/subcommands.h"

namespace credledger::cli {

// Adds "target register|delete|rotate|revoke|lift|confirm|get|list|watch" to `dispatcher`.
void AddTargetCommands(Dispatcher& dispatcher);

}  // namespace credledger::cli
