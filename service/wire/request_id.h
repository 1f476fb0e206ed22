// Call request ids: the id that ties one gRPC call to the server's access-log line
// (docs/api.md, "Call request ids"; docs/operations.md, "Logs" and "Access log"). The
// client sends it as request metadata `x-request-id`; the server keeps a valid one, replaces
// a missing or invalid one with a generated id, and sends the id back in the initial and
// trailing metadata of the answer. Distinct from a mutating RPC's `request_id` field (the
// idempotency key recorded in the event log): one command may be sent in several calls.
//
// Thread-safety: safe from any thread.
#pragma once

#include <cstddef>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"

namespace credledger::service {

// The metadata key, in request and answer.
inline constexpr char kRequestIdMetadataKey[] = "x-request-id";
// Longest id kept, in bytes.
inline constexpr size_t kMaxCallRequestIdBytes = 128;

// Whether the server keeps `id` as sent: 1 to kMaxCallRequestIdBytes bytes of printable ASCII
// without spaces (0x21-0x7e), the rule of validation.h ValidateToken.
bool IsValidCallRequestId(absl::string_view id);

// A new id: 16 lowercase hex digits (64 random bits). Unique enough to find one call in a
// log; not a secret.
std::string NewCallRequestId();

// `status` with " (call request id <id>)" appended to its message, so that an operator can find
// the call's access-log line; OK unchanged.
absl::Status WithCallRequestId(const absl::Status& status, absl::string_view id);

}  // namespace credledger::service
