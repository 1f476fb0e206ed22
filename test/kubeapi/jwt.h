// Compact JWS tokens (RFC 7515/7519) signed with ES256 (ECDSA P-256 over SHA-256, RFC 7518
// section 3.4), the format of Kubernetes service-account tokens.
//
// A JwtSigner owns one P-256 key generated at start-up. The header carries
// {"alg":"ES256","kid":<key id>,"typ":"JWT"}; the key id is the unpadded base64url
// SHA-256 of the DER SubjectPublicKeyInfo, as kube-apiserver derives its own.
//
// Verification here checks only the signature and the header; claim checks (exp, nbf, iss,
// aud, bound objects) belong to the Authenticator.
//
// Thread-safety: Sign and Verify are const and safe to call concurrently.
#pragma once

#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "nlohmann/json.hpp"
#include "test/kubeapi/openssl_util.h"

namespace credledger::kubeapi {

class JwtSigner {
 public:
  // Generates a new signing key.
  // Errors: kInternal when OpenSSL fails.
  static absl::StatusOr<JwtSigner> Generate();

  // The "kid" header value.
  const std::string& key_id() const { return key_id_; }
  // The verification key as PEM SubjectPublicKeyInfo.
  const std::string& public_key_pem() const { return public_key_pem_; }

  // Returns header.payload.signature for `claims` (a JSON object).
  // Errors: kInvalidArgument when `claims` is not an object; kInternal when OpenSSL fails.
  absl::StatusOr<std::string> Sign(const nlohmann::json& claims) const;

  // Checks that `token` is a three-segment compact JWS with alg ES256 and this key's kid,
  // signed by this key. Returns the decoded claims (a JSON object).
  // Errors: kUnauthenticated with the reason for every malformed or forged token.
  absl::StatusOr<nlohmann::json> Verify(absl::string_view token) const;

 private:
  JwtSigner() = default;

  EvpPkeyPtr key_;
  std::string key_id_;
  std::string public_key_pem_;
};

}  // namespace credledger::kubeapi
