#include "test/kubeapi/router.h"

#include <sys/socket.h>

#include <exception>
#include <memory>

#include "absl/strings/str_cat.h"
#include "test/kubeapi/cut_stream.h"
#include "test/kubeapi/discovery.h"
#include "test/kubeapi/kube_status.h"
#include "test/kubeapi/request_info.h"
#include "test/kubeapi/resource_handlers.h"
#include "test/kubeapi/reviews.h"
#include "test/kubeapi/token_request.h"
#include "test/kubeapi/watch_stream.h"

namespace credledger::kubeapi {
namespace {

// How often a held request checks whether its client went away.
constexpr absl::Duration kHoldPollInterval = absl::Milliseconds(100);

// The name a Conflict is about: the object of the path, or for a create the body's
// metadata.name.
std::string ConflictName(const RequestInfo& info, const HttpRequest& request) {
  if (!info.name.empty()) return info.name;
  nlohmann::json body = nlohmann::json::parse(request.body, nullptr, false);
  if (!body.is_object()) return "";
  auto metadata = body.find("metadata");
  if (metadata == body.end() || !metadata->is_object()) return "";
  auto name = metadata->find("name");
  return name != metadata->end() && name->is_string() ? name->get<std::string>() : "";
}

// The reply for a fault with an error code.
HttpResponse FaultReply(const FaultAction& fault, const RequestInfo& info,
                        const HttpRequest& request) {
  int code = fault.status_code;
  if (code == 409) {
    return ErrorResponse(ConflictError({info.group, info.resource}, ConflictName(info, request),
                                       kObjectModifiedMessage));
  }
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

// Holds `request` unanswered (a hang fault) until its client closes the connection or the
// server stops, then shuts the connection down so that no answer reaches the client. The
// returned response is never delivered.
HttpResponse HoldUnanswered(ServerContext& ctx, const HttpRequest& request) {
  FaultInjector::HeldRequest held(ctx.faults);
  while (!ctx.store.IsShutDown() && !PeerClosed(request.socket_fd)) {
    ctx.store.AwaitShutdown(absl::Now() + kHoldPollInterval);
  }
  if (request.socket_fd >= 0) shutdown(request.socket_fd, SHUT_RDWR);
  return ErrorResponse(KubeStatusError(503, "ServiceUnavailable",
                                       "the request was held by an injected fault",
                                       nlohmann::json::object()));
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

// Serves a request no fault stopped: anonymous paths, authentication, authorization and
// the handlers, recording authenticated requests.
HttpResponse Serve(ServerContext& ctx, const HttpRequest& request, const RequestInfo& info) {
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

HttpResponse Route(ServerContext& ctx, const HttpRequest& request) {
  RequestInfo info = ParseRequestInfo(request.method, request.path, request.params);
  FaultAction fault = ctx.faults.Match(request.method, request.path, info.verb == "watch");
  if (!fault.matched) return Serve(ctx, request, info);
  if (fault.delay > absl::ZeroDuration()) {
    // Waits the delay, ending early when the server shuts down.
    ctx.store.AwaitShutdown(absl::Now() + fault.delay);
  }
  if (fault.hang == Hang::kBeforeServing) return HoldUnanswered(ctx, request);
  if (fault.status_code != 0) return FaultReply(fault, info, request);
  HttpResponse response = Serve(ctx, request, info);
  if (fault.hang == Hang::kAfterServing) return HoldUnanswered(ctx, request);
  if (fault.drop_watch_after_events.has_value() && response.stream != nullptr) {
    response.stream =
        std::make_shared<CutStream>(std::move(response.stream), *fault.drop_watch_after_events);
  }
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
