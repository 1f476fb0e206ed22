// The pure fold of a Target stream into its credential state (docs/credentials.md,
// "Lifecycle"; docs/events.md, "Target state and the condition").
//
// EvolveTarget applies one event; it reads no clock and does no I/O: the event's recorded
// time and the service configuration in force arrive as arguments. The same fold serves the
// deciders (state of one stream inside the writer) and the fleet projection.
#pragma once

#include <string>

#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "credledger/v1/events.pb.h"
#include "credledger/v1/state.pb.h"

namespace credledger::projections {

// Condition type on every Target (docs/events.md, "Target state and the condition").
inline constexpr char kAgentCredentialReady[] = "AgentCredentialReady";
// Condition reasons, exact strings (docs/events.md, "Target state and the condition").
// MintPending holds between a mint decision and its outcome, since credledger mints
// asynchronously and no other reason applies then.
inline constexpr char kReasonIssued[] = "Issued";
inline constexpr char kReasonDisabled[] = "Disabled";
inline constexpr char kReasonRevoked[] = "Revoked";
inline constexpr char kReasonMintFailed[] = "MintFailed";
inline constexpr char kReasonMintPending[] = "MintPending";
// credledger's own reason while a Target is being deleted: the Target stays visible until it
// is finalized.
inline constexpr char kReasonDeleting[] = "Deleting";

// Where an event sits in the log.
struct EventPosition {
  int64_t seq = 0;
  int64_t stream_version = 0;
  absl::Time recorded_at;
};

// "target/<namespace>/<name>".
std::string TargetStream(absl::string_view target_namespace, absl::string_view name);

// Folds `event` (one of the target-stream events; others are ignored) into `state`, then
// recomputes the AgentCredentialReady condition as of `at.recorded_at` under `service`.
void EvolveTarget(v1::TargetState& state, const v1::Event& event, const EventPosition& at,
                  const v1::ServiceConfigured& service);

// Recomputes AgentCredentialReady with precedence Revoked > Disabled > MintFailed > Issued
// (then Unknown/MintPending); a Target being deleted is False/Deleting and a finalized one
// has no condition. last_transition_time becomes `at` only when the status changes.
void UpdateCondition(v1::TargetState& state, absl::Time at, const v1::ServiceConfigured& service);

// The current credential: the newest (highest suffix) issued credential; nullptr when none.
const v1::CredentialRecord* CurrentCredential(const v1::TargetState& state);

// Whether a credential of the current incarnation answered rotation request `value`.
bool RequestAnswered(const v1::TargetState& state, absl::string_view value);

// credentialTag: first 10 lowercase hex characters of SHA-256 over the Secret uid
// (docs/credentials.md, "Credential tag and connection hash").
std::string CredentialTag(absl::string_view secret_uid);

// Connection hash: first 10 lowercase hex characters of SHA-256 over the agent API server URL,
// a newline, and the CA bundle bytes (docs/credentials.md, "Credential tag and connection
// hash").
std::string ConnectionHash(absl::string_view apiserver_url, absl::string_view ca_bundle);

// How long the next mint waits after the last of `consecutive_failures` failures in a row:
// 10 s, doubling per failure, at most 10 minutes; zero without failures. Keeps a mint that
// keeps failing (a refused TokenRequest, a name taken by a foreign Secret) from churning
// Secrets and the log.
absl::Duration MintRetryDelay(int64_t consecutive_failures);

// issued_at + 80% of (expires_at - issued_at), to the second's fraction: less than 20% of the
// lifetime left makes a mint due (docs/credentials.md, "Rotation").
absl::Time RotationDueAt(absl::Time issued_at, absl::Time expires_at);

}  // namespace credledger::projections
