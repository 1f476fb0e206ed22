#include "service/grpc/audit_grpc_service.h"

#include "service/grpc/grpc_handlers.h"

namespace credledger::service {
namespace {

constexpr char kAuditServiceName[] = "AuditService";

}  // namespace

grpc::Status AuditGrpcService::ExportEvents(grpc::ServerContext* context,
                                            const v1::ExportEventsRequest* request,
                                            grpc::ServerWriter<v1::ExportEventsResponse>* writer) {
  absl::StatusOr<AuthorizedCaller> caller =
      authorizer_->Authorize(*context, kAuditServiceName, "ExportEvents");
  if (!caller.ok()) return ToGrpcStatus(caller.status());
  // An export answers from the whole log: a caller confined to Targets may not export.
  if (absl::Status in_scope =
          authorizer_->CheckOneTarget(*caller, kAuditServiceName, "ExportEvents", "", "");
      !in_scope.ok()) {
    return ToGrpcStatus(in_scope);
  }
  return ToGrpcStatus(api_->ExportEvents(*request, [&](const v1::ExportEventsResponse& batch) {
    return !context->IsCancelled() && writer->Write(batch);
  }));
}

grpc::Status AuditGrpcService::GetStateAt(grpc::ServerContext* context,
                                          const v1::GetStateAtRequest* request,
                                          v1::GetStateAtResponse* response) {
  return AuthorizeOneTargetAndReply(
      *context, *authorizer_, kAuditServiceName, "GetStateAt", *request,
      [&](const AuthorizedCaller&) { return api_->GetStateAt(*request); }, response);
}

grpc::Status AuditGrpcService::Timeline(grpc::ServerContext* context,
                                        const v1::TimelineRequest* request,
                                        v1::TimelineResponse* response) {
  return AuthorizeOneTargetAndReply(
      *context, *authorizer_, kAuditServiceName, "Timeline", *request,
      [&](const AuthorizedCaller&) { return api_->Timeline(*request); }, response);
}

grpc::Status AuditGrpcService::Diff(grpc::ServerContext* context, const v1::DiffRequest* request,
                                    v1::DiffResponse* response) {
  return AuthorizeOneTargetAndReply(
      *context, *authorizer_, kAuditServiceName, "Diff", *request,
      [&](const AuthorizedCaller&) { return api_->Diff(*request); }, response);
}

grpc::Status AuditGrpcService::ValidCredentialsAt(grpc::ServerContext* context,
                                                  const v1::ValidCredentialsAtRequest* request,
                                                  v1::ValidCredentialsAtResponse* response) {
  return AuthorizeOneTargetAndReply(
      *context, *authorizer_, kAuditServiceName, "ValidCredentialsAt", *request,
      [&](const AuthorizedCaller&) { return api_->ValidCredentialsAt(*request); }, response);
}

}  // namespace credledger::service
