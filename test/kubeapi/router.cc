#include "test/kubeapi/router.h"

#include <exception>

#include "absl/strings/str_cat.h"
#include "test/kubeapi/discovery.h"
#include "test/kubeapi/kube_status.h"
#include "test/kubeapi/request_info.h"
#include "test/kubeapi/resource_handlers.h"
#include "test/kubeapi/reviews.h"
#include "test/kubeapi/token_request.h"
#include "test/kubeapi/watch_stream.h"

namespace credledger::kubeapi {
namespace {

// The reply for a fault with an error code.
HttpResponse FaultReply(const FaultAction& fault) {
  int code = fault.status_code;
  std::string reason = "InternalError";
  std::string message = "an error on the server (\"injected fault\") has prevented the request "
                        "from succeeding";
  if (code == 429) {
    reason = "TooManyRequests";
    message = "the server has received too many requests and has asked us to try again later";
  } else if (code == 503) {
    reason = "ServiceUnavailable";
    message = "the server is currently unable to handle the request";
  } else if (code == 504) {
    reason = "Timeout";
    message = "the server was unable to return a response in the time allotted, but may still "
              "be processing the request";
  }
  nlohmann::json details = nlohmann::json::object();
  if (fault.retry_after_seconds) details["retryAfterSeconds"] = *fault.retry_after_seconds;
  HttpResponse response = ErrorResponse(KubeStatusError(code, reason, message, details));
  if (fault.retry_after_seconds) {
    response.headers.emplace_back("Retry-After", absl::StrCat(*fault.retry_after_seconds));
  }
  return response;
}

// POST and PUT bodies must be JSON (an empty Content-Type is taken as JSON). Protobuf, which
// typed client-go clients prefer, is not supported: 415 like a server without the codec.
bool IsJsonBody(const HttpRequest& request) {
  if (request.method != "POST" && request.method != "PUT") return true;
  std::string type = request.content_type.substr(0, request.content_type.find(';'));
  return type.empty() || type == "application/json" || type == "*/*";
}

AuthorizationAttributes AttributesOf(const RequestInfo& info) {
  AuthorizationAttributes a;
  a.verb = info.verb;
  a.resource_request = info.is_resource_request;
  a.path = info.path;
  a.group = info.group;
  a.resource = info.resource;
  a.subresource = info.subresource;
  a.name = info.name;
  a.namespace_name = info.namespace_name;
  return a;
}

// kube-apiserver's union of authenticators: a verified client certificate first, then the
// bearer token.
absl::StatusOr<UserInfo> Authenticate(const ServerContext& ctx, const HttpRequest& request) {
  if (request.peer_certificate) {
    absl::StatusOr<UserInfo> user = Authenticator::ClientCertificateUser(*request.peer_certificate);
    if (user.ok()) return user;
  }
  std::optional<std::string> token = Authenticator::BearerToken(request.authorization);
  if (!token) return absl::UnauthenticatedError("no credentials");
  absl::StatusOr<AuthenticatedUser> authenticated = ctx.authenticator.Authenticate(*token, {});
  if (!authenticated.ok()) return authenticated.status();
  return authenticated->user;
}

// Serves a request that passed authentication and authorization.
HttpResponse ServeAuthorized(ServerContext& ctx, const HttpRequest& request,
                             const RequestInfo& info, const UserInfo& user) {
  if (!info.is_resource_request) return ServeNonResource(ctx, info);
  if (!IsJsonBody(request)) return ErrorResponse(UnsupportedMediaTypeError(request.content_type));
  if (request.params.count("dryRun") > 0) {
    // Refused rather than ignored: a dry run that wrote would mislead the test.
    return ErrorResponse(BadRequestError("dryRun is not supported by the test API server"));
  }

  ResourceRequest req;
  req.http = &request;
  req.info = info;
  req.resource = ctx.registry.Resolve(info.group, info.version, info.resource, info.namespaced_path);
  req.user = user;
  if (req.resource.group.empty() && req.resource.resource == "serviceaccounts" &&
      info.subresource == "token") {
    if (info.verb != "create") return ErrorResponse(MethodNotAllowedError());
    return ServeTokenRequest(ctx, req);
  }
  if (req.resource.create_only) return ServeReview(ctx, req);
  if (info.verb == "watch") {
    if (req.resource.namespaced != info.namespaced_path && !req.resource.namespaced) {
      return ErrorResponse(PathNotFoundError());
    }
    absl::StatusOr<std::shared_ptr<WatchStream>> stream = WatchStream::Open(ctx, req);
    if (!stream.ok()) return ErrorResponse(stream.status());
    HttpResponse response;
    response.content_type = "application/json;stream=watch";
    response.stream = *std::move(stream);
    return response;
  }
  return ServeResource(ctx, req);
}

HttpResponse Route(ServerContext& ctx, const HttpRequest& request) {
  FaultAction fault = ctx.faults.Match(request.method, request.path);
  if (fault.matched && fault.delay > absl::ZeroDuration()) {
    // Waits the delay, ending early when the server shuts down.
    ctx.store.AwaitShutdown(absl::Now() + fault.delay);
  }
  if (fault.matched && fault.status_code != 0) return FaultReply(fault);

  RequestInfo info = ParseRequestInfo(request.method, request.path, request.params);
  if (!info.is_resource_request && IsAnonymousPath(info.path)) return ServeNonResource(ctx, info);

  absl::StatusOr<UserInfo> user = Authenticate(ctx, request);
  if (!user.ok()) return ErrorResponse(UnauthorizedError());

  AuthorizationAttributes attrs = AttributesOf(info);
  HttpResponse response = ctx.authorizer.Allowed(*user, attrs)
                              ? ServeAuthorized(ctx, request, info, *user)
                              : ErrorResponse(RbacAuthorizer::ForbiddenFor(*user, attrs));
  ctx.requests.Record(user->username, attrs, response.status);
  return response;
}

}  // namespace

HttpResponse HandleRequest(ServerContext& ctx, const HttpRequest& request) {
  try {
    return Route(ctx, request);
  } catch (const std::exception& e) {
    return ErrorResponse(KubeStatusError(500, "InternalError",
                                         absl::StrCat("an error on the server (\"", e.what(),
                                                      "\") has prevented the request from "
                                                      "succeeding"),
                                         nlohmann::json::object()));
  }
}

}  // namespace credledger::kubeapi
