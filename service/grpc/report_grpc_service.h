// ReportGrpcService: the gRPC face of ReportApi (service ReportService in
// proto/credledger/v1/api.proto). Synchronous handlers run on gRPC's thread pool and may
// block on the store; each handler establishes the caller (caller_identity.h)
// and checks it against the authorization policy (call_authorizer.h); every handler calls
// ReportApi and maps its status one to one (grpc_status.h).
//
// WatchFleet holds its handler thread for the life of the stream: it waits for items in
// short slices so that it notices a cancelled client or ReportApi::Stop promptly.
//
// Thread-safety: thread-safe (ReportApi is).
#pragma once

#include <grpcpp/grpcpp.h>

#include "credledger/v1/api.grpc.pb.h"
#include "service/api/report_api.h"
#include "service/grpc/auth/call_authorizer.h"

namespace credledger::service {

class ReportGrpcService final : public v1::ReportService::Service {
 public:
  // `api` and `authorizer` are not owned and must outlive the service. Every RPC first asks
  // `authorizer` whether the caller may call it (UNAUTHENTICATED or PERMISSION_DENIED
  // otherwise).
  ReportGrpcService(ReportApi* api, const CallAuthorizer* authorizer)
      : api_(api), authorizer_(authorizer) {}

  grpc::Status PushReport(grpc::ServerContext* context, const v1::PushReportRequest* request,
                          v1::PushReportResponse* response) override;
  grpc::Status SetBoundReleases(grpc::ServerContext* context,
                                const v1::SetBoundReleasesRequest* request,
                                v1::SetBoundReleasesResponse* response) override;
  grpc::Status GetTargetStatus(grpc::ServerContext* context,
                               const v1::GetTargetStatusRequest* request,
                               v1::GetTargetStatusResponse* response) override;
  grpc::Status ListFleetStatus(grpc::ServerContext* context,
                               const v1::ListFleetStatusRequest* request,
                               v1::ListFleetStatusResponse* response) override;
  // Errors besides ReportApi::WatchFleet's: CANCELLED when the client went away,
  // UNAVAILABLE when the server shuts down, RESOURCE_EXHAUSTED when the client fell behind.
  grpc::Status WatchFleet(grpc::ServerContext* context, const v1::WatchFleetRequest* request,
                          grpc::ServerWriter<v1::WatchFleetResponse>* writer) override;

 private:
  ReportApi* const api_;
  const CallAuthorizer* const authorizer_;
};

}  // namespace credledger::service
