#include "test/kubeapi/reviews.h"

#include "absl/strings/str_cat.h"
#include "common/status_macros.h"
#include "test/kubeapi/json_util.h"
#include "test/kubeapi/kube_status.h"

namespace credledger::kubeapi {
namespace {

std::vector<std::string> Strings(const nlohmann::json& list) {
  std::vector<std::string> out;
  if (!list.is_array()) return out;
  for (const auto& v : list) {
    if (v.is_string()) out.push_back(v.get<std::string>());
  }
  return out;
}

absl::StatusOr<nlohmann::json> ReviewBody(const ResourceRequest& req) {
  nlohmann::json body = nlohmann::json::parse(req.http->body, nullptr, false);
  if (!body.is_object()) return BadRequestError("the request body must be a JSON object");
  if (!Field(body, "spec").is_object()) body["spec"] = nlohmann::json::object();
  body["kind"] = req.resource.kind;
  body["apiVersion"] = req.resource.ApiVersion(req.info.version);
  if (!body["metadata"].is_object()) body["metadata"] = nlohmann::json::object();
  body["metadata"]["creationTimestamp"] = nullptr;
  return body;
}

absl::StatusOr<HttpResponse> TokenReview(ServerContext& ctx, const ResourceRequest& req) {
  ASSIGN_OR_RETURN(nlohmann::json body, ReviewBody(req));
  const nlohmann::json& spec = body["spec"];
  std::string token = StringField(spec, "token");
  if (token.empty()) return BadRequestError("token is required for TokenReview in authentication");
  absl::StatusOr<AuthenticatedUser> user =
      ctx.authenticator.Authenticate(token, Strings(Field(spec, "audiences")));
  if (user.ok()) {
    body["status"] = {{"authenticated", true},
                      {"user", user->user.ToJson()},
                      {"audiences", user->audiences}};
  } else {
    body["status"] = {{"user", nlohmann::json::object()},
                      {"error", std::string(user.status().message())}};
  }
  return JsonResponse(201, body);
}

absl::Status InvalidReview(const ResourceRequest& req, FieldCause cause) {
  return InvalidError(req.resource.kind, req.resource.group, "", {std::move(cause)});
}

// The attributes a (Self)SubjectAccessReview spec asks about.
absl::StatusOr<AuthorizationAttributes> ReviewAttributes(const ResourceRequest& req,
                                                         const nlohmann::json& spec) {
  const nlohmann::json& ra = Field(spec, "resourceAttributes");
  const nlohmann::json& nra = Field(spec, "nonResourceAttributes");
  if (ra.is_object() == nra.is_object()) {
    return InvalidReview(req, {"FieldValueInvalid", "spec.resourceAttributes",
                               "Invalid value: \"null\": exactly one of nonResourceAttributes "
                               "or resourceAttributes must be specified"});
  }
  AuthorizationAttributes attrs;
  if (nra.is_object()) {
    attrs.resource_request = false;
    attrs.path = StringField(nra, "path");
    attrs.verb = StringField(nra, "verb");
    return attrs;
  }
  attrs.verb = StringField(ra, "verb");
  attrs.group = StringField(ra, "group");
  attrs.resource = StringField(ra, "resource");
  attrs.subresource = StringField(ra, "subresource");
  attrs.name = StringField(ra, "name");
  attrs.namespace_name = StringField(ra, "namespace");
  return attrs;
}

absl::StatusOr<HttpResponse> AccessReview(ServerContext& ctx, const ResourceRequest& req,
                                          bool self) {
  ASSIGN_OR_RETURN(nlohmann::json body, ReviewBody(req));
  nlohmann::json& spec = body["spec"];
  ASSIGN_OR_RETURN(AuthorizationAttributes attrs, ReviewAttributes(req, spec));
  UserInfo user;
  if (self) {
    user = req.user;
  } else {
    user.username = StringField(spec, "user");
    user.uid = StringField(spec, "uid");
    user.groups = Strings(Field(spec, "groups"));
    if (user.username.empty() && user.groups.empty()) {
      return InvalidReview(req, {"FieldValueInvalid", "spec.user",
                                 "Invalid value: \"\": at least one of user or group must be "
                                 "specified"});
    }
  }
  bool allowed = ctx.authorizer.Allowed(user, attrs);
  body["status"] = {{"allowed", allowed}};
  if (allowed) body["status"]["reason"] = "RBAC: allowed";
  return JsonResponse(201, body);
}

absl::StatusOr<HttpResponse> DispatchReview(ServerContext& ctx, const ResourceRequest& req) {
  if (req.info.verb != "create" || req.info.name_from_path) return MethodNotAllowedError();
  const std::string& r = req.resource.resource;
  if (r == "tokenreviews") return TokenReview(ctx, req);
  if (r == "subjectaccessreviews") return AccessReview(ctx, req, /*self=*/false);
  if (r == "selfsubjectaccessreviews") return AccessReview(ctx, req, /*self=*/true);
  return PathNotFoundError();
}

}  // namespace

HttpResponse ServeReview(ServerContext& ctx, const ResourceRequest& req) {
  absl::StatusOr<HttpResponse> response = DispatchReview(ctx, req);
  if (!response.ok()) return ErrorResponse(response.status());
  return *std::move(response);
}

}  // namespace credledger::kubeapi
