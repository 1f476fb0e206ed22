// AuditGrpcService: the gRPC face of AuditApi (service AuditService in
// proto/credledger/v1/api.proto). Every handler checks the caller against the authorization
// policy (call_authorizer.h), calls AuditApi and maps its status one to one (grpc_status.h).
// ExportEvents holds its handler thread for the length of the export and stops when the
// client goes away.
//
// Thread-safety: thread-safe (AuditApi is).
#pragma once

#include <grpcpp/grpcpp.h>

#include "credledger/v1/api.grpc.pb.h"
#include "service/grpc/auth/call_authorizer.h"
#include "service/offline/audit_api.h"

namespace credledger::service {

class AuditGrpcService final : public v1::AuditService::Service {
 public:
  // `api` and `authorizer` are not owned and must outlive the service.
  AuditGrpcService(AuditApi* api, const CallAuthorizer* authorizer)
      : api_(api), authorizer_(authorizer) {}

  grpc::Status ExportEvents(grpc::ServerContext* context,
                            const v1::ExportEventsRequest* request,
                            grpc::ServerWriter<v1::ExportEventsResponse>* writer) override;
  grpc::Status GetStateAt(grpc::ServerContext* context, const v1::GetStateAtRequest* request,
                          v1::GetStateAtResponse* response) override;
  grpc::Status Timeline(grpc::ServerContext* context, const v1::TimelineRequest* request,
                        v1::TimelineResponse* response) override;
  grpc::Status Diff(grpc::ServerContext* context, const v1::DiffRequest* request,
                    v1::DiffResponse* response) override;
  grpc::Status ValidCredentialsAt(grpc::ServerContext* context,
                                  const v1::ValidCredentialsAtRequest* request,
                                  v1::ValidCredentialsAtResponse* response) override;

 private:
  AuditApi* const api_;
  const CallAuthorizer* const authorizer_;
};

}  // namespace credledger::service
