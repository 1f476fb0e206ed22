// TargetGrpcService: the gRPC face of TargetApi (service TargetService in
// proto/credledger/v1/api.proto) on gRPC's callback API (grpc_handlers.h): each handler
// establishes the caller (caller_identity.h), checks it against the authorization policy and
// the Target scope (call_authorizer.h), calls TargetApi and maps its status one to one
// (grpc_status.h). Commands run on the log pool; GetTarget and ListTargets read the projector
// on the gRPC thread; WatchTargets is a stream that holds no thread.
//
// Thread-safety: thread-safe (TargetApi is).
#pragma once

#include <grpcpp/grpcpp.h>

#include "credledger/v1/api.grpc.pb.h"
#include "service/api/target_api.h"
#include "service/grpc/grpc_handlers.h"

namespace credledger::service {

class TargetGrpcService final : public v1::TargetService::CallbackService {
 public:
  // `api` and everything in `env` are not owned and must outlive the service. Every RPC first
  // asks env.authorizer whether the caller may call it (UNAUTHENTICATED or PERMISSION_DENIED
  // otherwise).
  TargetGrpcService(TargetApi* api, CallEnvironment env) : api_(api), env_(env) {}

  grpc::ServerUnaryReactor* RegisterTarget(grpc::CallbackServerContext* context,
                                           const v1::RegisterTargetRequest* request,
                                           v1::RegisterTargetResponse* response) override;
  grpc::ServerUnaryReactor* DeleteTarget(grpc::CallbackServerContext* context,
                                         const v1::DeleteTargetRequest* request,
                                         v1::DeleteTargetResponse* response) override;
  grpc::ServerUnaryReactor* RequestRotation(grpc::CallbackServerContext* context,
                                            const v1::RequestRotationRequest* request,
                                            v1::RequestRotationResponse* response) override;
  grpc::ServerUnaryReactor* Revoke(grpc::CallbackServerContext* context,
                                   const v1::RevokeRequest* request,
                                   v1::RevokeResponse* response) override;
  grpc::ServerUnaryReactor* LiftRevocation(grpc::CallbackServerContext* context,
                                           const v1::LiftRevocationRequest* request,
                                           v1::LiftRevocationResponse* response) override;
  grpc::ServerUnaryReactor* ConfirmRollout(grpc::CallbackServerContext* context,
                                           const v1::ConfirmRolloutRequest* request,
                                           v1::ConfirmRolloutResponse* response) override;
  grpc::ServerUnaryReactor* GetTarget(grpc::CallbackServerContext* context,
                                      const v1::GetTargetRequest* request,
                                      v1::GetTargetResponse* response) override;
  grpc::ServerUnaryReactor* ListTargets(grpc::CallbackServerContext* context,
                                        const v1::ListTargetsRequest* request,
                                        v1::ListTargetsResponse* response) override;
  // Errors besides TargetApi::WatchTargets's: CANCELLED when the client went away,
  // UNAVAILABLE when the server shuts down, RESOURCE_EXHAUSTED when the client fell behind
  // or the stream limits are reached (OpenStreams).
  grpc::ServerWriteReactor<v1::WatchTargetsResponse>* WatchTargets(
      grpc::CallbackServerContext* context, const v1::WatchTargetsRequest* request) override;

 private:
  TargetApi* const api_;
  const CallEnvironment env_;
};

}  // namespace credledger::service
