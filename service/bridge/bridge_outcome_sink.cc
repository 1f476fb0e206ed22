#include "service/bridge/bridge_outcome_sink.h"

#include <utility>

namespace credledger::service {

BridgeOutcomeSink::BridgeOutcomeSink(TargetCommandBus* bus, common::Clock* clock,
                                     v1::ServiceConfigured service)
    : bus_(bus), clock_(clock), service_(std::move(service)) {}

absl::StatusOr<v1::TargetState> BridgeOutcomeSink::Record(const std::string& target_namespace,
                                                          const std::string& name,
                                                          const kubebridge::Outcome& outcome,
                                                          const std::string& request_id) {
  CommandContext context{target_namespace, name,      clock_->Now(),
                         kServiceActor,    request_id, service_};
  TargetCommand command = std::visit([](const auto& o) -> TargetCommand { return o; }, outcome);
  absl::StatusOr<CommandResult> result = bus_->Execute(command, context);
  if (!result.ok()) return result.status();
  return std::move(result->state);
}

absl::StatusOr<v1::TargetState> BridgeOutcomeSink::Load(const std::string& target_namespace,
                                                        const std::string& name) {
  return bus_->LoadState({.target_namespace = std::string(target_namespace),
                         .target_name = std::string(name),
                         .service = service_});
}

}  // namespace credledger::service
