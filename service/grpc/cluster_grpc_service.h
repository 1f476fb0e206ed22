// ClusterGrpcService: the gRPC face of ClusterApi (service ClusterService in
// proto/credledger/v1/api.proto). Synchronous handlers run on gRPC's thread pool and may
// block on the store and, for ProbeCluster, on the probe (bounded by the bridge's probe
// timeout); each handler establishes the caller (caller_identity.h),
// checks it against the authorization policy (call_authorizer.h), calls ClusterApi and maps
// its status one to one (grpc_status.h).
//
// Thread-safety: thread-safe (ClusterApi is).
#pragma once

#include <grpcpp/grpcpp.h>

#include "credledger/v1/api.grpc.pb.h"
#include "service/api/cluster_api.h"
#include "service/grpc/auth/call_authorizer.h"

namespace credledger::service {

class ClusterGrpcService final : public v1::ClusterService::Service {
 public:
  // `api` and `authorizer` are not owned and must outlive the service. Every RPC first asks
  // `authorizer` whether the caller may call it (UNAUTHENTICATED or PERMISSION_DENIED
  // otherwise).
  ClusterGrpcService(ClusterApi* api, const CallAuthorizer* authorizer)
      : api_(api), authorizer_(authorizer) {}

  grpc::Status RegisterCluster(grpc::ServerContext* context,
                               const v1::RegisterClusterRequest* request,
                               v1::ClusterChangeResponse* response) override;
  grpc::Status DeregisterCluster(grpc::ServerContext* context,
                                 const v1::DeregisterClusterRequest* request,
                                 v1::ClusterChangeResponse* response) override;
  grpc::Status ProbeCluster(grpc::ServerContext* context, const v1::ProbeClusterRequest* request,
                            v1::GetClusterResponse* response) override;
  grpc::Status GetCluster(grpc::ServerContext* context, const v1::GetClusterRequest* request,
                          v1::GetClusterResponse* response) override;
  grpc::Status ListClusters(grpc::ServerContext* context, const v1::ListClustersRequest* request,
                            v1::ListClustersResponse* response) override;

 private:
  ClusterApi* const api_;
  const CallAuthorizer* const authorizer_;
};

}  // namespace credledger::service
