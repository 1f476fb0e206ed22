#include "test/kubeapi/token_request.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "common/status_macros.h"
#include "test/kubeapi/json_util.h"
#include "test/kubeapi/kube_status.h"
#include "test/kubeapi/kube_time.h"
#include "test/kubeapi/random_ids.h"

namespace credledger::kubeapi {
namespace {

constexpr int64_t kMinExpirationSeconds = 600;
constexpr int64_t kDefaultExpirationSeconds = 3600;
constexpr int64_t kMaxExpirationSeconds = int64_t{1} << 32;
const char kAuthnGroup[] = "authentication.k8s.io";

absl::Status InvalidTokenRequest(const std::string& name, FieldCause cause) {
  return InvalidError("TokenRequest", kAuthnGroup, name, {std::move(cause)});
}

struct BoundObject {
  std::string kind;  // "Secret" or "Pod"; empty when unbound
  std::string name;
  std::string uid;
};

// Resolves spec.boundObjectRef against the store.
absl::StatusOr<BoundObject> ResolveBoundObject(ServerContext& ctx, const std::string& sa_name,
                                               const std::string& ns,
                                               const nlohmann::json& ref) {
  BoundObject bound;
  if (!ref.is_object()) return bound;
  bound.kind = StringField(ref, "kind");
  std::string api_version = StringField(ref, "apiVersion");
  GroupResource gr;
  if (api_version == "v1" && bound.kind == "Secret") {
    gr = {"", "secrets"};
  } else if (api_version == "v1" && bound.kind == "Pod") {
    gr = {"", "pods"};
  } else {
    size_t slash = api_version.find('/');
    std::string group = slash == std::string::npos ? "" : api_version.substr(0, slash);
    std::string version = slash == std::string::npos ? api_version : api_version.substr(slash + 1);
    return BadRequestError(absl::StrCat("cannot bind token to object of type ", group, "/",
                                        version, ", Kind=", bound.kind));
  }
  bound.name = StringField(ref, "name");
  ASSIGN_OR_RETURN(ObjectPtr object, ctx.store.Get(gr, ns, bound.name));
  if (bound.kind == "Pod" && StringField(Field(*object, "spec"), "serviceAccountName") != sa_name) {
    return BadRequestError(absl::StrCat("cannot bind token for serviceaccount \"", sa_name,
                                        "\" to pod running with different serviceaccount name."));
  }
  std::string actual_uid = MetadataString(*object, "uid");
  std::string wanted_uid = StringField(ref, "uid");
  if (!wanted_uid.empty() && wanted_uid != actual_uid) {
    return ConflictError({"", bound.kind}, bound.name,
                         absl::StrCat("the UID in the bound object reference (", wanted_uid,
                                      ") does not match the UID in record. The object might "
                                      "have been deleted and then recreated"));
  }
  bound.uid = actual_uid;
  return bound;
}

// Checks metadata.name/namespace of the body against the URL.
absl::Status CheckBodyMetadata(const std::string& sa_name, const std::string& ns,
                               const nlohmann::json& body) {
  std::string name = MetadataString(body, "name");
  if (!name.empty() && name != sa_name) {
    return InvalidTokenRequest(
        sa_name, {"FieldValueInvalid", "metadata.name",
                  absl::StrCat("Invalid value: ", nlohmann::json(name).dump(),
                               ": must match the service account name if specified")});
  }
  std::string body_ns = MetadataString(body, "namespace");
  if (!body_ns.empty() && body_ns != ns) {
    return InvalidTokenRequest(
        sa_name, {"FieldValueInvalid", "metadata.namespace",
                  absl::StrCat("Invalid value: ", nlohmann::json(body_ns).dump(),
                               ": must match the service account namespace if specified")});
  }
  return absl::OkStatus();
}

// spec.expirationSeconds: default 3600, at least 10 minutes, at most 2^32 seconds.
absl::StatusOr<int64_t> RequestedExpiration(const nlohmann::json& spec) {
  int64_t expiration = kDefaultExpirationSeconds;
  const nlohmann::json& requested = Field(spec, "expirationSeconds");
  if (requested.is_number_integer()) expiration = requested.get<int64_t>();
  if (expiration < kMinExpirationSeconds) {
    return InvalidTokenRequest(
        "", {"FieldValueInvalid", "spec.expirationSeconds",
             absl::StrCat("Invalid value: ", expiration,
                          ": may not specify a duration less than 10 minutes")});
  }
  if (expiration > kMaxExpirationSeconds) {
    return InvalidTokenRequest(
        "", {"FieldValueInvalid", "spec.expirationSeconds",
             absl::StrCat("Invalid value: ", expiration,
                          ": may not specify a duration larger than 2^32 seconds")});
  }
  return expiration;
}

absl::StatusOr<HttpResponse> Issue(ServerContext& ctx, const ResourceRequest& req) {
  const std::string& sa_name = req.info.name;
  const std::string ns = req.info.namespace_name;
  nlohmann::json body = nlohmann::json::parse(req.http->body, nullptr, false);
  if (!body.is_object()) return BadRequestError("the request body must be a JSON object");
  nlohmann::json spec = Field(body, "spec").is_object() ? body["spec"] : nlohmann::json::object();
  RETURN_IF_ERROR(CheckBodyMetadata(sa_name, ns, body));
  ASSIGN_OR_RETURN(ObjectPtr sa, ctx.store.Get({"", "serviceaccounts"}, ns, sa_name));
  ASSIGN_OR_RETURN(int64_t expiration, RequestedExpiration(spec));
  ASSIGN_OR_RETURN(BoundObject bound,
                   ResolveBoundObject(ctx, sa_name, ns, Field(spec, "boundObjectRef")));
  std::vector<std::pair<std::string, std::string>> headers;
  int64_t max_expiration = absl::ToInt64Seconds(ctx.config.max_token_expiration);
  if (expiration > max_expiration) {
    headers.emplace_back("Warning",
                         absl::StrCat("299 - \"requested expiration of ", expiration,
                                      " seconds shortened to ", max_expiration, " seconds\""));
    expiration = max_expiration;
  }

  std::vector<std::string> audiences;
  const nlohmann::json& aud = Field(spec, "audiences");
  if (aud.is_array()) {
    for (const auto& a : aud) {
      if (a.is_string()) audiences.push_back(a.get<std::string>());
    }
  }
  if (audiences.empty()) audiences = ctx.config.api_audiences;

  absl::Time now = ctx.config.clock->Now();
  int64_t iat = absl::ToUnixSeconds(now);
  std::string sa_uid = MetadataString(*sa, "uid");
  nlohmann::json k8s = {{"namespace", ns},
                        {"serviceaccount", {{"name", sa_name}, {"uid", sa_uid}}}};
  if (bound.kind == "Secret") k8s["secret"] = {{"name", bound.name}, {"uid", bound.uid}};
  if (bound.kind == "Pod") k8s["pod"] = {{"name", bound.name}, {"uid", bound.uid}};
  nlohmann::json claims = {{"iss", ctx.config.issuer},
                           {"sub", absl::StrCat("system:serviceaccount:", ns, ":", sa_name)},
                           {"aud", audiences},
                           {"iat", iat},
                           {"nbf", iat},
                           {"exp", iat + expiration},
                           {"jti", NewUuidV4()},
                           {"kubernetes.io", k8s}};
  ASSIGN_OR_RETURN(std::string token, ctx.signer.Sign(claims));

  spec["audiences"] = audiences;
  spec["expirationSeconds"] = expiration;
  nlohmann::json response = {
      {"kind", "TokenRequest"},
      {"apiVersion", "authentication.k8s.io/v1"},
      {"metadata",
       {{"name", sa_name}, {"namespace", ns}, {"uid", sa_uid},
        {"creationTimestamp", FormatKubeTime(now)}}},
      {"spec", spec},
      {"status",
       {{"token", token},
        {"expirationTimestamp", FormatKubeTime(now + absl::Seconds(expiration))}}}};
  HttpResponse http = JsonResponse(201, response);
  http.headers = std::move(headers);
  return http;
}

}  // namespace

HttpResponse ServeTokenRequest(ServerContext& ctx, const ResourceRequest& req) {
  absl::StatusOr<HttpResponse> response = Issue(ctx, req);
  if (!response.ok()) return ErrorResponse(response.status());
  return *std::move(response);
}

}  // namespace credledger::kubeapi
