#include "service/grpc_handlers.h"

#include "service/target_api.h"

namespace credledger::service {

std::string ActorOf(const grpc::ServerContext& context) {
  const auto& metadata = context.client_metadata();
  auto it = metadata.find(kActorMetadataKey);
  if (it == metadata.end()) return std::string();
  return std::string(it->second.data(), it->second.size());
}

grpc::Status Authorize(const grpc::ServerContext& context, const AuthorizationPolicy& policy,
                       absl::string_view service, absl::string_view method) {
  const std::string actor = ActorOf(context);
  return ToGrpcStatus(
      policy.Authorize(actor.empty() ? kAnonymousActor : actor, service, method));
}

}  // namespace credledger::service
