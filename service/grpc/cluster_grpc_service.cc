#include "service/grpc/cluster_grpc_service.h"

namespace credledger::service {
namespace {

constexpr char kClusterServiceName[] = "ClusterService";

}  // namespace

grpc::ServerUnaryReactor* ClusterGrpcService::RegisterCluster(
    grpc::CallbackServerContext* context, const v1::RegisterClusterRequest* request,
    v1::ClusterChangeResponse* response) {
  return ServeUnary(context, env_, env_.log_work, kClusterServiceName, "RegisterCluster", request,
                    response, [api = api_, request](const AuthorizedCaller& caller) {
                      return api->RegisterCluster(*request, caller.actor);
                    });
}

grpc::ServerUnaryReactor* ClusterGrpcService::DeregisterCluster(
    grpc::CallbackServerContext* context, const v1::DeregisterClusterRequest* request,
    v1::ClusterChangeResponse* response) {
  return ServeUnary(context, env_, env_.log_work, kClusterServiceName, "DeregisterCluster", request,
                    response, [api = api_, request](const AuthorizedCaller& caller) {
                      return api->DeregisterCluster(*request, caller.actor);
                    });
}

grpc::ServerUnaryReactor* ClusterGrpcService::ProbeCluster(grpc::CallbackServerContext* context,
                                                           const v1::ProbeClusterRequest* request,
                                                           v1::GetClusterResponse* response) {
  return ServeUnary(context, env_, env_.remote_work, kClusterServiceName, "ProbeCluster", request,
                    response, [api = api_, request](const AuthorizedCaller&) {
                      // The probe ends at the bridge's probe timeout; a client that goes away
                      // earlier does not shorten it.
                      return api->ProbeCluster(*request, /*cancel=*/nullptr);
                    });
}

grpc::ServerUnaryReactor* ClusterGrpcService::GetCluster(grpc::CallbackServerContext* context,
                                                         const v1::GetClusterRequest* request,
                                                         v1::GetClusterResponse* response) {
  return ServeUnary(
      context, env_, /*pool=*/nullptr, kClusterServiceName, "GetCluster", request, response,
      [api = api_, request](const AuthorizedCaller&) { return api->GetCluster(*request); });
}

grpc::ServerUnaryReactor* ClusterGrpcService::ListClusters(grpc::CallbackServerContext* context,
                                                           const v1::ListClustersRequest* request,
                                                           v1::ListClustersResponse* response) {
  return ServeUnary(
      context, env_, /*pool=*/nullptr, kClusterServiceName, "ListClusters", request, response,
      [api = api_, request](const AuthorizedCaller&) { return api->ListClusters(*request); });
}

}  // namespace credledger::service
