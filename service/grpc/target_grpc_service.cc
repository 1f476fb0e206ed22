#include "service/grpc/target_grpc_service.h"

namespace credledger::service {
namespace {

constexpr char kTargetServiceName[] = "TargetService";

}  // namespace

grpc::ServerUnaryReactor* TargetGrpcService::RegisterTarget(
    grpc::CallbackServerContext* context, const v1::RegisterTargetRequest* request,
    v1::RegisterTargetResponse* response) {
  return ServeUnary<TargetCheck::kTarget>(context, env_, env_.log_work, kTargetServiceName,
                                          "RegisterTarget", request, response,
                                          [api = api_, request](const AuthorizedCaller& caller) {
                                            return api->RegisterTarget(*request, caller.actor);
                                          });
}

grpc::ServerUnaryReactor* TargetGrpcService::DeleteTarget(grpc::CallbackServerContext* context,
                                                          const v1::DeleteTargetRequest* request,
                                                          v1::DeleteTargetResponse* response) {
  return ServeUnary<TargetCheck::kTarget>(context, env_, env_.log_work, kTargetServiceName,
                                          "DeleteTarget", request, response,
                                          [api = api_, request](const AuthorizedCaller& caller) {
                                            return api->DeleteTarget(*request, caller.actor);
                                          });
}

grpc::ServerUnaryReactor* TargetGrpcService::RequestRotation(
    grpc::CallbackServerContext* context, const v1::RequestRotationRequest* request,
    v1::RequestRotationResponse* response) {
  return ServeUnary<TargetCheck::kTarget>(context, env_, env_.log_work, kTargetServiceName,
                                          "RequestRotation", request, response,
                                          [api = api_, request](const AuthorizedCaller& caller) {
                                            return api->RequestRotation(*request, caller.actor);
                                          });
}

grpc::ServerUnaryReactor* TargetGrpcService::Revoke(grpc::CallbackServerContext* context,
                                                    const v1::RevokeRequest* request,
                                                    v1::RevokeResponse* response) {
  return ServeUnary<TargetCheck::kTarget>(context, env_, env_.log_work, kTargetServiceName,
                                          "Revoke", request, response,
                                          [api = api_, request](const AuthorizedCaller& caller) {
                                            return api->Revoke(*request, caller.actor);
                                          });
}

grpc::ServerUnaryReactor* TargetGrpcService::LiftRevocation(
    grpc::CallbackServerContext* context, const v1::LiftRevocationRequest* request,
    v1::LiftRevocationResponse* response) {
  return ServeUnary<TargetCheck::kTarget>(context, env_, env_.log_work, kTargetServiceName,
                                          "LiftRevocation", request, response,
                                          [api = api_, request](const AuthorizedCaller& caller) {
                                            return api->LiftRevocation(*request, caller.actor);
                                          });
}

grpc::ServerUnaryReactor* TargetGrpcService::ConfirmRollout(
    grpc::CallbackServerContext* context, const v1::ConfirmRolloutRequest* request,
    v1::ConfirmRolloutResponse* response) {
  return ServeUnary<TargetCheck::kTarget>(context, env_, env_.log_work, kTargetServiceName,
                                          "ConfirmRollout", request, response,
                                          [api = api_, request](const AuthorizedCaller& caller) {
                                            return api->ConfirmRollout(*request, caller.actor);
                                          });
}

grpc::ServerUnaryReactor* TargetGrpcService::GetTarget(grpc::CallbackServerContext* context,
                                                       const v1::GetTargetRequest* request,
                                                       v1::GetTargetResponse* response) {
  return ServeUnary<TargetCheck::kTarget>(
      context, env_, /*pool=*/nullptr, kTargetServiceName, "GetTarget", request, response,
      [api = api_, request](const AuthorizedCaller&) { return api->GetTarget(*request); });
}

grpc::ServerUnaryReactor* TargetGrpcService::ListTargets(grpc::CallbackServerContext* context,
                                                         const v1::ListTargetsRequest* request,
                                                         v1::ListTargetsResponse* response) {
  return ServeUnary(context, env_, /*pool=*/nullptr, kTargetServiceName, "ListTargets", request,
                    response, [api = api_, request](const AuthorizedCaller& caller) {
                      return api->ListTargets(*request, caller.scope);
                    });
}

grpc::ServerWriteReactor<v1::WatchTargetsResponse>* TargetGrpcService::WatchTargets(
    grpc::CallbackServerContext* context, const v1::WatchTargetsRequest* request) {
  return ServeStream<TargetCheck::kNone, v1::WatchTargetsRequest, v1::WatchTargetsResponse>(
      context, env_, kTargetServiceName, "WatchTargets", request,
      [api = api_, request](const AuthorizedCaller& caller, std::function<void()> wake) {
        return AsSource<v1::WatchTargetsResponse>(
            api->WatchTargets(*request, caller.scope, std::move(wake)));
      });
}

}  // namespace credledger::service
