// The `credledger target ...` client subcommands: one per TargetService RPC (DESIGN
// section 6). Each dials --server (default 127.0.0.1:7443, or $CREDLEDGER_SERVER) over
// plaintext gRPC, declares the caller with --as (metadata credledger-actor, default
// "anonymous"), and prints text or, with --output json, the protobuf JSON mapping.
//
// Mutating subcommands send --request-id, or generate one (a random UUID) and print
// "request-id: <id>" on stderr first, so the operator can retry the same request.
// A failed call prints "error: <CODE>: <message>" on stderr and exits 1.
#pragma once

#include "service/subcommands.h"

namespace credledger::service {

// The server address used when --server is not given: $CREDLEDGER_SERVER when set and
// non-empty, else "127.0.0.1:7443".
std::string DefaultServerAddress();

// Adds "target register|delete|rotate|revoke|lift|confirm|get|list|watch" to `dispatcher`.
void AddTargetCommands(Dispatcher& dispatcher);

}  // namespace credledger::service
