#include "service/grpc/source_grpc_service.h"

#include <string>

#include "service/grpc/grpc_handlers.h"

namespace credledger::service {

grpc::Status SourceGrpcService::VerifySource(grpc::ServerContext* context,
                                             const v1::VerifySourceRequest* request,
                                             v1::VerifySourceResponse* response) {
  return AuthorizeAndReply(
      *context, *authorizer_, "SourceService", "VerifySource",
      [&](const AuthorizedCaller& caller) { return api_->VerifySource(*request, caller.actor); },
      response);
}

}  // namespace credledger::service
