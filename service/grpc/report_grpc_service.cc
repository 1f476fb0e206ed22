#include "service/grpc/report_grpc_service.h"

#include "service/grpc/grpc_handlers.h"

namespace credledger::service {
namespace {

constexpr char kReportServiceName[] = "ReportService";

}  // namespace

grpc::Status ReportGrpcService::PushReport(grpc::ServerContext* context,
                                           const v1::PushReportRequest* request,
                                           v1::PushReportResponse* response) {
  return AuthorizeAndReply(
      *context, *authorizer_, kReportServiceName, "PushReport",
      [&](const std::string& actor) { return api_->PushReport(*request, actor); }, response);
}

grpc::Status ReportGrpcService::SetBoundReleases(grpc::ServerContext* context,
                                                 const v1::SetBoundReleasesRequest* request,
                                                 v1::SetBoundReleasesResponse* response) {
  return AuthorizeAndReply(
      *context, *authorizer_, kReportServiceName, "SetBoundReleases",
      [&](const std::string& actor) { return api_->SetBoundReleases(*request, actor); },
      response);
}

grpc::Status ReportGrpcService::GetTargetStatus(grpc::ServerContext* context,
                                                const v1::GetTargetStatusRequest* request,
                                                v1::GetTargetStatusResponse* response) {
  return AuthorizeAndReply(
      *context, *authorizer_, kReportServiceName, "GetTargetStatus",
      [&](const std::string&) { return api_->GetTargetStatus(*request); }, response);
}

grpc::Status ReportGrpcService::ListFleetStatus(grpc::ServerContext* context,
                                                const v1::ListFleetStatusRequest* request,
                                                v1::ListFleetStatusResponse* response) {
  return AuthorizeAndReply(
      *context, *authorizer_, kReportServiceName, "ListFleetStatus",
      [&](const std::string&) { return api_->ListFleetStatus(*request); }, response);
}

grpc::Status ReportGrpcService::WatchFleet(grpc::ServerContext* context,
                                           const v1::WatchFleetRequest* request,
                                           grpc::ServerWriter<v1::WatchFleetResponse>* writer) {
  if (absl::StatusOr<std::string> caller =
          Authorize(*context, *authorizer_, kReportServiceName, "WatchFleet");
      !caller.ok()) {
    return ToGrpcStatus(caller.status());
  }
  return ServeWatch(context, api_->WatchFleet(*request), writer,
                    [this] { return api_->stopping(); });
}

}  // namespace credledger::service
