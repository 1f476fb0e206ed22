// ClusterGrpcService: the gRPC face of ClusterApi (service ClusterService in
// proto/credledger/v1/api.proto) on gRPC's callback API (grpc_handlers.h): each handler
// establishes the caller (caller_identity.h), checks it against the authorization policy
// (call_authorizer.h), calls ClusterApi and maps its status one to one (grpc_status.h).
// ProbeCluster waits on the probe (bounded by the bridge's probe timeout, ended early when the
// client cancels) on the remote pool; the changes run on the log pool; reads answer on the
// gRPC thread.
//
// Thread-safety: thread-safe (ClusterApi is).
#pragma once

#include <grpcpp/grpcpp.h>

#include "credledger/v1/api.grpc.pb.h"
#include "service/api/cluster_api.h"
#include "service/grpc/grpc_handlers.h"

namespace credledger::service {

class ClusterGrpcService final : public v1::ClusterService::CallbackService {
 public:
  // `api` and everything in `env` are not owned and must outlive the service. Every RPC
  // first asks env.authorizer whether the caller may call it (UNAUTHENTICATED or
  // PERMISSION_DENIED otherwise).
  ClusterGrpcService(ClusterApi* api, CallEnvironment env) : api_(api), env_(env) {}

  grpc::ServerUnaryReactor* RegisterCluster(grpc::CallbackServerContext* context,
                                            const v1::RegisterClusterRequest* request,
                                            v1::ClusterChangeResponse* response) override;
  grpc::ServerUnaryReactor* DeregisterCluster(grpc::CallbackServerContext* context,
                                              const v1::DeregisterClusterRequest* request,
                                              v1::ClusterChangeResponse* response) override;
  grpc::ServerUnaryReactor* ProbeCluster(grpc::CallbackServerContext* context,
                                         const v1::ProbeClusterRequest* request,
                                         v1::GetClusterResponse* response) override;
  grpc::ServerUnaryReactor* GetCluster(grpc::CallbackServerContext* context,
                                       const v1::GetClusterRequest* request,
                                       v1::GetClusterResponse* response) override;
  grpc::ServerUnaryReactor* ListClusters(grpc::CallbackServerContext* context,
                                         const v1::ListClustersRequest* request,
                                         v1::ListClustersResponse* response) override;

 private:
  ClusterApi* const api_;
  const CallEnvironment env_;
};

}  // namespace credledger::service
