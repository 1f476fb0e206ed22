// CallAuthorizer: the gate every RPC passes first (docs/api.md, "Caller identity" and
// "Authorization"). It establishes the caller (caller_identity.h), asks the authorization
// policy whether that identity may call the RPC and which Targets it may address
// (docs/api.md, "Target scopes"), and counts every refusal in a DenialLedger
// that the DenialRecorder turns into CallsDenied events, one per identity and minute. The
// first refusal of an identity in a minute is also logged.
//
// A caller with a bearer token needs its token reviewed by the cluster first, which may take
// a round trip: Evidence answers from the TokenAuthenticator's cache and NeedsTokenReview says
// when that was not enough; ReviewToken then waits for the review on a thread that may block
// (service/grpc/grpc_handlers.h).
//
// Thread-safety: thread-safe.
#pragma once

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "common/clock.h"
#include "service/api/authorization_policy.h"
#include "service/grpc/auth/caller_identity.h"
#include "service/grpc/auth/denial_ledger.h"
#include "service/grpc/auth/token_authenticator.h"

namespace grpc {
class ServerContextBase;
}  // namespace grpc

namespace credledger::service {

// The authentication name recorded for a caller whose identity could not be established.
inline constexpr char kAuthUnauthenticated[] = "unauthenticated";

// A caller the policy let through, with what its events record and what it may address.
struct AuthorizedCaller {
  Caller caller;
  std::string actor;  // RecordedActor(caller): the actor of the call's events
  TargetScope scope;  // the Targets it may address with this RPC
};

// How callers authenticate besides certificates and declared names.
struct CallerAuthentication {
  // Reviews bearer tokens (not owned; null: the server takes no tokens).
  TokenAuthenticator* tokens = nullptr;
  // Remote callers must present a client certificate or a token (caller_identity.h).
  bool remote_must_authenticate = false;
};

class CallAuthorizer {
 public:
  // `policy` is not owned and must outlive the authorizer. `denials` (not owned; may be null,
  // then refusals are only returned) counts refusals at `clock`'s time.
  CallAuthorizer(const AuthorizationPolicy* policy, DenialLedger* denials = nullptr,
                 common::Clock* clock = common::RealClock::Default(),
                 CallerAuthentication authentication = {});

  // What `context` tells about its caller (EvidenceOf), with the cached answer about its
  // bearer token, if any. Never blocks.
  CallerEvidence Evidence(const grpc::ServerContextBase& context) const;

  // True when `evidence` carries a bearer token whose answer is not cached yet.
  bool NeedsTokenReview(const CallerEvidence& evidence) const;

  // Sets evidence.token_identity from a review of its bearer token; waits for the cluster.
  // REQUIRES: NeedsTokenReview(evidence).
  void ReviewToken(CallerEvidence& evidence) const;

  // The caller `evidence` names, when it may call `service`/`method` (short names, e.g.
  // "TargetService", "Revoke").
  // Errors: kUnauthenticated when the caller's identity cannot be established
  // (ResolveCaller); kPermissionDenied naming the caller and the RPC when the policy refuses
  // it. Both are counted: an unauthenticated call under its certificate's identity when it
  // has a valid one (CertifiedCaller), else as "anonymous" with authentication
  // "unauthenticated", and with the name it declared (DeclaredName), if any.
  absl::StatusOr<AuthorizedCaller> Authorize(const CallerEvidence& evidence,
                                             absl::string_view service,
                                             absl::string_view method) const;
  // Authorize(Evidence(context), ...), for callers that took no review: a token whose answer
  // is not cached is refused as if the server took no tokens.
  absl::StatusOr<AuthorizedCaller> Authorize(const grpc::ServerContextBase& context,
                                             absl::string_view service,
                                             absl::string_view method) const {
    return Authorize(Evidence(context), service, method);
  }

  // OK when `caller`'s scope holds the Target `target_namespace`/`name`, which the call to
  // `service`/`method` addresses. Callers check it before validating anything else.
  // Errors: kPermissionDenied naming the caller, the Target, the RPC and the scope; counted
  // like every refusal.
  absl::Status CheckTarget(const AuthorizedCaller& caller, absl::string_view service,
                           absl::string_view method, absl::string_view target_namespace,
                           absl::string_view name) const;

  // For an RPC that may answer about one Target or about many (the audit RPCs): OK for a
  // caller without a Target scope; a scoped caller must name one Target (`name` not empty)
  // that CheckTarget accepts (docs/api.md, "Target scopes").
  // Errors: kPermissionDenied naming the caller, the RPC and the scope; counted like every
  // refusal.
  absl::Status CheckOneTarget(const AuthorizedCaller& caller, absl::string_view service,
                              absl::string_view method, absl::string_view target_namespace,
                              absl::string_view name) const;

 private:
  // The PERMISSION_DENIED of a call outside `caller`'s scope: "caller \"<identity>\" may not
  // call <service>/<method><what>: its Targets are <scope> (authorization policy)", counted.
  absl::Status OutOfScope(const AuthorizedCaller& caller, absl::string_view service,
                          absl::string_view method, absl::string_view what) const;

  // Counts (and, the first time in a minute, logs) one refusal; `declared_name` as
  // DenialLedger::Add's.
  void Refused(absl::string_view identity, absl::string_view authentication,
               absl::string_view service, absl::string_view method, const absl::Status& status,
               absl::string_view declared_name) const;

  const AuthorizationPolicy* const policy_;
  DenialLedger* const denials_;
  common::Clock* const clock_;
  const CallerAuthentication authentication_;
};

}  // namespace credledger::service
