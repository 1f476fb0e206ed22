#include "service/grpc/grpc_handlers.h"

namespace credledger::service {

absl::StatusOr<std::string> Authorize(const grpc::ServerContext& context,
                                      const CallAuthorizer& authorizer,
                                      absl::string_view service, absl::string_view method) {
  absl::StatusOr<Caller> caller = authorizer.Authorize(context, service, method);
  if (!caller.ok()) return caller.status();
  return std::move(caller->identity);
}

}  // namespace credledger::service
