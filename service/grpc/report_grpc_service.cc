#include "service/grpc/report_grpc_service.h"

#include <functional>
#include <utility>

namespace credledger::service {
namespace {

constexpr char kReportServiceName[] = "ReportService";

}  // namespace

grpc::ServerUnaryReactor* ReportGrpcService::PushReport(grpc::CallbackServerContext* context,
                                                        const v1::PushReportRequest* request,
                                                        v1::PushReportResponse* response) {
  return ServeUnary<TargetCheck::kTarget>(context, env_, env_.log_work, kReportServiceName,
                                          "PushReport", request, response,
                                          [api = api_, request](const AuthorizedCaller& caller) {
                                            return api->PushReport(*request, caller.actor);
                                          });
}

grpc::ServerUnaryReactor* ReportGrpcService::SetBoundReleases(
    grpc::CallbackServerContext* context, const v1::SetBoundReleasesRequest* request,
    v1::SetBoundReleasesResponse* response) {
  return ServeUnary<TargetCheck::kTarget>(context, env_, env_.log_work, kReportServiceName,
                                          "SetBoundReleases", request, response,
                                          [api = api_, request](const AuthorizedCaller& caller) {
                                            return api->SetBoundReleases(*request, caller.actor);
                                          });
}

grpc::ServerUnaryReactor* ReportGrpcService::GetTargetStatus(
    grpc::CallbackServerContext* context, const v1::GetTargetStatusRequest* request,
    v1::GetTargetStatusResponse* response) {
  return ServeUnary<TargetCheck::kTarget>(
      context, env_, /*pool=*/nullptr, kReportServiceName, "GetTargetStatus", request, response,
      [api = api_, request](const AuthorizedCaller&) { return api->GetTargetStatus(*request); });
}

grpc::ServerUnaryReactor* ReportGrpcService::ListFleetStatus(
    grpc::CallbackServerContext* context, const v1::ListFleetStatusRequest* request,
    v1::ListFleetStatusResponse* response) {
  return ServeUnary(context, env_, /*pool=*/nullptr, kReportServiceName, "ListFleetStatus", request,
                    response, [api = api_, request](const AuthorizedCaller& caller) {
                      return api->ListFleetStatus(*request, caller.scope);
                    });
}

grpc::ServerWriteReactor<v1::WatchFleetResponse>* ReportGrpcService::WatchFleet(
    grpc::CallbackServerContext* context, const v1::WatchFleetRequest* request) {
  return ServeStream<TargetCheck::kNone, v1::WatchFleetRequest, v1::WatchFleetResponse>(
      context, env_, kReportServiceName, "WatchFleet", request,
      [api = api_, request](const AuthorizedCaller& caller, std::function<void()> wake) {
        return AsSource<v1::WatchFleetResponse>(
            api->WatchFleet(*request, caller.scope, std::move(wake)));
      });
}

}  // namespace credledger::service
