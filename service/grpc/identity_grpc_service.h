// IdentityGrpcService: the gRPC face of IdentityApi (service IdentityService in
// proto/credledger/v1/api.proto) on gRPC's callback API (grpc_handlers.h): each handler
// establishes the caller (caller_identity.h), checks it against the authorization policy
// (call_authorizer.h), calls IdentityApi and maps its status one to one (grpc_status.h).
// CreateIdentity and UpdateIdentity may wait on an access review of the home cluster and run
// on the remote pool; the other changes on the log pool; reads answer on the gRPC thread.
//
// Thread-safety: thread-safe (IdentityApi is).
#pragma once

#include <grpcpp/grpcpp.h>

#include "credledger/v1/api.grpc.pb.h"
#include "service/api/identity_api.h"
#include "service/grpc/grpc_handlers.h"

namespace credledger::service {

class IdentityGrpcService final : public v1::IdentityService::CallbackService {
 public:
  // `api` and everything in `env` are not owned and must outlive the service. Every RPC
  // first asks env.authorizer whether the caller may call it (UNAUTHENTICATED or
  // PERMISSION_DENIED otherwise).
  IdentityGrpcService(IdentityApi* api, CallEnvironment env) : api_(api), env_(env) {}

  grpc::ServerUnaryReactor* CreateIdentity(grpc::CallbackServerContext* context,
                                           const v1::CreateIdentityRequest* request,
                                           v1::IdentityChangeResponse* response) override;
  grpc::ServerUnaryReactor* UpdateIdentity(grpc::CallbackServerContext* context,
                                           const v1::UpdateIdentityRequest* request,
                                           v1::IdentityChangeResponse* response) override;
  grpc::ServerUnaryReactor* DeleteIdentity(grpc::CallbackServerContext* context,
                                           const v1::DeleteIdentityRequest* request,
                                           v1::IdentityChangeResponse* response) override;
  grpc::ServerUnaryReactor* BindIdentity(grpc::CallbackServerContext* context,
                                         const v1::BindIdentityRequest* request,
                                         v1::IdentityChangeResponse* response) override;
  grpc::ServerUnaryReactor* UnbindIdentity(grpc::CallbackServerContext* context,
                                           const v1::UnbindIdentityRequest* request,
                                           v1::IdentityChangeResponse* response) override;
  grpc::ServerUnaryReactor* GetIdentity(grpc::CallbackServerContext* context,
                                        const v1::GetIdentityRequest* request,
                                        v1::GetIdentityResponse* response) override;
  grpc::ServerUnaryReactor* ListIdentities(grpc::CallbackServerContext* context,
                                           const v1::ListIdentitiesRequest* request,
                                           v1::ListIdentitiesResponse* response) override;
  grpc::ServerUnaryReactor* ListMirrors(grpc::CallbackServerContext* context,
                                        const v1::ListMirrorsRequest* request,
                                        v1::ListMirrorsResponse* response) override;

 private:
  IdentityApi* const api_;
  const CallEnvironment env_;
};

}  // namespace credledger::service
