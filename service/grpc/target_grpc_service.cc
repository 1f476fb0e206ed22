#include "service/grpc/target_grpc_service.h"

#include <string>
#include <utility>

#include "service/grpc/grpc_handlers.h"

namespace credledger::service {
namespace {

constexpr char kTargetServiceName[] = "TargetService";

}  // namespace

grpc::Status TargetGrpcService::RegisterTarget(grpc::ServerContext* context,
                                               const v1::RegisterTargetRequest* request,
                                               v1::RegisterTargetResponse* response) {
  return AuthorizeAndReply(
      *context, *authorizer_, kTargetServiceName, "RegisterTarget",
      [&](const std::string& actor) { return api_->RegisterTarget(*request, actor); }, response);
}

grpc::Status TargetGrpcService::DeleteTarget(grpc::ServerContext* context,
                                             const v1::DeleteTargetRequest* request,
                                             v1::DeleteTargetResponse* response) {
  return AuthorizeAndReply(
      *context, *authorizer_, kTargetServiceName, "DeleteTarget",
      [&](const std::string& actor) { return api_->DeleteTarget(*request, actor); }, response);
}

grpc::Status TargetGrpcService::RequestRotation(grpc::ServerContext* context,
                                                const v1::RequestRotationRequest* request,
                                                v1::RequestRotationResponse* response) {
  return AuthorizeAndReply(
      *context, *authorizer_, kTargetServiceName, "RequestRotation",
      [&](const std::string& actor) { return api_->RequestRotation(*request, actor); }, response);
}

grpc::Status TargetGrpcService::Revoke(grpc::ServerContext* context,
                                       const v1::RevokeRequest* request,
                                       v1::RevokeResponse* response) {
  return AuthorizeAndReply(
      *context, *authorizer_, kTargetServiceName, "Revoke",
      [&](const std::string& actor) { return api_->Revoke(*request, actor); }, response);
}

grpc::Status TargetGrpcService::LiftRevocation(grpc::ServerContext* context,
                                               const v1::LiftRevocationRequest* request,
                                               v1::LiftRevocationResponse* response) {
  return AuthorizeAndReply(
      *context, *authorizer_, kTargetServiceName, "LiftRevocation",
      [&](const std::string& actor) { return api_->LiftRevocation(*request, actor); }, response);
}

grpc::Status TargetGrpcService::ConfirmRollout(grpc::ServerContext* context,
                                               const v1::ConfirmRolloutRequest* request,
                                               v1::ConfirmRolloutResponse* response) {
  return AuthorizeAndReply(
      *context, *authorizer_, kTargetServiceName, "ConfirmRollout",
      [&](const std::string& actor) { return api_->ConfirmRollout(*request, actor); }, response);
}

grpc::Status TargetGrpcService::GetTarget(grpc::ServerContext* context,
                                          const v1::GetTargetRequest* request,
                                          v1::GetTargetResponse* response) {
  return AuthorizeAndReply(
      *context, *authorizer_, kTargetServiceName, "GetTarget",
      [&](const std::string&) { return api_->GetTarget(*request); }, response);
}

grpc::Status TargetGrpcService::ListTargets(grpc::ServerContext* context,
                                            const v1::ListTargetsRequest* request,
                                            v1::ListTargetsResponse* response) {
  return AuthorizeAndReply(
      *context, *authorizer_, kTargetServiceName, "ListTargets",
      [&](const std::string&) { return api_->ListTargets(*request); }, response);
}

grpc::Status TargetGrpcService::WatchTargets(
    grpc::ServerContext* context, const v1::WatchTargetsRequest* request,
    grpc::ServerWriter<v1::WatchTargetsResponse>* writer) {
  if (absl::StatusOr<std::string> caller =
          Authorize(*context, *authorizer_, kTargetServiceName, "WatchTargets");
      !caller.ok()) {
    return ToGrpcStatus(caller.status());
  }
  return ServeWatch(context, api_->WatchTargets(*request), writer,
                    [this] { return api_->stopping(); });
}

}  // namespace credledger::service
