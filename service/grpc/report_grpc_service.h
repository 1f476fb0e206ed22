// ReportGrpcService: the gRPC face of ReportApi (service ReportService in
// proto/credledger/v1/api.proto) on gRPC's callback API (grpc_handlers.h): each handler
// establishes the caller (caller_identity.h), checks it against the authorization policy and
// the Target scope (call_authorizer.h), calls ReportApi and maps its status one to one
// (grpc_status.h). PushReport and SetBoundReleases run on the log pool; GetTargetStatus and
// ListFleetStatus read the projector on the gRPC thread; WatchFleet is a stream that holds no
// thread.
//
// Thread-safety: thread-safe (ReportApi is).
#pragma once

#include <grpcpp/grpcpp.h>

#include "credledger/v1/api.grpc.pb.h"
#include "service/api/report_api.h"
#include "service/grpc/grpc_handlers.h"

namespace credledger::service {

class ReportGrpcService final : public v1::ReportService::CallbackService {
 public:
  // `api` and everything in `env` are not owned and must outlive the service. Every RPC
  // first asks env.authorizer whether the caller may call it (UNAUTHENTICATED or
  // PERMISSION_DENIED otherwise).
  ReportGrpcService(ReportApi* api, CallEnvironment env) : api_(api), env_(env) {}

  grpc::ServerUnaryReactor* PushReport(grpc::CallbackServerContext* context,
                                       const v1::PushReportRequest* request,
                                       v1::PushReportResponse* response) override;
  grpc::ServerUnaryReactor* SetBoundReleases(grpc::CallbackServerContext* context,
                                             const v1::SetBoundReleasesRequest* request,
                                             v1::SetBoundReleasesResponse* response) override;
  grpc::ServerUnaryReactor* GetTargetStatus(grpc::CallbackServerContext* context,
                                            const v1::GetTargetStatusRequest* request,
                                            v1::GetTargetStatusResponse* response) override;
  grpc::ServerUnaryReactor* ListFleetStatus(grpc::CallbackServerContext* context,
                                            const v1::ListFleetStatusRequest* request,
                                            v1::ListFleetStatusResponse* response) override;
  // Errors besides ReportApi::WatchFleet's: CANCELLED when the client went away,
  // UNAVAILABLE when the server shuts down, RESOURCE_EXHAUSTED when the client fell behind
  // or the stream limits are reached (OpenStreams).
  grpc::ServerWriteReactor<v1::WatchFleetResponse>* WatchFleet(
      grpc::CallbackServerContext* context, const v1::WatchFleetRequest* request) override;

 private:
  ReportApi* const api_;
  const CallEnvironment env_;
};

}  // namespace credledger::service
