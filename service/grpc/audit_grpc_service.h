// AuditGrpcService: the gRPC face of AuditApi (service AuditService in
// proto/credledger/v1/api.proto) on gRPC's callback API (grpc_handlers.h): every handler
// checks the caller against the authorization policy and, for a caller confined to Targets,
// that it names one of them (call_authorizer.h), then reads the log on the log pool and maps
// AuditApi's status one to one (grpc_status.h). ExportEvents is a stream that holds no thread:
// it reads a page of the log for each message the client takes.
//
// Thread-safety: thread-safe (AuditApi is).
#pragma once

#include <grpcpp/grpcpp.h>

#include "credledger/v1/api.grpc.pb.h"
#include "service/grpc/grpc_handlers.h"
#include "service/offline/audit_api.h"

namespace credledger::service {

class AuditGrpcService final : public v1::AuditService::CallbackService {
 public:
  // `api` and everything in `env` are not owned and must outlive the service. Every RPC
  // first asks env.authorizer whether the caller may call it (UNAUTHENTICATED or
  // PERMISSION_DENIED otherwise).
  AuditGrpcService(AuditApi* api, CallEnvironment env) : api_(api), env_(env) {}

  // An export answers from the whole log: a caller confined to Targets may not export.
  // Errors besides AuditApi::StartExport's: CANCELLED when the client went away,
  // UNAVAILABLE when the server shuts down, RESOURCE_EXHAUSTED when the stream limits are
  // reached (OpenStreams).
  grpc::ServerWriteReactor<v1::ExportEventsResponse>* ExportEvents(
      grpc::CallbackServerContext* context, const v1::ExportEventsRequest* request) override;
  grpc::ServerUnaryReactor* GetStateAt(grpc::CallbackServerContext* context,
                                       const v1::GetStateAtRequest* request,
                                       v1::GetStateAtResponse* response) override;
  grpc::ServerUnaryReactor* Timeline(grpc::CallbackServerContext* context,
                                     const v1::TimelineRequest* request,
                                     v1::TimelineResponse* response) override;
  grpc::ServerUnaryReactor* Diff(grpc::CallbackServerContext* context,
                                 const v1::DiffRequest* request,
                                 v1::DiffResponse* response) override;
  grpc::ServerUnaryReactor* ValidCredentialsAt(grpc::CallbackServerContext* context,
                                               const v1::ValidCredentialsAtRequest* request,
                                               v1::ValidCredentialsAtResponse* response) override;

 private:
  AuditApi* const api_;
  const CallEnvironment env_;
};

}  // namespace credledger::service
