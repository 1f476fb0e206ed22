// CredentialMinter: carries out, or resumes after a restart, the open mint attempt of one
// Target (docs/credentials.md, "Minting"; docs/design.md, "Intent and outcome").
//
// Steps, each cluster write followed by its outcome in the log:
//   1. list the Target's credential Secrets directly (never from a cache); delete those with
//      the Target's name label but another or no uid label (RecordStaleCredentialsDeleted);
//   2. create Secret solar-agent-<target>-<n>, n = one more than the highest suffix among the
//      Secrets carrying both labels (RecordSecretCreated);
//   3. TokenRequest for the ServiceAccount, bound to that Secret (kind, name, uid), with
//      expirationSeconds = the token TTL;
//   4. write the token (key `token`) and the expires-at annotation into the Secret; on a
//      Conflict, read the Secret again: still the attempt's Secret (same uid) and already
//      holding this token (an earlier try of the PUT landed but its answer was lost) counts
//      as written; still without a token, the token is written onto the fresh copy once
//      more; anything else fails;
//   5. RecordCredentialIssued with issued-at = when the TokenRequest answered and expiry =
//      its status.expirationTimestamp.
// A failure in 3 or 4 deletes the Secret again and records RecordMintFailed. Resuming finds
// the attempt's Secret by its attempt annotation: a Secret with a token is adopted, one
// without gets its token, a vanished one fails the attempt.
//
// Fault points (CREDLEDGER_FAULT_POINTS): mint.before_secret_create,
// mint.after_secret_create, mint.after_secret_recorded, mint.after_token_request,
// mint.after_secret_update, mint.after_issued_recorded.
//
// Thread-safety: Run may be called concurrently for different Targets, never for the same.
#pragma once

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "common/clock.h"
#include "credledger/v1/state.pb.h"
#include "kubebridge/client/cancellation.h"
#include "kubebridge/client/kube_client.h"
#include "kubebridge/model/outcomes.h"

namespace credledger::kubebridge {

class CredentialMinter {
 public:
  // None of the arguments is owned; all must outlive the minter.
  CredentialMinter(KubeClient& client, OutcomeSink& sink, common::Clock& clock,
                   absl::Duration token_ttl);

  // Carries out the open attempt of `state` (REQUIRES: state.has_open_attempt()). Returns
  // the Target's state after the last outcome recorded.
  // Errors: the Kubernetes or log error that stopped it (the attempt stays open, or a failure
  // was recorded, and a later call resumes); kNotFound/kFailedPrecondition from the sink when
  // the Target changed incarnation underneath.
  absl::StatusOr<v1::TargetState> Run(const v1::TargetState& state, Cancellation* cancel);

 private:
  absl::StatusOr<v1::TargetState> CreateSecret(const v1::TargetState& state, Cancellation* cancel);
  absl::StatusOr<v1::TargetState> Resume(const v1::TargetState& state, Cancellation* cancel);
  absl::StatusOr<v1::TargetState> IssueToken(const v1::TargetState& state, nlohmann::json secret,
                                             Cancellation* cancel);
  // Step 4 after `conflict` (kAborted) on the PUT of `filled`, the Secret with the token
  // set (see the file comment). Returns the Secret as stored.
  // Errors: `conflict` when the Secret is another one or holds another token; the client's.
  absl::StatusOr<nlohmann::json> StoreTokenAfterConflict(const std::string& ns,
                                                         const nlohmann::json& filled,
                                                         const std::string& token,
                                                         const absl::Status& conflict,
                                                         Cancellation* cancel);
  absl::StatusOr<v1::TargetState> Adopt(const v1::TargetState& state, const nlohmann::json& secret,
                                        const std::string& token);
  absl::StatusOr<v1::TargetState> Fail(const v1::TargetState& state, v1::MintStage stage,
                                       const absl::Status& error, const nlohmann::json* secret,
                                       Cancellation* cancel);
  absl::StatusOr<v1::TargetState> Record(const v1::TargetState& state, const Outcome& outcome,
                                         absl::string_view step);

  KubeClient& client_;
  OutcomeSink& sink_;
  common::Clock& clock_;
  const absl::Duration token_ttl_;
};

// First 16 lowercase hex characters of SHA-256 over `token`: the fingerprint the log keeps.
std::string TokenFingerprint(absl::string_view token);

}  // namespace credledger::kubebridge
