// Random identifiers for the test API server: object uids, JWT ids and bearer tokens, all
// from OpenSSL's CSPRNG.
//
// Thread-safety: safe from any thread (OpenSSL 3's RAND_bytes is thread-safe).
#pragma once

#include <string>

namespace credledger::kubeapi {

// `count` random bytes. Aborts the process if the system CSPRNG fails (nothing in a test
// server can continue without randomness).
std::string RandomBytes(size_t count);

// An RFC 4122 version 4 UUID in lowercase 8-4-4-4-12 form, like Kubernetes object uids.
std::string NewUuidV4();

// A bearer token: 32 random bytes as 64 lowercase hex characters.
std::string NewBearerToken();

}  // namespace credledger::kubeapi
