// StateDiff: what changed between two points of the log (docs/forensics.md, "What changed
// between 10:00 and 10:05?"). Pure: no I/O.
//
// Targets and conditions are compared state to state (the projections as of `from` and as
// of `to`): a Target registered at `to` but not at `from` (or under another uid) was added,
// one registered at `from` but finalized or unknown at `to` was removed, and a condition
// (AgentCredentialReady, Reporting, PreflightReady, ReleasesReady) whose status or reason
// differs changed. An incarnation is its (target_uid, incarnation_version): a Target
// registered again with the same uid after finalization was removed and added too. Conditions
// of a finalized Target count as absent (""). Credentials and revocations are taken from the
// events between the two points, so that a credential issued and deleted in between still
// shows: CredentialIssued, TargetRevoked and RevocationLifted give one change each;
// CredentialSecretDeleted, CredentialSecretDeletedExternally and StaleCredentialsDeleted give
// one KIND_CREDENTIAL_DELETED per Secret (a Secret a failed mint deleted again held no token
// and is left out). The service configuration is fleet-wide and shows under any filter.
//
// Thread-safety: not thread-safe.
#pragma once

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "credledger/v1/state.pb.h"
#include "projections/credential_projection.h"
#include "projections/status_projection.h"
#include "store/event_store.h"

namespace credledger::projections {

class StateDiff {
 public:
  // Only the Target `target_namespace`/`name` when both are non-empty; only the namespace
  // when just `target_namespace` is; the whole fleet when both are empty.
  StateDiff(std::string target_namespace, std::string name);

  // Folds one event after `from` and up to `to`, in seq order; keeps credential and
  // revocation changes of the selected Targets. Errors: kDataLoss when a target-stream event
  // does not decode.
  absl::Status ApplyBetween(const store::RecordedEvent& event);

  // Every change: the event changes in seq order, then the state changes: the service
  // configuration first when it differs, then per Target ordered by namespace and name its
  // removal, its addition, and its conditions in the order above. `from_*` are the
  // projections as of the first point, `to_*` as of the second.
  std::vector<v1::StateChange> Finish(const CredentialProjection& from_credentials,
                                      const StatusProjection& from_status,
                                      const CredentialProjection& to_credentials,
                                      const StatusProjection& to_status) const;

 private:
  bool Selected(absl::string_view target_namespace, absl::string_view name) const;

  std::string namespace_;
  std::string name_;
  std::vector<v1::StateChange> event_changes_;
};

}  // namespace credledger::projections
