// Commands of the Target stream (docs/credentials.md, "Lifecycle"). Client commands come
// from the API; outcome commands come from the kube bridge and report what it did in the
// cluster (docs/design.md, "Intent and outcome"). Plain structs, named as imperatives.
#pragma once

#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "absl/time/time.h"
#include "credledger/v1/events.pb.h"
#include "kubebridge/model/outcomes.h"

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
// Outcome commands come from the kube bridge, which declares them (kubebridge/model/outcomes.h).
using kubebridge::PlanCredential;
using kubebridge::RecordCredentialIssued;
using kubebridge::RecordIdentityWritten;
using kubebridge::RecordMintFailed;
using kubebridge::RecordSecretCreated;
using kubebridge::RecordSecretDeleted;
using kubebridge::RecordSecretDeletedExternally;
using kubebridge::RecordStaleCredentialsDeleted;
using kubebridge::RecordTargetFinalized;

using TargetCommand =
    std::variant<RegisterTarget, DeleteTarget, RequestRotation, Revoke, LiftRevocation,
                 ConfirmRollout, PlanCredential, RecordIdentityWritten,
                 RecordStaleCredentialsDeleted, RecordSecretCreated, RecordCredentialIssued,
                 RecordMintFailed, RecordSecretDeleted, RecordSecretDeletedExternally,
                 RecordTargetFinalized>;

// The command's type name ("RegisterTarget", "RecordSecretCreated", ...), recorded in each
// event's metadata.
std::string CommandName(const TargetCommand& command);

// What every command carries besides its own fields: the Target it addresses, when and by
// whom it was issued, and the service configuration in force.
// Every field is defaulted, so an initializer names only what it sets.
struct CommandContext {
  std::string target_namespace = {};
  std::string target_name = {};
  absl::Time now = {};
  std::string actor = {};
  std::string request_id = {};
  v1::ServiceConfigured service = {};
  // RequestDigest of the client's request (service/bus/prior_request.h); empty for the service's
  // own commands.
  std::string request_digest = {};
};

}  // namespace credledger::service
