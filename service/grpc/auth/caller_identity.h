// Who is calling: the caller identity the authorization policy is asked about and that is
// recorded as the actor of the call's events (docs/api.md, "Caller identity" and
// "Authorization").
//
//   0. A call with a bearer token (`authorization: Bearer <token>`, the CLI's --token-file):
//      the ServiceAccount the cluster's TokenReview names, "system:serviceaccount:<ns>:<name>"
//      (token_authenticator.h). Not together with a client certificate; a declared
//      `credledger-actor` must name the same identity.
//   1. A connection with a verified client certificate (mutual TLS): the certificate's first
//      URI SAN, or without one its subject (as gRPC prints it, e.g. "CN=ops,O=platform").
//      A declared `credledger-actor` must then name the same identity.
//   2. No client certificate and a local peer (loopback or a unix socket): the name the
//      client declares in `credledger-actor` (the CLI's --as), "anonymous" when none. A
//      declared name is not authenticated: it is recorded as "declared:<name>" and matches
//      only the policy entries that allow declared names (authorization_policy.h).
//      Declaring "anonymous" (or an empty name) is the same as declaring nothing.
//   3. Otherwise "anonymous"; a declared name is refused (anyone on the network could
//      declare any name). Where the server asks remote callers to authenticate (it has a
//      client CA and takes tokens, so a client certificate is optional), a remote caller
//      with neither is refused.
//
// Thread-safety: pure functions.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace grpc {
class ServerContextBase;
}  // namespace grpc

namespace credledger::service {

// How a caller's identity was established; the names are recorded in CallsDenied.
inline constexpr char kAuthCertificate[] = "certificate";
inline constexpr char kAuthDeclared[] = "declared";
inline constexpr char kAuthToken[] = "token";
inline constexpr char kAuthAnonymous[] = "anonymous";

struct Caller {
  std::string identity;        // never empty
  std::string authentication;  // kAuthToken, kAuthCertificate, kAuthDeclared or kAuthAnonymous
};

// What a connection and its metadata tell about the caller.
struct CallerEvidence {
  bool certificate_verified = false;    // a client certificate passed verification
  std::vector<std::string> uri_sans;    // its URI SANs, in certificate order
  std::string subject;                  // its subject
  std::string peer;                     // gRPC peer address ("ipv4:127.0.0.1:5000", "unix:...")
  std::optional<std::string> declared;  // the credledger-actor metadata value, when sent
  // The token of an `authorization: Bearer <token>` header; never logged nor shown.
  std::optional<std::string> bearer_token;
  bool malformed_authorization = false;  // an authorization header that is not that
  // What the TokenAuthenticator says about bearer_token: the identity or why not; unset
  // while it has not been asked, and on a server that takes no tokens.
  std::optional<absl::StatusOr<std::string>> token_identity;
  // Remote callers must present a client certificate or a token (set by CallAuthorizer).
  bool remote_must_authenticate = false;
};

// True for a peer on this machine: IPv4 127.0.0.0/8, IPv6 ::1 (also ::ffff:127.x.y.z; with
// or without URI-escaped brackets) and unix sockets ("unix:", "unix-abstract:").
bool IsLocalPeer(absl::string_view peer);

// The name `evidence` declares: its credledger-actor value, or "" when none was sent or it
// is "" or "anonymous" (the same as declaring nothing).
std::string DeclaredName(const CallerEvidence& evidence);

// Applies the rules above.
// Errors: token_identity's error (kUnauthenticated for a refused token, kUnavailable when it
// could not be reviewed); kUnauthenticated for a malformed authorization header, a token on a
// server that takes none, a token beside a client certificate, a remote caller with neither
// where one is required, when a declared name differs from the token's or certificate's
// identity,
// when a name is declared by a caller that is neither local nor certified, when a declared
// name or a certificate identity is not a valid actor (printable ASCII without spaces, at most
// 128 bytes, 119 for a declared name; not the service's own "credledger" nor starting with
// "declared:"), or when a verified certificate has neither URI
// SAN nor subject.
absl::StatusOr<Caller> ResolveCaller(const CallerEvidence& evidence);

// The actor recorded on the events of `caller`'s calls: its identity, or for a declared name
// "declared:<name>" (docs/api.md, "Declared names").
std::string RecordedActor(const Caller& caller);

// Who a call ResolveCaller refused is recorded as: the client certificate's identity (with
// kAuthCertificate) when a verified certificate names a valid actor, as for a caller that
// declared another name than its certificate's; else nullopt (nothing trustworthy is known).
std::optional<Caller> CertifiedCaller(const CallerEvidence& evidence);

// The evidence of `context` (of a synchronous or a callback call): its AuthContext (verified
// client certificate), peer and credledger-actor metadata.
CallerEvidence EvidenceOf(const grpc::ServerContextBase& context);

}  // namespace credledger::service
