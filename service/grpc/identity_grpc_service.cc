#include "service/grpc/identity_grpc_service.h"

#include <string>

#include "service/grpc/grpc_handlers.h"

namespace credledger::service {
namespace {

constexpr char kIdentityServiceName[] = "IdentityService";

}  // namespace

grpc::Status IdentityGrpcService::CreateIdentity(grpc::ServerContext* context,
                                                 const v1::CreateIdentityRequest* request,
                                                 v1::IdentityChangeResponse* response) {
  return AuthorizeAndReply(
      *context, *authorizer_, kIdentityServiceName, "CreateIdentity",
      [&](const AuthorizedCaller& caller) { return api_->CreateIdentity(*request, caller.actor); },
      response);
}

grpc::Status IdentityGrpcService::UpdateIdentity(grpc::ServerContext* context,
                                                 const v1::UpdateIdentityRequest* request,
                                                 v1::IdentityChangeResponse* response) {
  return AuthorizeAndReply(
      *context, *authorizer_, kIdentityServiceName, "UpdateIdentity",
      [&](const AuthorizedCaller& caller) { return api_->UpdateIdentity(*request, caller.actor); },
      response);
}

grpc::Status IdentityGrpcService::DeleteIdentity(grpc::ServerContext* context,
                                                 const v1::DeleteIdentityRequest* request,
                                                 v1::IdentityChangeResponse* response) {
  return AuthorizeAndReply(
      *context, *authorizer_, kIdentityServiceName, "DeleteIdentity",
      [&](const AuthorizedCaller& caller) { return api_->DeleteIdentity(*request, caller.actor); },
      response);
}

grpc::Status IdentityGrpcService::BindIdentity(grpc::ServerContext* context,
                                               const v1::BindIdentityRequest* request,
                                               v1::IdentityChangeResponse* response) {
  return AuthorizeAndReply(
      *context, *authorizer_, kIdentityServiceName, "BindIdentity",
      [&](const AuthorizedCaller& caller) { return api_->BindIdentity(*request, caller.actor); },
      response);
}

grpc::Status IdentityGrpcService::UnbindIdentity(grpc::ServerContext* context,
                                                 const v1::UnbindIdentityRequest* request,
                                                 v1::IdentityChangeResponse* response) {
  return AuthorizeAndReply(
      *context, *authorizer_, kIdentityServiceName, "UnbindIdentity",
      [&](const AuthorizedCaller& caller) { return api_->UnbindIdentity(*request, caller.actor); },
      response);
}

grpc::Status IdentityGrpcService::GetIdentity(grpc::ServerContext* context,
                                              const v1::GetIdentityRequest* request,
                                              v1::GetIdentityResponse* response) {
  return AuthorizeAndReply(
      *context, *authorizer_, kIdentityServiceName, "GetIdentity",
      [&](const AuthorizedCaller&) { return api_->GetIdentity(*request); }, response);
}

grpc::Status IdentityGrpcService::ListIdentities(grpc::ServerContext* context,
                                                 const v1::ListIdentitiesRequest* request,
                                                 v1::ListIdentitiesResponse* response) {
  return AuthorizeAndReply(
      *context, *authorizer_, kIdentityServiceName, "ListIdentities",
      [&](const AuthorizedCaller&) { return api_->ListIdentities(*request); }, response);
}

grpc::Status IdentityGrpcService::ListMirrors(grpc::ServerContext* context,
                                              const v1::ListMirrorsRequest* request,
                                              v1::ListMirrorsResponse* response) {
  return AuthorizeAndReply(
      *context, *authorizer_, kIdentityServiceName, "ListMirrors",
      [&](const AuthorizedCaller&) { return api_->ListMirrors(*request); }, response);
}

}  // namespace credledger::service
