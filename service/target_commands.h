// Commands of the Target stream (domain/agent-credential-controller.md). Client commands come
// from the API; outcome commands come from the kube bridge and report what it did in the
// cluster (DESIGN section 4, intent/outcome). Plain structs, named as imperatives.
#pragma once

#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "absl/time/time.h"
#include "credledger/v1/events.pb.h"

namespace credledger::service {

// --- Client commands ---

// Registers a Target. `target_uid` is lowercase RFC 4122; the API edge generates one when
// the client gives none (`uid_given` false).
struct RegisterTarget {
  std::string target_uid;
  bool uid_given = false;
};
struct DeleteTarget {};
// Asks for a new credential answering `request_value`.
struct RequestRotation {
  std::string request_value;
};
struct Revoke {
  std::string reason;
};
struct LiftRevocation {};
// Confirms that a release with `revision` (a chart version ending in -<credentialTag>) rolled
// out on the Target.
struct ConfirmRollout {
  std::string revision;
};
// Starts a mint when one is needed: no current credential, an unanswered rotation request,
// or the rotation due time has passed. Issued by the bridge and the scheduler.
struct PlanCredential {};

// --- Outcome commands (actor "credledger") ---

struct RecordIdentityWritten {
  std::vector<std::string> writes;  // "created Kind/name" or "updated Kind/name"
};
struct RecordStaleCredentialsDeleted {
  std::string attempt_id;
  std::vector<v1::SecretRef> secrets;
  std::vector<std::string> secret_target_uids;
};
struct RecordSecretCreated {
  std::string attempt_id;
  v1::SecretRef secret;
  int64_t suffix = 0;
};
struct RecordCredentialIssued {
  std::string attempt_id;
  v1::SecretRef secret;
  std::string token_fingerprint;  // 16 hex characters of SHA-256 over the token
  absl::Time issued_at;
  absl::Time expires_at;
  bool adopted = false;
};
struct RecordMintFailed {
  std::string attempt_id;  // empty for an identity failure outside an attempt
  v1::MintStage stage = v1::MINT_STAGE_UNSPECIFIED;
  std::string message;
  std::optional<v1::SecretRef> deleted_secret;
};
struct RecordSecretDeleted {
  v1::SecretRef secret;
  v1::SecretDeletionReason reason = v1::SECRET_DELETION_REASON_UNSPECIFIED;
};
struct RecordSecretDeletedExternally {
  v1::SecretRef secret;
  absl::Time observed_at;
};
struct RecordTargetFinalized {
  std::vector<std::string> deleted_objects;  // "Kind/name"
};

using TargetCommand =
    std::variant<RegisterTarget, DeleteTarget, RequestRotation, Revoke, LiftRevocation,
                 ConfirmRollout, PlanCredential, RecordIdentityWritten,
                 RecordStaleCredentialsDeleted, RecordSecretCreated, RecordCredentialIssued,
                 RecordMintFailed, RecordSecretDeleted, RecordSecretDeletedExternally,
                 RecordTargetFinalized>;

// What every command carries besides its own fields: the Target it addresses, when and by
// whom it was issued, and the service configuration in force.
struct CommandContext {
  std::string target_namespace;
  std::string target_name;
  absl::Time now;
  std::string actor;
  std::string request_id;
  v1::ServiceConfigured service;
};

}  // namespace credledger::service
