// Random identifiers generated at the API edge and by the CLI, never inside deciders
// (docs/design.md, "Deciders": ids arrive in the command).
//
// Thread-safety: safe from any thread (OpenSSL's RAND_bytes is thread-safe).
#pragma once

#include <string>

#include "absl/status/statusor.h"

namespace credledger::common {

// A random RFC 4122 version-4 UUID in lowercase 8-4-4-4-12 hex form (36 characters), from
// OpenSSL's CSPRNG. Used for Target uids and CLI request ids.
// Errors: kUnavailable when the random generator fails (not seeded).
absl::StatusOr<std::string> NewUuidV4();

}  // namespace credledger::common
