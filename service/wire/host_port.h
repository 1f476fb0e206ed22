// HostPort: the "<host>:<port>" part of a gRPC address, shared by the checks of the server's
// --listen (listen_address.h) and the client's --server (server_address.h).
//
// Pure functions; thread-safe.
#pragma once

#include <cstdint>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace credledger::service {

struct HostPort {
  absl::string_view host;  // without brackets; may be empty (the callers' rules differ)
  uint32_t port = 0;       // min_port..65535
  bool bracketed = false;  // given as "[<host>]:<port>" (an IPv6 address)
};

// Splits `address` as "[<IPv6>]:<port>" when it starts with '[', else as "<host>:<port>" at
// its last ':'. <port> is decimal digits only, from `min_port` to 65535. The views point into
// `address`.
// Errors: kInvalidArgument naming `field` and quoting `address`: "is not [<IPv6
// address>]:<port>" for an unclosed bracket or none of ":<port>" after it; "has no port
// (<host>:<port>)" without ':'; "has port \"...\"; a port is a number <min_port>-65535".
absl::StatusOr<HostPort> SplitHostPort(absl::string_view field, absl::string_view address,
                                       uint32_t min_port);

}  // namespace credledger::service
