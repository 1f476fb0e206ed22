#include "service/grpc/auth/call_authorizer.h"

#include <grpcpp/grpcpp.h>

#include "absl/strings/str_cat.h"
#include "common/log.h"
#include "common/quote_cut.h"
#include "service/api/target_api.h"

namespace credledger::service {

CallAuthorizer::CallAuthorizer(const AuthorizationPolicy* policy, DenialLedger* denials,
                               common::Clock* clock, CallerAuthentication authentication)
    : policy_(policy), denials_(denials), clock_(clock), authentication_(authentication) {}

CallerEvidence CallAuthorizer::Evidence(const grpc::ServerContextBase& context) const {
  CallerEvidence evidence = EvidenceOf(context);
  evidence.remote_must_authenticate = authentication_.remote_must_authenticate;
  if (evidence.bearer_token.has_value() && authentication_.tokens != nullptr) {
    evidence.token_identity = authentication_.tokens->Cached(*evidence.bearer_token);
  }
  return evidence;
}

bool CallAuthorizer::NeedsTokenReview(const CallerEvidence& evidence) const {
  return evidence.bearer_token.has_value() && authentication_.tokens != nullptr &&
         !evidence.token_identity.has_value();
}

void CallAuthorizer::ReviewToken(CallerEvidence& evidence) const {
  evidence.token_identity = authentication_.tokens->Authenticate(*evidence.bearer_token);
}

absl::StatusOr<AuthorizedCaller> CallAuthorizer::Authorize(const CallerEvidence& evidence,
                                                           absl::string_view service,
                                                           absl::string_view method) const {
  absl::StatusOr<Caller> caller = ResolveCaller(evidence);
  if (!caller.ok()) {
    // A certified caller that declared another name is still known by its certificate.
    // The name it declared, if any, is recorded beside it.
    const std::optional<Caller> certified = CertifiedCaller(evidence);
    const std::string declared = DeclaredName(evidence);
    if (certified.has_value()) {
      Refused(certified->identity, certified->authentication, service, method, caller.status(),
              declared);
    } else {
      Refused(kAnonymousActor, kAuthUnauthenticated, service, method, caller.status(), declared);
    }
    return caller.status();
  }
  absl::StatusOr<TargetScope> scope = policy_->Authorize(
      caller->identity, caller->authentication == kAuthDeclared, service, method);
  if (!scope.ok()) {
    Refused(caller->identity, caller->authentication, service, method, scope.status(), "");
    return scope.status();
  }
  std::string actor = RecordedActor(*caller);
  return AuthorizedCaller{*std::move(caller), std::move(actor), *std::move(scope)};
}

absl::Status CallAuthorizer::CheckTarget(const AuthorizedCaller& caller, absl::string_view service,
                                         absl::string_view method,
                                         absl::string_view target_namespace,
                                         absl::string_view name) const {
  if (caller.scope.Contains(target_namespace, name)) return absl::OkStatus();
  return OutOfScope(caller, service, method,
                    absl::StrCat(" for Target ",
                                 common::QuoteCut(absl::StrCat(target_namespace, "/", name), 128)));
}

absl::Status CallAuthorizer::CheckOneTarget(const AuthorizedCaller& caller,
                                            absl::string_view service, absl::string_view method,
                                            absl::string_view target_namespace,
                                            absl::string_view name) const {
  if (caller.scope.unrestricted()) return absl::OkStatus();
  if (!name.empty()) return CheckTarget(caller, service, method, target_namespace, name);
  return OutOfScope(caller, service, method, " but for one Target of its own");
}

absl::Status CallAuthorizer::OutOfScope(const AuthorizedCaller& caller, absl::string_view service,
                                        absl::string_view method, absl::string_view what) const {
  absl::Status refused = absl::PermissionDeniedError(
      absl::StrCat("caller \"", caller.caller.identity, "\" may not call ", service, "/", method,
                   what, ": its Targets are ", caller.scope.Describe(), " (authorization policy)"));
  Refused(caller.caller.identity, caller.caller.authentication, service, method, refused, "");
  return refused;
}

void CallAuthorizer::Refused(absl::string_view identity, absl::string_view authentication,
                             absl::string_view service, absl::string_view method,
                             const absl::Status& status, absl::string_view declared_name) const {
  if (denials_ == nullptr) return;
  // Built only for a refusal: allowed calls (every heartbeat) pay nothing for it.
  const std::string rpc = absl::StrCat(service, "/", method);
  if (denials_->Add(identity, authentication, rpc, clock_->Now(), declared_name)) {
    common::Log(common::LogLevel::kWarning,
                "call refused (further refusals this minute are counted)",
                {{"identity", std::string(identity)},
                 {"authentication", std::string(authentication)},
                 {"rpc", std::string(rpc)},
                 {"error", std::string(status.message())}});
  }
}

}  // namespace credledger::service
