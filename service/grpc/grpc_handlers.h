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

// The caller's identity when `authorizer` lets it call `service`/`method` (short names, e.g.
// "ReportService", "PushReport"); UNAUTHENTICATED or PERMISSION_DENIED (mapped by
// ToGrpcStatus) otherwise.
absl::StatusOr<std::string> Authorize(const grpc::ServerContext& context,
                                      const CallAuthorizer& authorizer,
                                      absl::string_view service, absl::string_view method);

// Authorize, then Reply with `call(identity)`.
template <typename Response, typename Call>
grpc::Status AuthorizeAndReply(const grpc::ServerContext& context,
                               const CallAuthorizer& authorizer, absl::string_view service,
                               absl::string_view method, Call call, Response* response) {
  absl::StatusOr<std::string> identity = Authorize(context, authorizer, service, method);
  if (!identity.ok()) return ToGrpcStatus(identity.status());
  return Reply(call(*identity), response);
}

// Serves a started watch until it fails, the client goes away, or `stopping()` turns true.
// `Watch` has `absl::StatusOr<std::optional<Response>> Next(absl::Duration)`.
// Returns: the watch's error (mapped by ToGrpcStatus; start errors too), CANCELLED when the
// client cancelled or a write failed, UNAVAILABLE when the server shuts down. The handler
// thread is held for the life of the stream.
template <typename Watch, typename Response>
grpc::Status ServeWatch(grpc::ServerContext* context,
                        absl::StatusOr<std::unique_ptr<Watch>> watch,
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
