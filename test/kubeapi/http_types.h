// The HTTP request and response shapes the request handlers use, free of cpp-httplib types
// (api_server.cc converts at the boundary).
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "nlohmann/json.hpp"

namespace credledger::kubeapi {

// The client certificate of a request's TLS connection (api_server.cc reads it from
// OpenSSL after the handshake).
struct PeerCertificate {
  // True when it chains to the server's client CA, is valid now and allows clientAuth.
  bool verified = false;
  std::string common_name;                 // subject CN ("" when absent)
  std::vector<std::string> organizations;  // subject O values, in order
};

struct HttpRequest {
  std::string method;  // "GET", "POST", ...
  std::string path;    // without the query
  std::multimap<std::string, std::string> params;  // decoded query parameters
  std::string authorization;                       // the Authorization header
  std::string content_type;
  std::string accept;
  std::string user_agent;  // names the manager of writes without fieldManager
  std::string body;
  int socket_fd = -1;  // the client connection, for noticing a watcher that went away
  std::optional<PeerCertificate> peer_certificate;  // nullopt: the client presented none
};

// A long-running response body (watch streams). The server calls Pump repeatedly on one
// worker thread until it returns something other than kContinue.
class StreamBody {
 public:
  // kDone ends the chunked body normally; kClientGone and kCut close the connection without
  // ending it (kCut: on purpose, a fault_injector.h drop).
  enum class Step { kContinue, kDone, kClientGone, kCut };
  virtual ~StreamBody() = default;
  // Waits (bounded, well under a second) for something to send and passes each piece to
  // `write`, which returns false when the client connection failed.
  virtual Step Pump(const std::function<bool(absl::string_view)>& write) = 0;
};

struct HttpResponse {
  int status = 200;
  std::string content_type = "application/json";
  std::string body;
  std::vector<std::pair<std::string, std::string>> headers;
  std::shared_ptr<StreamBody> stream;  // when set, `body` is ignored and this is streamed
};

// True when the peer of connection `socket_fd` has closed or reset it; false while it is
// open, and always for -1 (no connection). Does not block.
bool PeerClosed(int socket_fd);

// A JSON response with `code`.
HttpResponse JsonResponse(int code, const nlohmann::json& body);

// The Kubernetes Status response for a non-OK `status` (see kube_status.h).
HttpResponse ErrorResponse(const absl::Status& status);

}  // namespace credledger::kubeapi
