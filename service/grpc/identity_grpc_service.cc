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
      [&](const std::string& actor) { return api_->CreateIdentity(*request, actor); }, response);
}

grpc::Status IdentityGrpcService::UpdateIdentity(grpc::ServerContext* context,
                                                 const v1::UpdateIdentityRequest* request,
                                                 v1::IdentityChangeResponse* response) {
  return AuthorizeAndReply(
      *context, *authorizer_, kIdentityServiceName, "UpdateIdentity",
      [&](const std::string& actor) { return api_->UpdateIdentity(*request, actor); }, response);
}

grpc::Status IdentityGrpcService::DeleteIdentity(grpc::ServerContext* context,
                                                 const v1::DeleteIdentityRequest* request,
                                                 v1::IdentityChangeResponse* response) {
  return AuthorizeAndReply(
      *context, *authorizer_, kIdentityServiceName, "DeleteIdentity",
      [&](const std::string& actor) { return api_->DeleteIdentity(*request, actor); }, response);
}

grpc::Status IdentityGrpcService::BindIdentity(grpc::ServerContext* context,
                                               const v1::BindIdentityRequest* request,
                                               v1::IdentityChangeResponse* response) {
  return AuthorizeAndReply(
      *context, *authorizer_, kIdentityServiceName, "BindIdentity",
      [&](const std::string& actor) { return api_->BindIdentity(*request, actor); }, response);
}

grpc::Status IdentityGrpcService::UnbindIdentity(grpc::ServerContext* context,
                                                 const v1::UnbindIdentityRequest* request,
                                                 v1::IdentityChangeResponse* response) {
  return AuthorizeAndReply(
      *context, *authorizer_, kIdentityServiceName, "UnbindIdentity",
      [&](const std::string& actor) { return api_->UnbindIdentity(*request, actor); }, response);
}

grpc::Status IdentityGrpcService::GetIdentity(grpc::ServerContext* context,
                                              const v1::GetIdentityRequest* request,
                                              v1::GetIdentityResponse* response) {
  return AuthorizeAndReply(
      *context, *authorizer_, kIdentityServiceName, "GetIdentity",
      [&](const std::string&) { return api_->GetIdentity(*request); }, response);
}

grpc::Status IdentityGrpcService::ListIdentities(grpc::ServerContext* context,
                                                 const v1::ListIdentitiesRequest* request,
                                                 v1::ListIdentitiesResponse* response) {
  return AuthorizeAndReply(
      *context, *authorizer_, kIdentityServiceName, "ListIdentities",
      [&](const std::string&) { return api_->ListIdentities(*request); }, response);
}

grpc::Status IdentityGrpcService::ListMirrors(grpc::ServerContext* context,
                                              const v1::ListMirrorsRequest* request,
                                              v1::ListMirrorsResponse* response) {
  return AuthorizeAndReply(
      *context, *authorizer_, kIdentityServiceName, "ListMirrors",
      [&](const std::string&) { return api_->ListMirrors(*request); }, response);
}

}  // namespace credledger::service
