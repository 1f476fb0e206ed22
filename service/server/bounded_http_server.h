// BoundedHttpServer: an httplib::Server that a few slow or idle clients cannot take over
// (docs/operations.md, "Limits of the HTTP endpoint"). cpp-httplib 0.11 serves each
// connection on a worker of a fixed pool and restarts its read timeout at every byte, so a
// client that sends its request head a byte at a time holds a worker for as long as it
// likes. This server replaces the per-connection loop:
//   - at most `max_connections` connections are served at once; a further one is answered
//     503 and closed at once, without a byte of it being read;
//   - its pool has max_connections + kSpareWorkers threads, so that refusing never waits;
//   - a request's line and headers must arrive whole within `request_timeout` of their first
//     byte; a connection waiting for a request's first byte (a new one, or one kept alive)
//     is closed after `idle_timeout`; a connection serves at most
//     `max_requests_per_connection` requests;
//   - a response that the client does not read within `write_timeout` is abandoned.
// Everything else (routing, handlers, bodies) is httplib's.
//
// Thread-safety: as httplib::Server's.
#pragma once

#include <httplib.h>

#include <atomic>
#include <cstddef>

#include "service/server/http_limits.h"

namespace credledger::service {

class BoundedHttpServer final : public httplib::Server {
 public:
  // REQUIRES: limits.max_connections >= 1 and limits.max_requests_per_connection >= 1.
  explicit BoundedHttpServer(HttpLimits limits);

 private:
  // Serves (or refuses) one accepted connection, then closes it; true when its last request
  // was served.
  bool process_and_close_socket(socket_t sock) override;

  const HttpLimits limits_;
  std::atomic<size_t> connections_{0};
};

}  // namespace credledger::service
