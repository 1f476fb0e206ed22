// OperationsHttpServer: the plain-HTTP endpoint of `credledger serve` for Prometheus and
// Kubernetes probes (docs/operations.md, "Metrics and health"):
//   GET /metrics  200 with the registry's exposition (text/plain; version=0.0.4)
//   GET /healthz  200 "ok" while the process serves
//   GET /readyz   200 "ok" when every readiness check passes, followed by one line per
//                 readiness notice ("<name>: <notice>"); otherwise 503 and
//                 "not ready: <name>: <reason>" on one line
// HEAD is answered like GET without a body; any other method on these paths is 405 with
// "Allow: GET, HEAD"; every other path is 404. It takes no input beyond the request line:
// bodies over 1 KiB are refused. Metric text is escaped by the registry and the readiness
// reason is made one printable line, so no byte of a request or of stored data can forge a
// line. It serves no secret (docs/operations.md lists every metric).
//
// Connections are bounded as BoundedHttpServer bounds them (docs/operations.md, "Limits of
// the HTTP endpoint"), so that slow or idle clients cannot keep the probes from answering.
//
// Thread-safety: Start and Stop from one thread; requests are served on the server's own
// pool (HttpLimits::max_connections + kSpareWorkers threads).
#pragma once

#include <memory>
#include <string>
#include <thread>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "common/metrics_registry.h"
#include "service/server/http_limits.h"
#include "service/server/readiness.h"

namespace httplib {
class Server;
}  // namespace httplib

namespace credledger::service {

// "host:port" or "[ipv6]:port" of --http-listen, split (common::SplitHostPort): host without
// brackets, port 0-65535 (0 lets the kernel choose).
struct HttpListenAddress {
  std::string host;
  int port = 0;
};

// Errors: kInvalidArgument naming --http-listen and quoting `address`, with the rule of
// common::SplitHostPort: a missing or malformed host (an IPv6 address without brackets, an
// unclosed bracket), a missing port, or one that is not a number in 0-65535.
absl::StatusOr<HttpListenAddress> ParseHttpListenAddress(absl::string_view address);

class OperationsHttpServer {
 public:
  // Binds `address` (ParseHttpListenAddress) and starts serving `registry` and `readiness`
  // (not owned; both must outlive the server) within `limits`.
  // Errors: ParseHttpListenAddress's; kUnavailable when the address cannot be bound;
  // kInternal when the server does not start.
  static absl::StatusOr<std::unique_ptr<OperationsHttpServer>> Start(
      absl::string_view address, const common::MetricsRegistry* registry,
      const Readiness* readiness, const HttpLimits& limits = {});
  // Stops (Stop).
  ~OperationsHttpServer();
  OperationsHttpServer(const OperationsHttpServer&) = delete;
  OperationsHttpServer& operator=(const OperationsHttpServer&) = delete;

  // The bound TCP port.
  int port() const { return port_; }

  // Closes the listening socket and waits for the requests being served (a connection
  // waiting for a request holds a worker for at most HttpLimits::idle_timeout). Idempotent.
  void Stop();

 private:
  OperationsHttpServer(const common::MetricsRegistry* registry, const Readiness* readiness,
                       const HttpLimits& limits);
  void InstallHandlers();

  const common::MetricsRegistry* registry_;
  const Readiness* readiness_;
  std::unique_ptr<httplib::Server> server_;
  std::thread thread_;
  int port_ = 0;
};

}  // namespace credledger::service
