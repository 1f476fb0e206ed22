// HttpLimits: the limits of the operations endpoint's connections (bounded_http_server.h;
// docs/operations.md, "Limits of the HTTP endpoint"), apart from httplib so that building
// options needs no HTTP library.
#pragma once

#include <cstddef>

#include "absl/time/time.h"

namespace credledger::service {

// Workers beyond `max_connections`: they refuse connections over the limit.
inline constexpr size_t kSpareWorkers = 2;

// The limits of a BoundedHttpServer (the defaults are serve's; docs/operations.md lists them).
struct HttpLimits {
  // Connections served at once (--http-max-connections), >= 1.
  size_t max_connections = 16;
  // Time for a request's line and headers to arrive, from their first byte.
  absl::Duration request_timeout = absl::Seconds(5);
  // Time a connection may wait for the first byte of its next request.
  absl::Duration idle_timeout = absl::Seconds(2);
  // Time for the client to take each part of a response.
  absl::Duration write_timeout = absl::Seconds(5);
  // Requests served on one connection, >= 1.
  size_t max_requests_per_connection = 100;
};

}  // namespace credledger::service
