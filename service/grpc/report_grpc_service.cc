#include "service/grpc/report_grpc_service.h"

#include "service/grpc/grpc_handlers.h"

namespace credledger::service {
namespace {

constexpr char kReportServiceName[] = "ReportService";

}  // namespace

grpc::Status ReportGrpcService::PushReport(grpc::ServerContext* context,
                                           const v1::PushReportRequest* request,
                                           v1::PushReportResponse* response) {
  return AuthorizeTargetAndReply(
      *context, *authorizer_, kReportServiceName, "PushReport", *request,
      [&](const AuthorizedCaller& caller) { return api_->PushReport(*request, caller.actor); },
      response);
}

grpc::Status ReportGrpcService::SetBoundReleases(grpc::ServerContext* context,
                                                 const v1::SetBoundReleasesRequest* request,
                                                 v1::SetBoundReleasesResponse* response) {
  return AuthorizeTargetAndReply(
      *context, *authorizer_, kReportServiceName, "SetBoundReleases", *request,
      [&](const AuthorizedCaller& caller) {
        return api_->SetBoundReleases(*request, caller.actor);
      },
      response);
}

grpc::Status ReportGrpcService::GetTargetStatus(grpc::ServerContext* context,
                                                const v1::GetTargetStatusRequest* request,
                                                v1::GetTargetStatusResponse* response) {
  return AuthorizeTargetAndReply(
      *context, *authorizer_, kReportServiceName, "GetTargetStatus", *request,
      [&](const AuthorizedCaller&) { return api_->GetTargetStatus(*request); }, response);
}

grpc::Status ReportGrpcService::ListFleetStatus(grpc::ServerContext* context,
                                                const v1::ListFleetStatusRequest* request,
                                                v1::ListFleetStatusResponse* response) {
  return AuthorizeAndReply(
      *context, *authorizer_, kReportServiceName, "ListFleetStatus",
      [&](const AuthorizedCaller& caller) { return api_->ListFleetStatus(*request, caller.scope); },
      response);
}

grpc::Status ReportGrpcService::WatchFleet(grpc::ServerContext* context,
                                           const v1::WatchFleetRequest* request,
                                           grpc::ServerWriter<v1::WatchFleetResponse>* writer) {
  absl::StatusOr<AuthorizedCaller> caller =
      authorizer_->Authorize(*context, kReportServiceName, "WatchFleet");
  if (!caller.ok()) return ToGrpcStatus(caller.status());
  return ServeWatch(context, api_->WatchFleet(*request, caller->scope), writer,
                    [this] { return api_->stopping(); });
}

}  // namespace credledger::service
