// `credledger verify` (docs/audit.md, "Verifying an export, step by step" and "Keeping exports
// consistent"): checks an export file ("-": stdin), a database file opened read-only (--db),
// or the export against the database, offline with the service's public keys (--public-key,
// repeatable after a key rotation), an optional --min-seq, and an optional earlier export
// whose signed head the log must still hold (--previous); prints the verdict and exits 0 only
// when everything verifies.
#pragma once

#include "cli/framework/subcommands.h"

namespace credledger::cli {

// Adds "verify" to `dispatcher`.
void AddVerifyCommand(Dispatcher& dispatcher);

}  // namespace credledger::cli
