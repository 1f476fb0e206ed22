// Plumbing shared by the synchronous gRPC services (TargetGrpcService, ReportGrpcService, ...):
// the caller's identity and its authorization, the one-to-one status mapping of a unary answer,
// and the loop that serves a watch stream (docs/api.md, "Errors" and "Caller identity").
//
// Thread-safety: stateless functions.
#pragma once

#include <grpcpp/grpcpp.h>

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "service/grpc/auth/call_authorizer.h"
#include "service/wire/grpc_status.h"

namespace credledger::service {

// How long a watch handler waits for an item before it checks for cancellation again.
inline constexpr absl::Duration kWatchPollSlice = absl::Milliseconds(100);

// OK with `*response` set from `result`, or `result`'s status mapped by ToGrpcStatus.
template <typename Response>
grpc::Status Reply(absl::StatusOr<Response> result, Response* response) {
  if (!result.ok()) return ToGrpcStatus(result.status());
  *response = *std::move(result);
  return grpc::Status::OK;
}

// CallAuthorizer::Authorize (short names, e.g. "ReportService", "PushReport"), then Reply with
// `call(caller)` (an AuthorizedCaller: its `actor` for events, its `scope` for lists and watches).
template <typename Response, typename Call>
grpc::Status AuthorizeAndReply(const grpc::ServerContext& context, const CallAuthorizer& authorizer,
                               absl::string_view service, absl::string_view method, Call call,
                               Response* response) {
  absl::StatusOr<AuthorizedCaller> caller = authorizer.Authorize(context, service, method);
  if (!caller.ok()) return ToGrpcStatus(caller.status());
  return Reply(call(*caller), response);
}

// AuthorizeAndReply for an RPC whose request names a Target (`request.namespace_()`/`name()`):
// after the RPC check, `check` (a CallAuthorizer scope check) must accept it before anything
// else runs (docs/api.md, "Target scopes").
template <typename Request, typename Response, typename Call>
grpc::Status AuthorizeScopedAndReply(
    const grpc::ServerContext& context, const CallAuthorizer& authorizer,
    absl::Status (CallAuthorizer::*check)(const AuthorizedCaller&, absl::string_view,
                                          absl::string_view, absl::string_view, absl::string_view)
        const,
    absl::string_view service, absl::string_view method, const Request& request, Call call,
    Response* response) {
  absl::StatusOr<AuthorizedCaller> caller = authorizer.Authorize(context, service, method);
  if (!caller.ok()) return ToGrpcStatus(caller.status());
  if (absl::Status in_scope =
          (authorizer.*check)(*caller, service, method, request.namespace_(), request.name());
      !in_scope.ok()) {
    return ToGrpcStatus(in_scope);
  }
  return Reply(call(*caller), response);
}

// For an RPC that addresses one Target: CallAuthorizer::CheckTarget.
template <typename Request, typename Response, typename Call>
grpc::Status AuthorizeTargetAndReply(const grpc::ServerContext& context,
                                     const CallAuthorizer& authorizer, absl::string_view service,
                                     absl::string_view method, const Request& request, Call call,
                                     Response* response) {
  return AuthorizeScopedAndReply(context, authorizer, &CallAuthorizer::CheckTarget, service, method,
                                 request, std::move(call), response);
}

// For an RPC that answers about one Target or many: CallAuthorizer::CheckOneTarget.
template <typename Request, typename Response, typename Call>
grpc::Status AuthorizeOneTargetAndReply(const grpc::ServerContext& context,
                                        const CallAuthorizer& authorizer, absl::string_view service,
                                        absl::string_view method, const Request& request, Call call,
                                        Response* response) {
  return AuthorizeScopedAndReply(context, authorizer, &CallAuthorizer::CheckOneTarget, service,
                                 method, request, std::move(call), response);
}

// Serves a started watch until it fails, the client goes away, or `stopping()` turns true.
// `Watch` has `absl::StatusOr<std::optional<Response>> Next(absl::Duration)`.
// Returns: the watch's error (mapped by ToGrpcStatus; start errors too), CANCELLED when the
// client cancelled or a write failed, UNAVAILABLE when the server shuts down. The handler
// thread is held for the life of the stream.
template <typename Watch, typename Response>
grpc::Status ServeWatch(grpc::ServerContext* context, absl::StatusOr<std::unique_ptr<Watch>> watch,
                        grpc::ServerWriter<Response>* writer,
                        const std::function<bool()>& stopping) {
  if (!watch.ok()) return ToGrpcStatus(watch.status());
  while (true) {
    if (context->IsCancelled()) {
      return grpc::Status(grpc::StatusCode::CANCELLED, "watch: the client cancelled");
    }
    if (stopping()) {
      return grpc::Status(grpc::StatusCode::UNAVAILABLE,
                          "watch: the server is shutting down; resume with after_seq");
    }
    absl::StatusOr<std::optional<Response>> item = (*watch)->Next(kWatchPollSlice);
    if (!item.ok()) return ToGrpcStatus(item.status());
    if (!item->has_value()) continue;
    if (!writer->Write(**item)) {
      return grpc::Status(grpc::StatusCode::CANCELLED, "watch: the client went away");
    }
  }
}

}  // namespace credledger::service
