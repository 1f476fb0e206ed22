#include "kubebridge/client/status_mapping.h"

#include <curl/curl.h>

#include <string>

#include "absl/strings/cord.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "kubebridge/client/json_util.h"

namespace credledger::kubebridge {
namespace {

struct ReasonCode {
  absl::string_view reason;
  absl::StatusCode code;
};

constexpr ReasonCode kReasons[] = {
    {"NotFound", absl::StatusCode::kNotFound},
    {"AlreadyExists", absl::StatusCode::kAlreadyExists},
    {"Conflict", absl::StatusCode::kAborted},
    {"Forbidden", absl::StatusCode::kPermissionDenied},
    {"Unauthorized", absl::StatusCode::kUnauthenticated},
    {"Invalid", absl::StatusCode::kInvalidArgument},
    {"BadRequest", absl::StatusCode::kInvalidArgument},
    {"NotAcceptable", absl::StatusCode::kInvalidArgument},
    {"RequestEntityTooLarge", absl::StatusCode::kInvalidArgument},
    {"UnsupportedMediaType", absl::StatusCode::kInvalidArgument},
    {"Gone", kResourceExpiredCode},
    {"Expired", kResourceExpiredCode},
    {"MethodNotAllowed", absl::StatusCode::kUnimplemented},
    {"TooManyRequests", absl::StatusCode::kUnavailable},
    {"InternalError", absl::StatusCode::kUnavailable},
    {"ServiceUnavailable", absl::StatusCode::kUnavailable},
    {"Timeout", absl::StatusCode::kUnavailable},
    {"ServerTimeout", absl::StatusCode::kUnavailable},
};

absl::StatusCode CodeForHttp(int http_code) {
  if (http_code >= 200 && http_code < 300) return absl::StatusCode::kOk;
  if (http_code >= 500 && http_code < 600) return absl::StatusCode::kUnavailable;
  switch (http_code) {
    case 400:
    case 406:
    case 413:
    case 415:
    case 422:
      return absl::StatusCode::kInvalidArgument;
    case 401:
      return absl::StatusCode::kUnauthenticated;
    case 403:
      return absl::StatusCode::kPermissionDenied;
    case 404:
      return absl::StatusCode::kNotFound;
    case 405:
      return absl::StatusCode::kUnimplemented;
    case 409:
      return absl::StatusCode::kAborted;
    case 410:
      return kResourceExpiredCode;
    case 429:
      return absl::StatusCode::kUnavailable;
    default:
      return absl::StatusCode::kUnknown;
  }
}

// The first 200 bytes of `body` with anything but printable ASCII replaced by '?'.
std::string Snippet(absl::string_view body) {
  std::string out(body.substr(0, 200));
  for (char& c : out) {
    if (c < 0x20 || c > 0x7e) c = '?';
  }
  return out;
}

}  // namespace

bool IsResourceExpired(const absl::Status& status) { return status.code() == kResourceExpiredCode; }

absl::StatusCode CodeForKubernetesError(int http_code, absl::string_view reason) {
  if (http_code >= 200 && http_code < 300) return absl::StatusCode::kOk;
  for (const ReasonCode& entry : kReasons) {
    if (entry.reason == reason) return entry.code;
  }
  return CodeForHttp(http_code);
}

namespace {

// Payload type URL holding ServerFreeMessage's text for response-mapped errors.
constexpr char kServerFreePayload[] = "type.credledger.dev/server-free-message";

// Attaches the server-free form of a response-mapped error (ServerFreeMessage).
absl::Status WithServerFreeMessage(absl::Status status, absl::string_view what, int http_code,
                                   absl::string_view reason) {
  bool known = false;
  for (const auto& entry : kReasons) known = known || entry.reason == reason;
  status.SetPayload(kServerFreePayload,
                    absl::Cord(absl::StrCat(what, ": HTTP ", http_code,
                                            known ? absl::StrCat(" ", reason) : "")));
  return status;
}

}  // namespace

std::string ServerFreeMessage(const absl::Status& status) {
  const auto payload = status.GetPayload(kServerFreePayload);
  if (payload.has_value()) return std::string(*payload);
  return std::string(status.message());
}

absl::Status StatusFromStatusObject(absl::string_view what, const nlohmann::json& status,
                                    int fallback_http_code) {
  if (!status.is_object()) {
    return WithServerFreeMessage(absl::Status(CodeForHttp(fallback_http_code),
                                              absl::StrCat(what, ": HTTP ", fallback_http_code)),
                                 what, fallback_http_code, "");
  }
  if (StringAt(status, {"status"}) == "Success") return absl::OkStatus();
  int http_code = fallback_http_code;
  auto code_it = status.find("code");
  if (code_it != status.end() && code_it->is_number_integer()) {
    http_code = code_it->get<int>();
  }
  std::string reason = StringAt(status, {"reason"});
  std::string message = StringAt(status, {"message"});
  absl::StatusCode code = CodeForKubernetesError(http_code, reason);
  if (code == absl::StatusCode::kOk) code = absl::StatusCode::kUnknown;
  std::string head = reason.empty() ? absl::StrCat("HTTP ", http_code) : reason;
  return WithServerFreeMessage(
      absl::Status(code, message.empty() ? absl::StrCat(what, ": ", head)
                                         : absl::StrCat(what, ": ", head, ": ", message)),
      what, http_code, reason);
}

absl::Status StatusFromHttpResponse(absl::string_view what, int http_code, absl::string_view body) {
  if (http_code >= 200 && http_code < 300) return absl::OkStatus();
  nlohmann::json parsed =
      nlohmann::json::parse(body.begin(), body.end(), nullptr, /*allow_exceptions=*/false);
  if (parsed.is_object() && StringAt(parsed, {"kind"}) == "Status") {
    absl::Status status = StatusFromStatusObject(what, parsed, http_code);
    // A "Success" Status with an error HTTP code still is an error.
    if (!status.ok()) return status;
  }
  std::string text = Snippet(body);
  return WithServerFreeMessage(
      absl::Status(CodeForHttp(http_code),
                   text.empty() ? absl::StrCat(what, ": HTTP ", http_code)
                                : absl::StrCat(what, ": HTTP ", http_code, ": ", text)),
      what, http_code, "");
}

absl::Status StatusFromCurlCode(absl::string_view what, int curl_code, absl::string_view detail) {
  std::string text(detail.empty()
                       ? absl::string_view(curl_easy_strerror(static_cast<CURLcode>(curl_code)))
                       : detail);
  std::string message = absl::StrCat(what, ": ", text);
  switch (static_cast<CURLcode>(curl_code)) {
    case CURLE_OK:
      return absl::OkStatus();
    case CURLE_COULDNT_RESOLVE_PROXY:
    case CURLE_COULDNT_RESOLVE_HOST:
    case CURLE_COULDNT_CONNECT:
    case CURLE_OPERATION_TIMEDOUT:
    case CURLE_SSL_CONNECT_ERROR:
    case CURLE_SEND_ERROR:
    case CURLE_RECV_ERROR:
    case CURLE_GOT_NOTHING:
    case CURLE_PARTIAL_FILE:
    case CURLE_HTTP2:
    case CURLE_HTTP2_STREAM:
      return absl::UnavailableError(message);
    case CURLE_ABORTED_BY_CALLBACK:
      return absl::CancelledError(message);
    case CURLE_PEER_FAILED_VERIFICATION:
    case CURLE_SSL_CACERT_BADFILE:
    case CURLE_SSL_CERTPROBLEM:
    case CURLE_SSL_CIPHER:
    case CURLE_URL_MALFORMAT:
    case CURLE_UNSUPPORTED_PROTOCOL:
      return absl::FailedPreconditionError(message);
    default:
      return absl::UnknownError(message);
  }
}

}  // namespace credledger::kubebridge
