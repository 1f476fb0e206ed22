#include "service/target_grpc_service.h"

#include <string>
#include <utility>

#include "service/grpc_status.h"

namespace credledger::service {
namespace {

// How long a watch handler waits for an item before it checks for cancellation again.
constexpr absl::Duration kWatchPollSlice = absl::Milliseconds(100);

// The caller's declared identity from request metadata; empty when none was sent.
std::string Actor(const grpc::ServerContext& context) {
  const auto& metadata = context.client_metadata();
  auto it = metadata.find(kActorMetadataKey);
  if (it == metadata.end()) return std::string();
  return std::string(it->second.data(), it->second.size());
}

template <typename Response>
grpc::Status Reply(absl::StatusOr<Response> result, Response* response) {
  if (!result.ok()) return ToGrpcStatus(result.status());
  *response = *std::move(result);
  return grpc::Status::OK;
}

}  // namespace

grpc::Status TargetGrpcService::RegisterTarget(grpc::ServerContext* context,
                                               const v1::RegisterTargetRequest* request,
                                               v1::RegisterTargetResponse* response) {
  return Reply(api_->RegisterTarget(*request, Actor(*context)), response);
}

grpc::Status TargetGrpcService::DeleteTarget(grpc::ServerContext* context,
                                             const v1::DeleteTargetRequest* request,
                                             v1::DeleteTargetResponse* response) {
  return Reply(api_->DeleteTarget(*request, Actor(*context)), response);
}

grpc::Status TargetGrpcService::RequestRotation(grpc::ServerContext* context,
                                                const v1::RequestRotationRequest* request,
                                                v1::RequestRotationResponse* response) {
  return Reply(api_->RequestRotation(*request, Actor(*context)), response);
}

grpc::Status TargetGrpcService::Revoke(grpc::ServerContext* context,
                                       const v1::RevokeRequest* request,
                                       v1::RevokeResponse* response) {
  return Reply(api_->Revoke(*request, Actor(*context)), response);
}

grpc::Status TargetGrpcService::LiftRevocation(grpc::ServerContext* context,
                                               const v1::LiftRevocationRequest* request,
                                               v1::LiftRevocationResponse* response) {
  return Reply(api_->LiftRevocation(*request, Actor(*context)), response);
}

grpc::Status TargetGrpcService::ConfirmRollout(grpc::ServerContext* context,
                                               const v1::ConfirmRolloutRequest* request,
                                               v1::ConfirmRolloutResponse* response) {
  return Reply(api_->ConfirmRollout(*request, Actor(*context)), response);
}

grpc::Status TargetGrpcService::GetTarget(grpc::ServerContext*,
                                          const v1::GetTargetRequest* request,
                                          v1::GetTargetResponse* response) {
  return Reply(api_->GetTarget(*request), response);
}

grpc::Status TargetGrpcService::ListTargets(grpc::ServerContext*,
                                            const v1::ListTargetsRequest* request,
                                            v1::ListTargetsResponse* response) {
  return Reply(api_->ListTargets(*request), response);
}

grpc::Status TargetGrpcService::WatchTargets(
    grpc::ServerContext* context, const v1::WatchTargetsRequest* request,
    grpc::ServerWriter<v1::WatchTargetsResponse>* writer) {
  absl::StatusOr<std::unique_ptr<TargetWatch>> watch = api_->WatchTargets(*request);
  if (!watch.ok()) return ToGrpcStatus(watch.status());
  while (true) {
    if (context->IsCancelled()) {
      return grpc::Status(grpc::StatusCode::CANCELLED, "watch: the client cancelled");
    }
    if (api_->stopping()) {
      return grpc::Status(grpc::StatusCode::UNAVAILABLE,
                          "watch: the server is shutting down; resume with after_seq");
    }
    absl::StatusOr<std::optional<v1::WatchTargetsResponse>> item =
        (*watch)->Next(kWatchPollSlice);
    if (!item.ok()) return ToGrpcStatus(item.status());
    if (!item->has_value()) continue;
    if (!writer->Write(**item)) {
      return grpc::Status(grpc::StatusCode::CANCELLED, "watch: the client went away");
    }
  }
}

}  // namespace credledger::service
