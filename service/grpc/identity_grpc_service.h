// IdentityGrpcService: the gRPC face of IdentityApi (service IdentityService in
// proto/credledger/v1/api.proto). Synchronous handlers run on gRPC's thread pool and may
// block on the store and on the access review; each handler establishes the caller
// (caller_identity.h) and checks it against the authorization policy (call_authorizer.h), calls
// IdentityApi and maps its status one to one (grpc_status.h).
//
// Thread-safety: thread-safe (IdentityApi is).
#pragma once

#include <grpcpp/grpcpp.h>

#include "credledger/v1/api.grpc.pb.h"
#include "service/api/identity_api.h"
#include "service/grpc/auth/call_authorizer.h"

namespace credledger::service {

class IdentityGrpcService final : public v1::IdentityService::Service {
 public:
  // `api` and `authorizer` are not owned and must outlive the service. Every RPC first asks
  // `authorizer` whether the caller may call it (UNAUTHENTICATED or PERMISSION_DENIED
  // otherwise).
  IdentityGrpcService(IdentityApi* api, const CallAuthorizer* authorizer)
      : api_(api), authorizer_(authorizer) {}

  grpc::Status CreateIdentity(grpc::ServerContext* context,
                              const v1::CreateIdentityRequest* request,
                              v1::IdentityChangeResponse* response) override;
  grpc::Status UpdateIdentity(grpc::ServerContext* context,
                              const v1::UpdateIdentityRequest* request,
                              v1::IdentityChangeResponse* response) override;
  grpc::Status DeleteIdentity(grpc::ServerContext* context,
                              const v1::DeleteIdentityRequest* request,
                              v1::IdentityChangeResponse* response) override;
  grpc::Status BindIdentity(grpc::ServerContext* context, const v1::BindIdentityRequest* request,
                            v1::IdentityChangeResponse* response) override;
  grpc::Status UnbindIdentity(grpc::ServerContext* context,
                              const v1::UnbindIdentityRequest* request,
                              v1::IdentityChangeResponse* response) override;
  grpc::Status GetIdentity(grpc::ServerContext* context, const v1::GetIdentityRequest* request,
                           v1::GetIdentityResponse* response) override;
  grpc::Status ListIdentities(grpc::ServerContext* context,
                              const v1::ListIdentitiesRequest* request,
                              v1::ListIdentitiesResponse* response) override;
  grpc::Status ListMirrors(grpc::ServerContext* context, const v1::ListMirrorsRequest* request,
                           v1::ListMirrorsResponse* response) override;

 private:
  IdentityApi* const api_;
  const CallAuthorizer* const authorizer_;
};

}  // namespace credledger::service
