// Which addresses `credledger serve` may listen on without TLS (DESIGN section 7:
// "Plaintext is allowed only on loopback or a unix socket"; TLS comes in a later issue).
//
// Pure functions; thread-safe.
#pragma once

#include "absl/status/status.h"
#include "absl/strings/string_view.h"

namespace credledger::service {

// Accepts a gRPC listening address that only local processes can reach:
//   "127.x.y.z:<port>" (IPv4 loopback, 127.0.0.0/8), "[::1]:<port>", "localhost:<port>",
//   "unix:<path>", "unix://<absolute path>" and "unix-abstract:<name>".
// <port> is 0-65535; 0 lets the kernel choose.
// Errors: kInvalidArgument naming `field` for a malformed address, a missing or bad port, or
// a non-loopback host (plaintext would be exposed to the network).
absl::Status CheckPlaintextListenAddress(absl::string_view field, absl::string_view address);

}  // namespace credledger::service
