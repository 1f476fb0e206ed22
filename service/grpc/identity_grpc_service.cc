#include "service/grpc/identity_grpc_service.h"

namespace credledger::service {
namespace {

constexpr char kIdentityServiceName[] = "IdentityService";

}  // namespace

grpc::ServerUnaryReactor* IdentityGrpcService::CreateIdentity(
    grpc::CallbackServerContext* context, const v1::CreateIdentityRequest* request,
    v1::IdentityChangeResponse* response) {
  return ServeUnary(context, env_, env_.remote_work, kIdentityServiceName, "CreateIdentity",
                    request, response, [api = api_, request](const AuthorizedCaller& caller) {
                      return api->CreateIdentity(*request, caller.actor);
                    });
}

grpc::ServerUnaryReactor* IdentityGrpcService::UpdateIdentity(
    grpc::CallbackServerContext* context, const v1::UpdateIdentityRequest* request,
    v1::IdentityChangeResponse* response) {
  return ServeUnary(context, env_, env_.remote_work, kIdentityServiceName, "UpdateIdentity",
                    request, response, [api = api_, request](const AuthorizedCaller& caller) {
                      return api->UpdateIdentity(*request, caller.actor);
                    });
}

grpc::ServerUnaryReactor* IdentityGrpcService::DeleteIdentity(
    grpc::CallbackServerContext* context, const v1::DeleteIdentityRequest* request,
    v1::IdentityChangeResponse* response) {
  return ServeUnary(context, env_, env_.log_work, kIdentityServiceName, "DeleteIdentity", request,
                    response, [api = api_, request](const AuthorizedCaller& caller) {
                      return api->DeleteIdentity(*request, caller.actor);
                    });
}

grpc::ServerUnaryReactor* IdentityGrpcService::BindIdentity(grpc::CallbackServerContext* context,
                                                            const v1::BindIdentityRequest* request,
                                                            v1::IdentityChangeResponse* response) {
  return ServeUnary(context, env_, env_.log_work, kIdentityServiceName, "BindIdentity", request,
                    response, [api = api_, request](const AuthorizedCaller& caller) {
                      return api->BindIdentity(*request, caller.actor);
                    });
}

grpc::ServerUnaryReactor* IdentityGrpcService::UnbindIdentity(
    grpc::CallbackServerContext* context, const v1::UnbindIdentityRequest* request,
    v1::IdentityChangeResponse* response) {
  return ServeUnary(context, env_, env_.log_work, kIdentityServiceName, "UnbindIdentity", request,
                    response, [api = api_, request](const AuthorizedCaller& caller) {
                      return api->UnbindIdentity(*request, caller.actor);
                    });
}

grpc::ServerUnaryReactor* IdentityGrpcService::GetIdentity(grpc::CallbackServerContext* context,
                                                           const v1::GetIdentityRequest* request,
                                                           v1::GetIdentityResponse* response) {
  return ServeUnary(
      context, env_, /*pool=*/nullptr, kIdentityServiceName, "GetIdentity", request, response,
      [api = api_, request](const AuthorizedCaller&) { return api->GetIdentity(*request); });
}

grpc::ServerUnaryReactor* IdentityGrpcService::ListIdentities(
    grpc::CallbackServerContext* context, const v1::ListIdentitiesRequest* request,
    v1::ListIdentitiesResponse* response) {
  return ServeUnary(
      context, env_, /*pool=*/nullptr, kIdentityServiceName, "ListIdentities", request, response,
      [api = api_, request](const AuthorizedCaller&) { return api->ListIdentities(*request); });
}

grpc::ServerUnaryReactor* IdentityGrpcService::ListMirrors(grpc::CallbackServerContext* context,
                                                           const v1::ListMirrorsRequest* request,
                                                           v1::ListMirrorsResponse* response) {
  return ServeUnary(
      context, env_, /*pool=*/nullptr, kIdentityServiceName, "ListMirrors", request, response,
      [api = api_, request](const AuthorizedCaller&) { return api->ListMirrors(*request); });
}

}  // namespace credledger::service
