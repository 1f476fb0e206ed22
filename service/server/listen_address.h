// Which addresses `credledger serve` may listen on: plaintext only on loopback or a unix
// socket, any address with TLS (docs/api.md, "Transport").
//
// Pure functions; thread-safe.
#pragma once

#include "absl/status/status.h"
#include "absl/strings/string_view.h"

namespace credledger::service {

// Accepts a gRPC listening address: "<host>:<port>", "[<IPv6>]:<port>", "unix:<path>",
// "unix://<absolute path>" or "unix-abstract:<name>"; <port> is 0-65535 without leading
// zeros (0 lets the kernel choose), the host as libcurl reads a URL's (common::SplitHostPort).
// Without `tls` the host must be one only local processes can reach: 127.0.0.0/8, ::1 or
// localhost.
// Errors: kInvalidArgument naming `field` for a malformed address, a missing or malformed
// host (an IPv6 address without brackets), a missing or bad port, or, without `tls`, a
// non-loopback host (plaintext would be exposed to the network).
absl::Status CheckListenAddress(absl::string_view field, absl::string_view address, bool tls);

}  // namespace credledger::service
