#include "test/kubeapi/authenticator.h"

#include <openssl/crypto.h>

#include <algorithm>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "common/status_macros.h"
#include "test/kubeapi/json_util.h"

namespace credledger::kubeapi {
namespace {

absl::Status Invalid(absl::string_view why) {
  return absl::UnauthenticatedError(absl::StrCat("invalid bearer token, ", why));
}

bool ConstantTimeEquals(absl::string_view a, absl::string_view b) {
  return a.size() == b.size() && CRYPTO_memcmp(a.data(), b.data(), a.size()) == 0;
}

std::vector<std::string> Audiences(const nlohmann::json& aud) {
  std::vector<std::string> out;
  if (aud.is_string()) out.push_back(aud.get<std::string>());
  if (aud.is_array()) {
    for (const auto& a : aud) {
      if (a.is_string()) out.push_back(a.get<std::string>());
    }
  }
  return out;
}

}  // namespace

Authenticator::Authenticator(std::string admin_token, std::string issuer,
                             std::vector<std::string> api_audiences, const JwtSigner* signer,
                             const ObjectStore* store, const common::Clock* clock)
    : admin_token_(std::move(admin_token)),
      issuer_(std::move(issuer)),
      api_audiences_(std::move(api_audiences)),
      signer_(signer),
      store_(store),
      clock_(clock) {}

absl::StatusOr<UserInfo> Authenticator::ClientCertificateUser(const PeerCertificate& certificate) {
  if (!certificate.verified) {
    return absl::UnauthenticatedError("client certificate: verifying certificate failed");
  }
  if (certificate.common_name.empty()) {
    return absl::UnauthenticatedError("client certificate: the common name is empty");
  }
  UserInfo user;
  user.username = certificate.common_name;
  user.groups = certificate.organizations;
  user.groups.push_back("system:authenticated");
  return user;
}

std::optional<std::string> Authenticator::BearerToken(absl::string_view header) {
  header = absl::StripAsciiWhitespace(header);
  if (header.size() < 7 || !absl::EqualsIgnoreCase(header.substr(0, 7), "bearer ")) {
    return std::nullopt;
  }
  std::string token(absl::StripAsciiWhitespace(header.substr(7)));
  if (token.empty()) return std::nullopt;
  return token;
}

absl::StatusOr<AuthenticatedUser> Authenticator::Authenticate(
    absl::string_view token, const std::vector<std::string>& audiences) const {
  if (ConstantTimeEquals(token, admin_token_)) {
    AuthenticatedUser admin;
    admin.user.username = "kubernetes-admin";
    admin.user.groups = {kSystemMastersGroup, "system:authenticated"};
    admin.audiences = audiences.empty() ? api_audiences_ : audiences;
    return admin;
  }
  return AuthenticateJwt(token, audiences);
}

absl::Status Authenticator::CheckBoundObject(const GroupResource& gr, const std::string& ns,
                                             const nlohmann::json& claim) const {
  std::string name = StringField(claim, "name");
  absl::StatusOr<ObjectPtr> object = store_->Get(gr, ns, name);
  if (!object.ok()) {
    return Invalid(absl::StrCat(gr.resource, " \"", name, "\" bound to the token is gone"));
  }
  if (MetadataString(**object, "uid") != StringField(claim, "uid")) {
    return Invalid(absl::StrCat(gr.resource, " \"", name, "\" bound to the token was re-created"));
  }
  return absl::OkStatus();
}

absl::StatusOr<AuthenticatedUser> Authenticator::AuthenticateJwt(
    absl::string_view token, const std::vector<std::string>& audiences) const {
  absl::StatusOr<nlohmann::json> verified = signer_->Verify(token);
  if (!verified.ok()) return Invalid("token lookup failed");
  const nlohmann::json& claims = *verified;
  if (StringField(claims, "iss") != issuer_) return Invalid("unknown issuer");
  int64_t now = absl::ToUnixSeconds(clock_->Now());
  if (!claims.contains("exp") || !claims["exp"].is_number_integer() ||
      now >= claims["exp"].get<int64_t>()) {
    return Invalid("token has expired");
  }
  if (claims.contains("nbf") && claims["nbf"].is_number_integer() &&
      now < claims["nbf"].get<int64_t>()) {
    return Invalid("token is not valid yet");
  }
  const std::vector<std::string>& accepted = audiences.empty() ? api_audiences_ : audiences;
  std::vector<std::string> matched;
  for (const std::string& a : Audiences(Field(claims, "aud"))) {
    if (std::find(accepted.begin(), accepted.end(), a) != accepted.end()) matched.push_back(a);
  }
  if (matched.empty()) return Invalid("token audiences do not match");
  const nlohmann::json& k8s = Field(claims, "kubernetes.io");
  if (!k8s.is_object()) return Invalid("missing kubernetes.io claim");
  std::string ns = StringField(k8s, "namespace");
  const nlohmann::json& sa = Field(k8s, "serviceaccount");
  RETURN_IF_ERROR(CheckBoundObject({"", "serviceaccounts"}, ns, sa));
  if (k8s.contains("secret")) RETURN_IF_ERROR(CheckBoundObject({"", "secrets"}, ns, k8s["secret"]));
  if (k8s.contains("pod")) RETURN_IF_ERROR(CheckBoundObject({"", "pods"}, ns, k8s["pod"]));

  AuthenticatedUser result;
  result.user.username = absl::StrCat("system:serviceaccount:", ns, ":", StringField(sa, "name"));
  result.user.uid = StringField(sa, "uid");
  result.user.groups = {"system:serviceaccounts", absl::StrCat("system:serviceaccounts:", ns),
                        "system:authenticated"};
  if (!StringField(claims, "jti").empty()) {
    result.user.extra["authentication.kubernetes.io/credential-id"] = {
        absl::StrCat("JTI=", StringField(claims, "jti"))};
  }
  if (k8s.contains("pod")) {
    result.user.extra["authentication.kubernetes.io/pod-name"] = {StringField(k8s["pod"], "name")};
    result.user.extra["authentication.kubernetes.io/pod-uid"] = {StringField(k8s["pod"], "uid")};
  }
  result.audiences = matched;
  return result;
}

}  // namespace credledger::kubeapi
