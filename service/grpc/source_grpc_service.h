// SourceGrpcService: the gRPC face of SourceApi (service SourceService in
// proto/credledger/v1/api.proto). The synchronous handler runs on gRPC's thread pool and
// blocks for the verification (up to the verifier's timeout) and the append; it establishes the
// caller (caller_identity.h), checks it against the authorization policy
// (call_authorizer.h), calls SourceApi and maps its status one to one (grpc_status.h).
//
// Thread-safety: thread-safe (SourceApi is).
#pragma once

#include <grpcpp/grpcpp.h>

#include "credledger/v1/api.grpc.pb.h"
#include "service/api/source_api.h"
#include "service/grpc/auth/call_authorizer.h"

namespace credledger::service {

class SourceGrpcService final : public v1::SourceService::Service {
 public:
  // `api` and `authorizer` are not owned and must outlive the service. The RPC first asks
  // `authorizer` whether the caller may call it (UNAUTHENTICATED or PERMISSION_DENIED
  // otherwise).
  SourceGrpcService(SourceApi* api, const CallAuthorizer* authorizer)
      : api_(api), authorizer_(authorizer) {}

  grpc::Status VerifySource(grpc::ServerContext* context, const v1::VerifySourceRequest* request,
                            v1::VerifySourceResponse* response) override;

 private:
  SourceApi* const api_;
  const CallAuthorizer* const authorizer_;
};

}  // namespace credledger::service
