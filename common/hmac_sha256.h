// HMAC-SHA-256 (RFC 2104) on OpenSSL 3's EVP_MAC interface, beside the plain hash of
// sha256.h. The EVP_MAC algorithm object is fetched once per process and shared (a fetch
// per call would cost more than the MAC); each call uses its own context.
//
// Thread-safety: stateless; safe from any thread.
#pragma once

#include "absl/strings/string_view.h"
#include "common/sha256.h"

namespace credledger::common {

// HMAC-SHA-256 of `message` under `key` (any length; keys longer than 64 bytes are hashed
// first, as RFC 2104 says). Returns the 32-byte MAC.
Sha256Bytes HmacSha256(absl::string_view key, absl::string_view message);

}  // namespace credledger::common
