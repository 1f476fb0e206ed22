// CurlTransport: HttpTransport over libcurl 7.88 (docs/design.md, "Client").
//
// - TLS: the cluster CA, client certificate and key are handed to libcurl in memory
//   (CURLOPT_CAINFO_BLOB / SSLCERT_BLOB / SSLKEY_BLOB; no temp files). With a CA given, only
//   that CA is trusted. Redirects are never followed (they could carry the token elsewhere).
// - Auth: "Authorization: Bearer <token>" from a TokenSource (token file re-read on change).
//   CURLOPT_VERBOSE is never enabled: it would print the token.
// - Interruption: every transfer runs on a libcurl multi handle whose poll is woken by
//   curl_multi_wakeup when the request's Cancellation fires, and CURLOPT_XFERINFOFUNCTION
//   aborts the transfer once it sees the flag, so a blocked watch ends promptly (well under a
//   second) on shutdown.
// - Streams: CURLOPT_TIMEOUT=0, TCP keep-alive, a client-side backstop deadline; the write
//   callback splits the body into lines for the LineHandler.
// - HTTP/1.1; idle (multi, easy) handle pairs are pooled so connections are reused.
//
// Thread-safety: RoundTrip may be called concurrently (each call uses its own handles).
// REQUIRES: no RoundTrip is running when the transport is destroyed.
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "kubebridge/client/connection.h"
#include "kubebridge/client/http_transport.h"
#include "kubebridge/client/token_source.h"

namespace credledger::kubebridge {

struct CurlTransportOptions {
  // TCP connect plus TLS handshake limit.
  absl::Duration connect_timeout = absl::Seconds(10);
  // Largest non-streamed response body accepted (bytes).
  size_t max_body_bytes = size_t{64} << 20;
  // Largest single line of a streamed body (bytes).
  size_t max_line_bytes = size_t{16} << 20;
  // Idle handle pairs kept for reuse, each with its open connection: as many as the requests
  // a client runs at once (the mirror bridge writes several namespaces at once), so that the
  // next burst reuses the connections instead of making new ones.
  int max_idle_handles = 16;
  std::string user_agent = "credledger-kubebridge";
};

class CurlTransport final : public HttpTransport {
 public:
  // Builds a transport for `config`.
  // Errors: kInvalidArgument when config.server is empty; kFailedPrecondition when libcurl
  // cannot be initialised.
  static absl::StatusOr<std::unique_ptr<CurlTransport>> New(ConnectionConfig config,
                                                            CurlTransportOptions options = {});
  ~CurlTransport() override;
  CurlTransport(const CurlTransport&) = delete;
  CurlTransport& operator=(const CurlTransport&) = delete;

  absl::StatusOr<HttpResponse> RoundTrip(const HttpRequest& request, Cancellation& cancel,
                                         const LineHandler* on_line) override;

 private:
  struct Handles;
  CurlTransport(ConnectionConfig config, CurlTransportOptions options);
  std::unique_ptr<Handles> AcquireHandles();
  void ReleaseHandles(std::unique_ptr<Handles> handles);

  const ConnectionConfig config_;
  const CurlTransportOptions options_;
  TokenSource token_source_;
  absl::Mutex pool_mu_;
  std::vector<std::unique_ptr<Handles>> idle_ ABSL_GUARDED_BY(pool_mu_);
};

}  // namespace credledger::kubebridge
