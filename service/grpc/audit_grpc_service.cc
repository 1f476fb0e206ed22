#include "service/grpc/audit_grpc_service.h"

#include "service/grpc/grpc_handlers.h"

namespace credledger::service {
namespace {

constexpr char kAuditServiceName[] = "AuditService";

}  // namespace

grpc::Status AuditGrpcService::ExportEvents(grpc::ServerContext* context,
                                            const v1::ExportEventsRequest* request,
                                            grpc::ServerWriter<v1::ExportEventsResponse>* writer) {
  if (absl::StatusOr<AuthorizedCaller> caller =
          authorizer_->Authorize(*context, kAuditServiceName, "ExportEvents");
      !caller.ok()) {
    return ToGrpcStatus(caller.status());
  }
  return ToGrpcStatus(api_->ExportEvents(*request, [&](const v1::ExportEventsResponse& batch) {
    return !context->IsCancelled() && writer->Write(batch);
  }));
}

grpc::Status AuditGrpcService::GetStateAt(grpc::ServerContext* context,
                                          const v1::GetStateAtRequest* request,
                                          v1::GetStateAtResponse* response) {
  return AuthorizeAndReply(
      *context, *authorizer_, kAuditServiceName, "GetStateAt",
      [&](const AuthorizedCaller&) { return api_->GetStateAt(*request); }, response);
}

grpc::Status AuditGrpcService::Timeline(grpc::ServerContext* context,
                                        const v1::TimelineRequest* request,
                                        v1::TimelineResponse* response) {
  return AuthorizeAndReply(
      *context, *authorizer_, kAuditServiceName, "Timeline",
      [&](const AuthorizedCaller&) { return api_->Timeline(*request); }, response);
}

grpc::Status AuditGrpcService::Diff(grpc::ServerContext* context, const v1::DiffRequest* request,
                                    v1::DiffResponse* response) {
  return AuthorizeAndReply(
      *context, *authorizer_, kAuditServiceName, "Diff",
      [&](const AuthorizedCaller&) { return api_->Diff(*request); }, response);
}

grpc::Status AuditGrpcService::ValidCredentialsAt(grpc::ServerContext* context,
                                                  const v1::ValidCredentialsAtRequest* request,
                                                  v1::ValidCredentialsAtResponse* response) {
  return AuthorizeAndReply(
      *context, *authorizer_, kAuditServiceName, "ValidCredentialsAt",
      [&](const AuthorizedCaller&) { return api_->ValidCredentialsAt(*request); }, response);
}

}  // namespace credledger::service
