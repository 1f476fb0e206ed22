// CredentialReconciler: brings the cluster in line with one Target's projected state
// (docs/credentials.md, "Lifecycle" and "Deletion"; docs/design.md, "Reconcilers").
//
// One pass, in this order (docs/credentials.md, "Deletion", "Revocation" and "Minting"):
//   - deleting: delete every credential Secret (by the name label alone), the RoleBinding,
//     Role, ServiceAccount and TargetReport, then RecordTargetFinalized;
//   - revoked: delete every credential Secret (name label alone); nothing else, even when
//     credentials are disabled;
//   - disabled (no agent API server URL): nothing;
//   - otherwise: confirm deletions reported by the Secret watch (RecordSecretDeletedExternally),
//     ensure ServiceAccount, Role, RoleBinding (a forced server-side apply of credledger's
//     fields when the cache lacks them or holds them drifted) and TargetReport (created when
//     the cache lacks it), compared against IdentityCaches, delete released Secrets and
//     superseded Secrets past their expiry, then carry out the open mint attempt, or plan one
//     (PlanCredential) and carry it out.
// When deleting or revoked, a Secret the log does not know that carries this incarnation's
// uid label and a mint attempt annotation was created by a mint abandoned before its Secret
// was recorded: it is recorded as that attempt's (RecordSecretCreated) and deleted with reason
// MINT_ABANDONED, as is any record of an abandoned mint; other Secrets the log does not know
// are recorded as RecordStaleCredentialsDeleted.
// Every cluster write is recorded through the OutcomeSink. Steady state makes no writes and,
// with no hint and no open attempt, no Kubernetes call at all.
//
// Thread-safety: Reconcile may run concurrently for different Targets, never for the same.
#pragma once

#include <optional>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "common/clock.h"
#include "credledger/v1/state.pb.h"
#include "kubebridge/client/cancellation.h"
#include "kubebridge/client/kube_client.h"
#include "kubebridge/credentials/credential_minter.h"
#include "kubebridge/credentials/identity_caches.h"
#include "kubebridge/model/outcomes.h"

namespace credledger::kubebridge {

// A credential Secret the watch saw deleted (a hint; the reconciler checks it directly).
struct DeletedSecretHint {
  v1::SecretRef secret;
  absl::Time observed_at;
};

struct ReconcileResult {
  // When the Target needs another pass without any event: the rotation due time of the
  // current credential, or the expiry of a superseded one. nullopt when none.
  std::optional<absl::Time> requeue_at;
};

class CredentialReconciler {
 public:
  // None of the arguments is owned; all must outlive the reconciler. `token_ttl` is the
  // TokenRequest expirationSeconds (--agent-token-ttl). REQUIRES: `caches` synced before
  // the first Reconcile.
  CredentialReconciler(KubeClient& client, IdentityCaches& caches, OutcomeSink& sink,
                       common::Clock& clock, absl::Duration token_ttl);

  // One pass for `state` under `service`, with the deletions the watch reported for this
  // Target since the last pass.
  // Errors: the first Kubernetes or log error (the work queue retries with backoff); an
  // identity failure is also recorded as RecordMintFailed (AgentCredentialReady=MintFailed).
  absl::StatusOr<ReconcileResult> Reconcile(const v1::TargetState& state,
                                            const v1::ServiceConfigured& service,
                                            const std::vector<DeletedSecretHint>& hints,
                                            Cancellation* cancel);

 private:
  absl::StatusOr<v1::TargetState> Finalize(const v1::TargetState& state, Cancellation* cancel);
  absl::StatusOr<v1::TargetState> DeleteAllCredentials(const v1::TargetState& state,
                                                       v1::SecretDeletionReason reason,
                                                       std::vector<std::string>* deleted,
                                                       Cancellation* cancel);
  absl::StatusOr<v1::TargetState> ConfirmDeletions(const v1::TargetState& state,
                                                   const std::vector<DeletedSecretHint>& hints,
                                                   Cancellation* cancel);
  absl::StatusOr<v1::TargetState> EnsureIdentity(const v1::TargetState& state,
                                                 Cancellation* cancel);
  absl::StatusOr<v1::TargetState> DeleteReleased(const v1::TargetState& state,
                                                 Cancellation* cancel);
  absl::StatusOr<v1::TargetState> Record(const v1::TargetState& state, const Outcome& outcome,
                                         const std::string& step);

  KubeClient& client_;
  IdentityCaches& caches_;
  OutcomeSink& sink_;
  common::Clock& clock_;
  CredentialMinter minter_;
};

}  // namespace credledger::kubebridge
