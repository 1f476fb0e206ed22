// TargetGrpcService: the gRPC face of TargetApi (service TargetService in
// proto/credledger/v1/api.proto). Synchronous handlers run on gRPC's thread pool and may
// block on the store; each handler establishes the caller (caller_identity.h),
// checks it against the authorization policy (call_authorizer.h), calls TargetApi and maps
// its status one to one (grpc_status.h).
//
// WatchTargets holds its handler thread for the life of the stream: it waits for items in
// short slices so that it notices a cancelled client or TargetApi::Stop promptly.
//
// Thread-safety: thread-safe (TargetApi is).
#pragma once

#include <grpcpp/grpcpp.h>

#include "credledger/v1/api.grpc.pb.h"
#include "service/api/target_api.h"
#include "service/grpc/auth/call_authorizer.h"

namespace credledger::service {

class TargetGrpcService final : public v1::TargetService::Service {
 public:
  // `api` and `authorizer` are not owned and must outlive the service. Every RPC first asks
  // `authorizer` whether the caller may call it (UNAUTHENTICATED or PERMISSION_DENIED
  // otherwise).
  TargetGrpcService(TargetApi* api, const CallAuthorizer* authorizer)
      : api_(api), authorizer_(authorizer) {}

  grpc::Status RegisterTarget(grpc::ServerContext* context,
                              const v1::RegisterTargetRequest* request,
                              v1::RegisterTargetResponse* response) override;
  grpc::Status DeleteTarget(grpc::ServerContext* context, const v1::DeleteTargetRequest* request,
                            v1::DeleteTargetResponse* response) override;
  grpc::Status RequestRotation(grpc::ServerContext* context,
                               const v1::RequestRotationRequest* request,
                               v1::RequestRotationResponse* response) override;
  grpc::Status Revoke(grpc::ServerContext* context, const v1::RevokeRequest* request,
                      v1::RevokeResponse* response) override;
  grpc::Status LiftRevocation(grpc::ServerContext* context,
                              const v1::LiftRevocationRequest* request,
                              v1::LiftRevocationResponse* response) override;
  grpc::Status ConfirmRollout(grpc::ServerContext* context,
                              const v1::ConfirmRolloutRequest* request,
                              v1::ConfirmRolloutResponse* response) override;
  grpc::Status GetTarget(grpc::ServerContext* context, const v1::GetTargetRequest* request,
                         v1::GetTargetResponse* response) override;
  grpc::Status ListTargets(grpc::ServerContext* context, const v1::ListTargetsRequest* request,
                           v1::ListTargetsResponse* response) override;
  // Errors besides TargetApi::WatchTargets's: CANCELLED when the client went away,
  // UNAVAILABLE when the server shuts down, RESOURCE_EXHAUSTED when the client fell behind.
  grpc::Status WatchTargets(grpc::ServerContext* context,
                            const v1::WatchTargetsRequest* request,
                            grpc::ServerWriter<v1::WatchTargetsResponse>* writer) override;

 private:
  TargetApi* const api_;
  const CallAuthorizer* const authorizer_;
};

}  // namespace credledger::service
