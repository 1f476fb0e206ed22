// Mapping of Kubernetes API outcomes to absl::Status (docs/design.md, "Client").
//
// Kubernetes reports failures as a `Status` object (kind "Status", with reason, message and
// code) in the response body and in watch ERROR events. The mapping uses the reason when it
// is a known one and the HTTP code otherwise:
//
//   NotFound (404)                          -> kNotFound
//   AlreadyExists (409)                     -> kAlreadyExists
//   Conflict (409, other reasons)           -> kAborted
//   Forbidden (403)                         -> kPermissionDenied
//   Unauthorized (401)                      -> kUnauthenticated
//   Invalid (422), BadRequest (400), NotAcceptable (406), RequestEntityTooLarge (413),
//   UnsupportedMediaType (415)              -> kInvalidArgument
//   Gone / Expired (410)                    -> kOutOfRange  (kResourceExpiredCode: the
//                                              resourceVersion or continue token is too old;
//                                              re-list)
//   MethodNotAllowed (405)                  -> kUnimplemented
//   TooManyRequests (429), InternalError, ServiceUnavailable, Timeout, ServerTimeout
//   (any 5xx), timeouts and connection errors -> kUnavailable (the only retried code)
//   anything else                           -> kUnknown
//
// Messages keep the server's reason and message behind the request, e.g.
//   POST /api/v1/namespaces/a/secrets: AlreadyExists: secrets "x" already exists
// Non-Status bodies contribute at most 200 printable characters.
//
// Thread-safety: stateless functions.
#pragma once

#include <string_view>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "nlohmann/json.hpp"

namespace credledger::kubebridge {

// The code for HTTP 410 / reason Expired or Gone: the requested resourceVersion is no
// longer available and the caller must list again.
inline constexpr absl::StatusCode kResourceExpiredCode = absl::StatusCode::kOutOfRange;

// True when `status` says the resourceVersion expired (see kResourceExpiredCode).
bool IsResourceExpired(const absl::Status& status);

// The absl code for an HTTP status `http_code` carrying Kubernetes reason `reason` (may be
// empty). Returns kOk for 2xx.
absl::StatusCode CodeForKubernetesError(int http_code, absl::string_view reason);

// Maps the response of request `what` ("VERB /path") with HTTP status `http_code` and body
// `body`. Returns OK for 2xx; otherwise the mapped error, message
// "<what>: <reason>: <message>" (or "<what>: HTTP <code>: <text>" without a reason).
absl::Status StatusFromHttpResponse(absl::string_view what, int http_code, absl::string_view body);

// Maps a Kubernetes Status object `status` (e.g. the object of a watch ERROR event) for
// request `what`, using its `code` field as the HTTP code (`fallback_http_code` when absent).
// Returns OK only when the object's status is "Success".
absl::Status StatusFromStatusObject(absl::string_view what, const nlohmann::json& status,
                                    int fallback_http_code);

// The message of `status` without text the server wrote: for an error mapped from an HTTP
// response (StatusFromHttpResponse, StatusFromStatusObject) "<what>: HTTP <code>" and the
// reason when it is one of the Kubernetes reasons listed above; otherwise (transport errors,
// our own messages) the message itself. Used wherever a message of a server credledger does
// not control (a registered cluster) is recorded or shown: such a server may echo a
// credential or inject line breaks (docs/connections.md,
// "Probes and the Reachable condition").
std::string ServerFreeMessage(const absl::Status& status);

// Maps a failed libcurl transfer of `what`: `curl_code` is the CURLcode, `detail` libcurl's
// error text (never contains headers). Timeouts, connection, TLS-handshake, send/receive
// errors -> kUnavailable; aborted by our progress callback -> kCancelled; certificate
// verification or bad local certificates/keys, malformed URLs and unsupported protocols ->
// kFailedPrecondition; anything else -> kUnknown. Message "<what>: <detail or curl text>".
absl::Status StatusFromCurlCode(absl::string_view what, int curl_code, absl::string_view detail);

}  // namespace credledger::kubebridge
