// The `credledger serve` and `credledger migrate` subcommands.
//
// serve: runs the Server (server.h) until SIGINT or SIGTERM, printing
// "credledger serving on <host:port>" on stdout once it accepts calls. Bad flag values
// (ValidateServeOptions: --agent-token-ttl below 10m, a non-loopback --listen, ...; a
// --port-file or --http-port-file naming a folder; --lease-name, --lease-namespace or
// --lease-duration that the Lease would refuse) are usage errors, "error: <message>" and exit
// 2, before anything is opened or printed. Start-up errors (an unreadable CA file, a newer
// database schema, ...) print "error: <CODE>: <message>" and exit 1.
// migrate: opens or creates the database, applies the migrations, prints
// "schema version <n> (<path>)" and exits.
#pragma once

#include "cli/framework/subcommands.h"

namespace credledger::service {

// Adds "serve" and "migrate" to `dispatcher`.
void AddServerCommands(cli::Dispatcher& dispatcher);

}  // namespace credledger::service
