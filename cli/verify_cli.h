// `credledger verify` (docs/audit.md, "Verifying an export, step by step"): checks an export
// file ("-": stdin) or, with --db, a database file opened read-only, offline with the service's
// public keys (--public-key, repeatable after a key rotation) and an optional --min-seq; prints
// the verdict and exits 0 only when everything verifies.
#pragma once

#include "cli/framework/subcommands.h"

namespace credledger::cli {

// Adds "verify" to `dispatcher`.
void AddVerifyCommand(Dispatcher& dispatcher);

}  // namespace credledger::cli
