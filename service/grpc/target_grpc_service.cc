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
  return AuthorizeTargetAndReply(
      *context, *authorizer_, kTargetServiceName, "RegisterTarget", *request,
      [&](const AuthorizedCaller& caller) { return api_->RegisterTarget(*request, caller.actor); },
      response);
}

grpc::Status TargetGrpcService::DeleteTarget(grpc::ServerContext* context,
                                             const v1::DeleteTargetRequest* request,
                                             v1::DeleteTargetResponse* response) {
  return AuthorizeTargetAndReply(
      *context, *authorizer_, kTargetServiceName, "DeleteTarget", *request,
      [&](const AuthorizedCaller& caller) { return api_->DeleteTarget(*request, caller.actor); },
      response);
}

grpc::Status TargetGrpcService::RequestRotation(grpc::ServerContext* context,
                                                const v1::RequestRotationRequest* request,
                                                v1::RequestRotationResponse* response) {
  return AuthorizeTargetAndReply(
      *context, *authorizer_, kTargetServiceName, "RequestRotation", *request,
      [&](const AuthorizedCaller& caller) { return api_->RequestRotation(*request, caller.actor); },
      response);
}

grpc::Status TargetGrpcService::Revoke(grpc::ServerContext* context,
                                       const v1::RevokeRequest* request,
                                       v1::RevokeResponse* response) {
  return AuthorizeTargetAndReply(
      *context, *authorizer_, kTargetServiceName, "Revoke", *request,
      [&](const AuthorizedCaller& caller) { return api_->Revoke(*request, caller.actor); },
      response);
}

grpc::Status TargetGrpcService::LiftRevocation(grpc::ServerContext* context,
                                               const v1::LiftRevocationRequest* request,
                                               v1::LiftRevocationResponse* response) {
  return AuthorizeTargetAndReply(
      *context, *authorizer_, kTargetServiceName, "LiftRevocation", *request,
      [&](const AuthorizedCaller& caller) { return api_->LiftRevocation(*request, caller.actor); },
      response);
}

grpc::Status TargetGrpcService::ConfirmRollout(grpc::ServerContext* context,
                                               const v1::ConfirmRolloutRequest* request,
                                               v1::ConfirmRolloutResponse* response) {
  return AuthorizeTargetAndReply(
      *context, *authorizer_, kTargetServiceName, "ConfirmRollout", *request,
      [&](const AuthorizedCaller& caller) { return api_->ConfirmRollout(*request, caller.actor); },
      response);
}

grpc::Status TargetGrpcService::GetTarget(grpc::ServerContext* context,
                                          const v1::GetTargetRequest* request,
                                          v1::GetTargetResponse* response) {
  return AuthorizeTargetAndReply(
      *context, *authorizer_, kTargetServiceName, "GetTarget", *request,
      [&](const AuthorizedCaller&) { return api_->GetTarget(*request); }, response);
}

grpc::Status TargetGrpcService::ListTargets(grpc::ServerContext* context,
                                            const v1::ListTargetsRequest* request,
                                            v1::ListTargetsResponse* response) {
  return AuthorizeAndReply(
      *context, *authorizer_, kTargetServiceName, "ListTargets",
      [&](const AuthorizedCaller& caller) { return api_->ListTargets(*request, caller.scope); },
      response);
}

grpc::Status TargetGrpcService::WatchTargets(grpc::ServerContext* context,
                                             const v1::WatchTargetsRequest* request,
                                             grpc::ServerWriter<v1::WatchTargetsResponse>* writer) {
  absl::StatusOr<AuthorizedCaller> caller =
      authorizer_->Authorize(*context, kTargetServiceName, "WatchTargets");
  if (!caller.ok()) return ToGrpcStatus(caller.status());
  return ServeWatch(context, api_->WatchTargets(*request, caller->scope), writer,
                    [this] { return api_->stopping(); });
}

}  // namespace credledger::service
