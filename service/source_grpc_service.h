// SourceGrpcService: the gRPC face of SourceApi (service SourceService in
// proto/credledger/v1/api.proto). The synchronous handler runs on gRPC's thread pool and
// blocks for the verification (up to the verifier's timeout) and the append; it takes the
// caller's actor from request metadata `credledger-actor`, checks it against the
// authorization policy, calls SourceApi and maps its status one to one (grpc_status.h).
//
// Thread-safety: thread-safe (SourceApi is).
#pragma once

#include <grpcpp/grpcpp.h>

#include "credledger/v1/api.grpc.pb.h"
#include "service/authorization_policy.h"
#include "service/source_api.h"

namespace credledger::service {

class SourceGrpcService final : public v1::SourceService::Service {
 public:
  // `api` and `policy` are not owned and must outlive the service. The RPC first asks
  // `policy` whether the caller may call it (PERMISSION_DENIED otherwise).
  SourceGrpcService(SourceApi* api, const AuthorizationPolicy* policy)
      : api_(api), policy_(policy) {}

  grpc::Status VerifySource(grpc::ServerContext* context, const v1::VerifySourceRequest* request,
                            v1::VerifySourceResponse* response) override;

 private:
  SourceApi* const api_;
  const AuthorizationPolicy* const policy_;
};

}  // namespace credledger::service
