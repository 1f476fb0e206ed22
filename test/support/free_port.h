// PickFreePort: a TCP port on 127.0.0.1 for a test server to listen on. For tests only.
#pragma once

#include "absl/status/statusor.h"

namespace credledger::testing {

// A loopback port that was free a moment ago: binds a socket to 127.0.0.1 port 0, reads the
// port the kernel chose and closes the socket. Another process may take the port before the
// server binds it, so a server that cannot bind is started again on a new port.
// Errors: kInternal when no socket can be made or bound.
absl::StatusOr<int> PickFreePort();

}  // namespace credledger::testing
