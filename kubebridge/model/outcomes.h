// What the kube bridge reports back about the cluster (docs/design.md, "Intent and outcome"):
// each cluster write as an outcome, each deletion it observes but did not make, and its
// request to plan a mint. The bridge declares these and the OutcomeSink it reports through;
// service/ implements the sink by turning them into Target commands.
//
// Thread-safety: plain values; OutcomeSink implementations are thread-safe.
#pragma once

#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "credledger/v1/events.pb.h"
#include "credledger/v1/state.pb.h"

namespace credledger::kubebridge {

// Starts a mint when one is needed: no current credential, an unanswered rotation request,
// or the rotation due time has passed.
struct PlanCredential {};
// The bridge created or updated identity objects: "created Kind/name", "updated Kind/name".
struct RecordIdentityWritten {
  std::vector<std::string> writes;
};
// Before minting (or while revoked), the bridge deleted Secrets carrying the Target's name
// label but another or no target-uid label, or Secrets the log did not know.
struct RecordStaleCredentialsDeleted {
  std::string attempt_id;
  std::vector<v1::SecretRef> secrets;
  std::vector<std::string> secret_target_uids;  // the uid label of each, "" when missing
};
// The bridge created (or, after a restart, found) the empty Secret of an attempt.
struct RecordSecretCreated {
  std::string attempt_id;
  v1::SecretRef secret;
  int64_t suffix = 0;
};
// The token is stored in the Secret.
struct RecordCredentialIssued {
  std::string attempt_id;
  v1::SecretRef secret;
  std::string token_fingerprint;  // first 16 hex characters of SHA-256 over the token
  absl::Time issued_at;           // when the TokenRequest answered
  absl::Time expires_at;          // the TokenRequest's status.expirationTimestamp
  bool adopted = false;           // found in the Secret after a restart
};
// Creating the identity or the credential failed; a Secret the attempt created was deleted
// again (`deleted_secret`).
struct RecordMintFailed {
  std::string attempt_id;  // empty for an identity failure outside an attempt
  v1::MintStage stage = v1::MINT_STAGE_UNSPECIFIED;
  std::string message;
  std::optional<v1::SecretRef> deleted_secret;
};
// The bridge deleted a credential Secret.
struct RecordSecretDeleted {
  v1::SecretRef secret;
  v1::SecretDeletionReason reason = v1::SECRET_DELETION_REASON_UNSPECIFIED;
};
// A credential Secret the log knows is gone and the bridge did not delete it.
struct RecordSecretDeletedExternally {
  v1::SecretRef secret;
  absl::Time observed_at;  // the cluster's deletionTimestamp, else when the bridge saw it
};
// Every object of a Target being deleted is gone: "Kind/name" in deletion order.
struct RecordTargetFinalized {
  std::vector<std::string> deleted_objects;
};

using Outcome =
    std::variant<PlanCredential, RecordIdentityWritten, RecordStaleCredentialsDeleted,
                 RecordSecretCreated, RecordCredentialIssued, RecordMintFailed, RecordSecretDeleted,
                 RecordSecretDeletedExternally, RecordTargetFinalized>;

// Request ids of the service's own commands start with this prefix; client request ids may
// not, so the two can never collide.
inline constexpr char kServiceRequestIdPrefix[] = "credledger:";

// The request id of bridge step `step` for the incarnation of `state`:
// "credledger:bridge/<target uid>/<incarnation version>/<step>".
std::string OutcomeRequestId(const v1::TargetState& state, absl::string_view step);

// Where the bridge reports outcomes. Implemented by service/.
class OutcomeSink {
 public:
  virtual ~OutcomeSink() = default;
  // Records `outcome` for the Target `target_namespace`/`name` under `request_id` (derived
  // by the bridge from the incarnation and the step, see OutcomeRequestId, so a step
  // repeated after a crash appends nothing twice).
  // Returns the Target's state after it.
  // Errors: kNotFound when the Target is unknown or finalized; kFailedPrecondition when the
  // outcome does not fit the Target's state (finalizing a Target not being deleted);
  // kUnavailable when the log cannot be written.
  virtual absl::StatusOr<v1::TargetState> Record(const std::string& target_namespace,
                                                 const std::string& name, const Outcome& outcome,
                                                 const std::string& request_id) = 0;
  // The Target's current state, read from the log (never from a lagging read model).
  // Errors: kDataLoss for undecodable events; log read errors.
  virtual absl::StatusOr<v1::TargetState> Load(const std::string& target_namespace,
                                               const std::string& name) = 0;
  // The service configuration in force (credentials enabled, token TTL, connection hash).
  virtual v1::ServiceConfigured Service() = 0;
};

}  // namespace credledger::kubebridge
