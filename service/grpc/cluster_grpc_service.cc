#include "service/grpc/cluster_grpc_service.h"

#include <string>

#include "service/grpc/grpc_handlers.h"

namespace credledger::service {
namespace {

constexpr char kClusterServiceName[] = "ClusterService";

}  // namespace

grpc::Status ClusterGrpcService::RegisterCluster(grpc::ServerContext* context,
                                                 const v1::RegisterClusterRequest* request,
                                                 v1::ClusterChangeResponse* response) {
  return AuthorizeAndReply(
      *context, *authorizer_, kClusterServiceName, "RegisterCluster",
      [&](const AuthorizedCaller& caller) { return api_->RegisterCluster(*request, caller.actor); },
      response);
}

grpc::Status ClusterGrpcService::DeregisterCluster(grpc::ServerContext* context,
                                                   const v1::DeregisterClusterRequest* request,
                                                   v1::ClusterChangeResponse* response) {
  return AuthorizeAndReply(
      *context, *authorizer_, kClusterServiceName, "DeregisterCluster",
      [&](const AuthorizedCaller& caller) {
        return api_->DeregisterCluster(*request, caller.actor);
      },
      response);
}

grpc::Status ClusterGrpcService::ProbeCluster(grpc::ServerContext* context,
                                              const v1::ProbeClusterRequest* request,
                                              v1::GetClusterResponse* response) {
  return AuthorizeAndReply(
      *context, *authorizer_, kClusterServiceName, "ProbeCluster",
      [&](const AuthorizedCaller&) {
        // The probe ends at the bridge's probe timeout; a client that goes away earlier
        // does not shorten it (a synchronous handler is not told).
        return api_->ProbeCluster(*request, /*cancel=*/nullptr);
      },
      response);
}

grpc::Status ClusterGrpcService::GetCluster(grpc::ServerContext* context,
                                            const v1::GetClusterRequest* request,
                                            v1::GetClusterResponse* response) {
  return AuthorizeAndReply(
      *context, *authorizer_, kClusterServiceName, "GetCluster",
      [&](const AuthorizedCaller&) { return api_->GetCluster(*request); }, response);
}

grpc::Status ClusterGrpcService::ListClusters(grpc::ServerContext* context,
                                              const v1::ListClustersRequest* request,
                                              v1::ListClustersResponse* response) {
  return AuthorizeAndReply(
      *context, *authorizer_, kClusterServiceName, "ListClusters",
      [&](const AuthorizedCaller&) { return api_->ListClusters(*request); }, response);
}

}  // namespace credledger::service
