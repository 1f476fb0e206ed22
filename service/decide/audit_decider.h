// The audit decider: an operator's adoption of a log the start-up checks refused becomes a
// LogAdopted event on stream `audit` (docs/audit.md, "Adopting a log"; docs/events.md,
// "LogAdopted").
//
// Thread-safety: pure functions.
#pragma once

#include <cstdint>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "credledger/v1/events.pb.h"

namespace credledger::service {

// The stream of decisions about the log itself.
inline constexpr char kAuditStream[] = "audit";

// The command name in the metadata of LogAdopted events.
inline constexpr char kAdoptLogCommand[] = "AdoptLog";

// Adopt the log as it stands: `adoption` is the event to record.
struct AdoptLog {
  v1::LogAdopted adoption;
};

// The service records the adoption itself at start-up: actor kServiceActor, no client
// request.
struct AuditCommandContext {
  std::string actor;
  std::string request_id = {};      // unused: the request id names the stream position
  std::string request_digest = {};  // the service's own command: none
};

// The fold of stream `audit`: the stream_version of its last event (-1 when none).
struct AuditState {
  int64_t stream_version = -1;
};

// Checks an adoption reason, `field` naming it in errors ("reason", "--reason"): 1-1024 bytes
// of UTF-8 text with no ASCII control characters, not only spaces. Errors: kInvalidArgument naming
// `field` and the rule.
absl::Status ValidateAdoptionReason(absl::string_view field, absl::string_view reason);
// Checks who adopts, `field` naming it in errors ("adopted_by", "--adopted-by"): 1-128 bytes
// of printable ASCII without spaces, as an actor. Errors: kInvalidArgument naming `field`.
absl::Status ValidateAdoptedBy(absl::string_view field, absl::string_view adopted_by);

// The LogAdopted event of `command`. Errors: kInvalidArgument when its reason or adopted_by
// break the rules above, it names no refusal, or head_chain_hash is not 32 bytes.
absl::StatusOr<v1::Event> DecideLogAdopted(const AdoptLog& command);

// The request id of the LogAdopted appended after the stream's last event at
// `stream_version` ("credledger:log-adopted/<stream_version + 1>"): a start-up retried after
// an unknown outcome finds its own event instead of adopting twice.
std::string LogAdoptedRequestId(int64_t stream_version);

}  // namespace credledger::service
