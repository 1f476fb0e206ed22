// HttpTransport: the seam between KubeClient and the wire. CurlTransport (curl_transport.h)
// is the real implementation; tests substitute fakes to exercise retries and watches.
//
// A transport sends one request to the API server of its connection (adding TLS settings and
// credentials) and returns the HTTP status, body, Retry-After and Date. It does not interpret
// status codes (status_mapping.h does) and never retries.
//
// Thread-safety: implementations must allow concurrent RoundTrip calls.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "kubebridge/client/cancellation.h"

namespace credledger::kubebridge {

struct HttpRequest {
  // "GET", "POST", "PUT", "DELETE" or "PATCH".
  std::string method;
  // Absolute path with optional query, e.g. "/api/v1/namespaces/a/secrets?labelSelector=x".
  std::string path;
  // JSON body; sent with Content-Type `content_type` when non-empty.
  std::string body;
  // The media type of `body`: JSON, or a server-side apply configuration written as JSON.
  std::string content_type = "application/json";
  // Long-lived response (a watch): no total transfer timeout on the connection; the
  // transfer ends when the server closes it, after `timeout` as a client-side backstop, or
  // on cancellation.
  bool stream = false;
  // Whole-request limit (for streams: the backstop above); <= 0 means no limit.
  absl::Duration timeout = absl::Seconds(30);
};

struct HttpResponse {
  // HTTP status code, e.g. 200.
  int status_code = 0;
  // The body; empty for a 2xx response that was delivered line by line.
  std::string body;
  // The server's Retry-After, when it sent one.
  std::optional<absl::Duration> retry_after;
  // The server's Date header (its clock, whole seconds), when it sent one that parses.
  std::optional<absl::Time> date;
};

// Receives one line of a streamed 2xx body (without its line terminator; empty lines are
// skipped). Returning an error ends the transfer; RoundTrip then returns that error.
using LineHandler = std::function<absl::Status(absl::string_view line)>;

// "<METHOD> <path without query>", the prefix of every message about `request`.
std::string RequestLabel(const HttpRequest& request);

class HttpTransport {
 public:
  virtual ~HttpTransport() = default;

  // Sends `request` and waits for the complete response (or, with `on_line` set and a 2xx
  // status, feeds the body to `on_line` line by line as it arrives). Non-2xx responses are
  // returned, not turned into errors.
  // Errors (messages start with RequestLabel): kCancelled when `cancel` is or becomes
  // cancelled; kUnavailable for connection failures and timeouts; kResourceExhausted when the
  // body or one line exceeds the transport's limit; kFailedPrecondition for TLS and
  // credential configuration problems; whatever `on_line` returned when it stopped the
  // transfer.
  virtual absl::StatusOr<HttpResponse> RoundTrip(const HttpRequest& request, Cancellation& cancel,
                                                 const LineHandler* on_line) = 0;
};

}  // namespace credledger::kubebridge
