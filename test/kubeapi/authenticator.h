// Authenticator: turns a bearer token or a client certificate into a UserInfo, like
// kube-apiserver's token and x509 authenticators.
//
// Two kinds of tokens are accepted:
// - the admin token generated at start-up: user "kubernetes-admin", groups
//   system:masters and system:authenticated (a superuser);
// - service-account JWTs this server signed (TokenRequest): user
//   "system:serviceaccount:<ns>:<name>", uid = the ServiceAccount's uid, groups
//   system:serviceaccounts, system:serviceaccounts:<ns>, system:authenticated, extra
//   authentication.kubernetes.io/credential-id ["JTI=<jti>"].
// Client certificates (kube-apiserver's x509 authenticator) are checked first: one that
// verified against the client CA authenticates as user = subject CN, groups = subject O
// values plus system:authenticated. An unverified certificate authenticates nobody (a
// bearer token may still do so).
// A JWT is valid while: its signature verifies; iss is this server's issuer; the injected
// clock is within [nbf, exp); aud shares an audience with the accepted audiences; its
// ServiceAccount exists with the uid in the token; and its bound Secret or Pod (if any)
// exists with the uid in the token (a deleted or re-created bound object revokes it).
//
// Thread-safety: const methods, safe to call concurrently.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "common/clock.h"
#include "test/kubeapi/http_types.h"
#include "test/kubeapi/jwt.h"
#include "test/kubeapi/object_store.h"
#include "test/kubeapi/user_info.h"

namespace credledger::kubeapi {

struct AuthenticatedUser {
  UserInfo user;
  std::vector<std::string> audiences;  // the accepted audiences the token matched
};

class Authenticator {
 public:
  // REQUIRES: `signer`, `store` and `clock` outlive the authenticator; `api_audiences` is
  // not empty.
  Authenticator(std::string admin_token, std::string issuer,
                std::vector<std::string> api_audiences, const JwtSigner* signer,
                const ObjectStore* store, const common::Clock* clock);

  // Authenticates `token` for `audiences` (empty: the API server's own audiences).
  // Errors: kUnauthenticated with the reason (unknown token, bad signature, expired,
  // wrong audience, service account or bound object gone or re-created).
  absl::StatusOr<AuthenticatedUser> Authenticate(absl::string_view token,
                                                 const std::vector<std::string>& audiences) const;

  // The user of a client certificate (see above); kUnauthenticated when it did not verify
  // or has no CN.
  static absl::StatusOr<UserInfo> ClientCertificateUser(const PeerCertificate& certificate);

  // The token in an `Authorization: Bearer <token>` header value; nullopt when the header
  // uses another scheme or the token is empty.
  static std::optional<std::string> BearerToken(absl::string_view authorization_header);

  const std::string& issuer() const { return issuer_; }
  const std::vector<std::string>& api_audiences() const { return api_audiences_; }

 private:
  absl::StatusOr<AuthenticatedUser> AuthenticateJwt(
      absl::string_view token, const std::vector<std::string>& audiences) const;
  // Checks that the object named in `claim` ({name, uid}) exists with that uid.
  absl::Status CheckBoundObject(const GroupResource& gr, const std::string& ns,
                                const nlohmann::json& claim) const;

  const std::string admin_token_;
  const std::string issuer_;
  const std::vector<std::string> api_audiences_;
  const JwtSigner* signer_;
  const ObjectStore* store_;
  const common::Clock* clock_;
};

}  // namespace credledger::kubeapi
