#include "service/grpc/access_log.h"

#include <array>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/types/span.h"

namespace credledger::service {
namespace {

// `text` cut to at most `max_bytes` bytes plus "...", at a UTF-8 character boundary.
std::string CutForAccessLog(absl::string_view text, size_t max_bytes) {
  if (text.size() <= max_bytes) return std::string(text);
  size_t end = max_bytes;
  while (end > 0 && (static_cast<unsigned char>(text[end]) & 0xc0) == 0x80) --end;
  return absl::StrCat(text.substr(0, end), "...");
}

// The `error` of a failed call: its status message, or when that is empty (gRPC answers a
// method the server does not serve with UNIMPLEMENTED and no message) what the code says.
std::string LoggedError(const CallRecord& call) {
  if (!call.error.empty()) return CutForAccessLog(call.error, kMaxLoggedErrorBytes);
  if (call.code == absl::StatusCode::kUnimplemented) return std::string(kUnservedRpcError);
  if (call.unparsed_request) return std::string(kUnparsedRequestError);
  return std::string(kNoMessageError);
}

}  // namespace

common::LogLevel AccessLogLevel(absl::StatusCode code) {
  switch (code) {
    case absl::StatusCode::kInternal:
    case absl::StatusCode::kUnknown:
    case absl::StatusCode::kDataLoss:
      return common::LogLevel::kError;
    case absl::StatusCode::kUnavailable:
      return common::LogLevel::kWarning;
    default:
      return common::LogLevel::kInfo;
  }
}

common::LogLevel CallLogLevel(const CallRecord& call) {
  return call.unparsed_request && call.code != absl::StatusCode::kOk ? common::LogLevel::kWarning
                                                                     : AccessLogLevel(call.code);
}

bool IsRefusal(absl::StatusCode code) {
  return code == absl::StatusCode::kPermissionDenied || code == absl::StatusCode::kUnauthenticated;
}

std::string PeerAddress(absl::string_view peer) {
  if (!absl::StartsWith(peer, "ipv4:") && !absl::StartsWith(peer, "ipv6:")) {
    return std::string(peer);
  }
  const size_t colon = peer.rfind(':');
  const size_t bracket = peer.rfind(']');
  if (colon <= 4 || (bracket != absl::string_view::npos && colon < bracket)) {
    return std::string(peer);
  }
  return std::string(peer.substr(0, colon));
}

void LogCall(const CallRecord& call) {
  std::array<common::LogField, 8> fields;
  size_t count = 0;
  fields[count++] = {"rpc", call.rpc};
  fields[count++] = {"request_id", call.request_id};
  if (!call.command_request_id.empty()) {
    fields[count++] = {"command_request_id",
                       CutForAccessLog(call.command_request_id, kMaxLoggedCommandRequestIdBytes)};
  }
  fields[count++] = {"peer", call.peer};
  fields[count++] = {"identity", call.identity};
  fields[count++] = {"code", absl::StatusCodeToString(call.code)};
  fields[count++] = {"duration_ms",
                     absl::StrFormat("%.3f", absl::ToDoubleMilliseconds(call.duration))};
  if (call.code != absl::StatusCode::kOk) {
    fields[count++] = {"error", LoggedError(call)};
  }
  common::LogFields(CallLogLevel(call), kAccessLogMessage,
                    absl::MakeConstSpan(fields.data(), count));
}

}  // namespace credledger::service
