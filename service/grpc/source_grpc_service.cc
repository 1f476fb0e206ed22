#include "service/grpc/source_grpc_service.h"

namespace credledger::service {
namespace {

constexpr char kSourceServiceName[] = "SourceService";

}  // namespace

grpc::ServerUnaryReactor* SourceGrpcService::VerifySource(grpc::CallbackServerContext* context,
                                                          const v1::VerifySourceRequest* request,
                                                          v1::VerifySourceResponse* response) {
  return ServeUnary(context, env_, env_.remote_work, kSourceServiceName, "VerifySource", request,
                    response, [api = api_, request](const AuthorizedCaller& caller) {
                      return api->VerifySource(*request, caller.actor);
                    });
}

}  // namespace credledger::service
