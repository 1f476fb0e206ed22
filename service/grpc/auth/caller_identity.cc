#include "service/grpc/auth/caller_identity.h"

#include <grpcpp/grpcpp.h>

#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/strip.h"
#include "common/quote_cut.h"
#include "common/status_macros.h"
#include "common/url.h"
#include "service/api/target_api.h"
#include "service/decide/validation.h"

namespace credledger::service {
namespace {

// AuthContext properties of a TLS connection (grpc/grpc_security_constants.h): gRPC lists
// each URI SAN of a verified peer certificate under `peer_uri` and the certificate's subject,
// as gRPC prints it, under `x509_subject`.
constexpr char kPeerUriProperty[] = "peer_uri";
constexpr char kSubjectProperty[] = "x509_subject";

// The host of a gRPC peer address after its "ipv4:" or "ipv6:": "<a.b.c.d>:<port>" or
// "[<addr>]:<port>" (the brackets may come URI-escaped as %5B and %5D); "" when it is neither.
std::string PeerHost(absl::string_view address) {
  const absl::StatusOr<common::HostPort> split = common::SplitHostPort(
      absl::StrReplaceAll(address, {{"%5B", "["}, {"%5D", "]"}}), /*min_port=*/0);
  return split.ok() ? split->host : "";
}

// An identity of at most `max_bytes` printable ASCII bytes without spaces, neither the
// service's own actor nor starting with the declared-name prefix (a certificate must not pass
// for a declared name, nor a declared name for the service).
absl::Status CheckActor(absl::string_view what, absl::string_view identity,
                        size_t max_bytes = kMaxActorBytes) {
  if (absl::Status valid = ValidateToken(what, identity, max_bytes); !valid.ok()) {
    return absl::UnauthenticatedError(valid.message());
  }
  if (identity == kServiceActor) {
    return absl::UnauthenticatedError(absl::StrCat(
        what, ": \"", kServiceActor, "\" is reserved for the service's own decisions"));
  }
  if (absl::StartsWith(identity, kDeclaredActorPrefix)) {
    return absl::UnauthenticatedError(absl::StrCat(what, ": \"", kDeclaredActorPrefix,
                                                   "\" is reserved for recording declared names"));
  }
  return absl::OkStatus();
}

// Rule 0 of the file comment.
absl::StatusOr<Caller> TokenCaller(const CallerEvidence& evidence,
                                   const std::optional<std::string>& declared) {
  if (evidence.certificate_verified) {
    return absl::UnauthenticatedError(
        "a call presents a client certificate or a bearer token, not both");
  }
  if (!evidence.token_identity.has_value()) {
    return absl::UnauthenticatedError(
        "this server takes no bearer tokens (it needs a cluster connection to review them and "
        "a --token-audience)");
  }
  if (!evidence.token_identity->ok()) return evidence.token_identity->status();
  const std::string& identity = **evidence.token_identity;
  RETURN_IF_ERROR(CheckActor("token identity", identity));
  if (declared.has_value() && *declared != identity) {
    return absl::UnauthenticatedError(absl::StrCat(
        kActorMetadataKey, ": ", common::QuoteCut(*declared, kMaxActorBytes),
        " differs from the token's identity ", common::QuoteCut(identity, kMaxActorBytes),
        "; drop --as or declare that identity"));
  }
  return Caller{identity, kAuthToken};
}

}  // namespace

bool IsLocalPeer(absl::string_view peer) {
  if (absl::StartsWith(peer, "unix:") || absl::StartsWith(peer, "unix-abstract:")) return true;
  if (absl::ConsumePrefix(&peer, "ipv4:")) return absl::StartsWith(PeerHost(peer), "127.");
  if (absl::ConsumePrefix(&peer, "ipv6:")) {
    const std::string host = PeerHost(peer);
    return host == "::1" || absl::StartsWith(host, "::ffff:127.");
  }
  return false;
}

// The identity a verified client certificate names: its first URI SAN, else its subject.
std::string CertificateIdentity(const CallerEvidence& evidence) {
  return evidence.uri_sans.empty() ? evidence.subject : evidence.uri_sans.front();
}

std::string DeclaredName(const CallerEvidence& evidence) {
  if (!evidence.declared.has_value() || *evidence.declared == kAnonymousActor) return "";
  return *evidence.declared;
}

absl::StatusOr<Caller> ResolveCaller(const CallerEvidence& evidence) {
  std::optional<std::string> declared;
  if (std::string name = DeclaredName(evidence); !name.empty()) declared = std::move(name);
  if (evidence.malformed_authorization) {
    return absl::UnauthenticatedError(absl::StrCat(
        kAuthorizationMetadataKey, ": only \"Bearer <token>\" is accepted (--token-file)"));
  }
  if (evidence.bearer_token.has_value()) return TokenCaller(evidence, declared);
  if (evidence.certificate_verified) {
    const std::string identity = CertificateIdentity(evidence);
    if (identity.empty()) {
      return absl::UnauthenticatedError(
          "the client certificate has neither a URI SAN nor a subject to name the caller");
    }
    RETURN_IF_ERROR(CheckActor("client certificate identity", identity));
    if (declared.has_value() && *declared != identity) {
      return absl::UnauthenticatedError(absl::StrCat(
          kActorMetadataKey, ": ", common::QuoteCut(*declared, kMaxActorBytes),
          " differs from the client certificate's identity ",
          common::QuoteCut(identity, kMaxActorBytes), "; drop --as or declare that identity"));
    }
    return Caller{identity, kAuthCertificate};
  }
  if (!declared.has_value()) {
    if (evidence.remote_must_authenticate && !IsLocalPeer(evidence.peer)) {
      return absl::UnauthenticatedError(
          "present a client certificate (mutual TLS) or a ServiceAccount token (--token-file)");
    }
    return Caller{kAnonymousActor, kAuthAnonymous};
  }
  if (!IsLocalPeer(evidence.peer)) {
    return absl::UnauthenticatedError(
        absl::StrCat(kActorMetadataKey,
                     ": a declared identity (--as) is honoured only on loopback or a "
                     "unix socket; over the network present a client certificate (mutual TLS)"));
  }
  RETURN_IF_ERROR(CheckActor(kActorMetadataKey, *declared, kMaxDeclaredNameBytes));
  return Caller{*declared, kAuthDeclared};
}

std::string RecordedActor(const Caller& caller) {
  if (caller.authentication == kAuthDeclared) {
    return absl::StrCat(kDeclaredActorPrefix, caller.identity);
  }
  return caller.identity;
}

std::optional<Caller> CertifiedCaller(const CallerEvidence& evidence) {
  if (!evidence.certificate_verified) return std::nullopt;
  const std::string identity = CertificateIdentity(evidence);
  if (identity.empty() || !CheckActor("", identity).ok()) return std::nullopt;
  return Caller{identity, kAuthCertificate};
}

CallerEvidence EvidenceOf(const grpc::ServerContextBase& context) {
  CallerEvidence evidence;
  evidence.peer = context.peer();
  const std::shared_ptr<const grpc::AuthContext> auth = context.auth_context();
  if (auth != nullptr && auth->IsPeerAuthenticated()) {
    evidence.certificate_verified = true;
    for (const grpc::string_ref& uri : auth->FindPropertyValues(kPeerUriProperty)) {
      evidence.uri_sans.emplace_back(uri.data(), uri.size());
    }
    for (const grpc::string_ref& subject : auth->FindPropertyValues(kSubjectProperty)) {
      evidence.subject.assign(subject.data(), subject.size());
      break;
    }
  }
  const auto& metadata = context.client_metadata();
  if (auto it = metadata.find(kActorMetadataKey); it != metadata.end()) {
    evidence.declared.emplace(it->second.data(), it->second.size());
  }
  if (auto it = metadata.find(kAuthorizationMetadataKey); it != metadata.end()) {
    absl::string_view value(it->second.data(), it->second.size());
    if (absl::ConsumePrefix(&value, "Bearer ") && !value.empty()) {
      evidence.bearer_token.emplace(value);
    } else {
      evidence.malformed_authorization = true;
    }
  }
  return evidence;
}

}  // namespace credledger::service
