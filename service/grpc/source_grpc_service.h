// SourceGrpcService: the gRPC face of SourceApi (service SourceService in
// proto/credledger/v1/api.proto) on gRPC's callback API (grpc_handlers.h): the handler
// establishes the caller (caller_identity.h), checks it against the authorization policy
// (call_authorizer.h), and on the remote pool waits for the verification (up to the
// verifier's timeout) and the append, mapping SourceApi's status one to one (grpc_status.h).
//
// Thread-safety: thread-safe (SourceApi is).
#pragma once

#include <grpcpp/grpcpp.h>

#include "credledger/v1/api.grpc.pb.h"
#include "service/api/source_api.h"
#include "service/grpc/grpc_handlers.h"

namespace credledger::service {

class SourceGrpcService final : public v1::SourceService::CallbackService {
 public:
  // `api` and everything in `env` are not owned and must outlive the service. Every RPC
  // first asks env.authorizer whether the caller may call it (UNAUTHENTICATED or
  // PERMISSION_DENIED otherwise).
  SourceGrpcService(SourceApi* api, CallEnvironment env) : api_(api), env_(env) {}

  grpc::ServerUnaryReactor* VerifySource(grpc::CallbackServerContext* context,
                                         const v1::VerifySourceRequest* request,
                                         v1::VerifySourceResponse* response) override;

 private:
  SourceApi* const api_;
  const CallEnvironment env_;
};

}  // namespace credledger::service
