// The access log: one JSON line per gRPC call, written through common::Log when the call
// ends (docs/operations.md, "Logs" and "Access log"). For example
//   {"time":"2026-11-29T12:00:00.123456Z","level":"info","msg":"rpc",
//    "rpc":"/credledger.v1.TargetService/Revoke","request_id":"4f6c0e1d9a2b3c7e",
//    "command_request_id":"op-1","peer":"ipv4:127.0.0.1:50312","identity":"alice",
//    "code":"OK","duration_ms":"0.412"}
// Every value is a JSON string. No token, key, metadata value other than the call's
// x-request-id, or request field other than `request_id` is ever logged.
//
// Thread-safety: pure functions (Log serializes lines).
#pragma once

#include <cstddef>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "common/log.h"

namespace credledger::service {

// The `msg` of every access-log line.
inline constexpr char kAccessLogMessage[] = "rpc";
// Longest `error` and `command_request_id` logged, in bytes; longer ones are cut (at a UTF-8
// character boundary) and end in "...".
inline constexpr size_t kMaxLoggedErrorBytes = 512;
inline constexpr size_t kMaxLoggedCommandRequestIdBytes = 128;

// The `error` logged for a failed call whose status has no message: UNIMPLEMENTED (gRPC's
// answer to a method this server does not serve), any other code.
inline constexpr char kUnservedRpcError[] = "no such RPC on this server";
inline constexpr char kNoMessageError[] = "(no message)";

// What the access log records of one call.
struct CallRecord {
  std::string rpc;                 // "/<package>.<Service>/<Method>"
  std::string request_id;          // the call's id (request_id.h)
  std::string command_request_id;  // the request's `request_id` field; empty: none
  std::string peer;                // gRPC peer address, e.g. "ipv4:127.0.0.1:50312"
  std::string identity;            // the caller (caller_identity.h)
  absl::StatusCode code = absl::StatusCode::kOk;
  std::string error;        // the status message; ignored when code is OK
  absl::Duration duration;  // from the start of the call to its status
  // gRPC could not parse the request message (it then answers INTERNAL).
  bool unparsed_request = false;
};

// The `error` logged for a call whose request did not parse and whose status has no message.
inline constexpr char kUnparsedRequestError[] = "the request message does not parse";

// Whether `code` is a refusal by the authorization (PERMISSION_DENIED, UNAUTHENTICATED):
// such calls are counted per peer address and interval and only the first of each is
// written in full (docs/operations.md, "Repeated lines").
bool IsRefusal(absl::StatusCode code);

// `peer` (gRPC's peer address) without its port: "ipv4:10.1.2.3:50312" -> "ipv4:10.1.2.3",
// "ipv6:[::1]:50312" -> "ipv6:[::1]"; "unix:..." and anything without a port unchanged.
std::string PeerAddress(absl::string_view peer);

// The level of a call that ended with `code`: kError for INTERNAL, UNKNOWN and DATA_LOSS (a
// fault of the service or of its stored data); kWarning for UNAVAILABLE (the log cannot be
// written now, or the server is shutting down; the client retries); kInfo for every other
// code, OK and the client's own errors (bad input, not found, refused, cancelled).
common::LogLevel AccessLogLevel(absl::StatusCode code);

// The level of the line of `call`: AccessLogLevel of its code, but kWarning for a request
// that did not parse (the client's fault, though gRPC answers it INTERNAL).
common::LogLevel CallLogLevel(const CallRecord& call);

// Writes the line of `call`: fields rpc, request_id, command_request_id (only when set), peer,
// identity, code (canonical name, e.g. "PERMISSION_DENIED"), duration_ms (milliseconds with
// three decimals) and, when the code is not OK, error (the message, or kUnservedRpcError /
// kUnparsedRequestError / kNoMessageError when it is empty), at CallLogLevel.
void LogCall(const CallRecord& call);

}  // namespace credledger::service
