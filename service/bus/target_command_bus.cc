#include "service/bus/target_command_bus.h"

#include <utility>

#include "common/status_macros.h"
#include "service/decide/target_decider.h"

namespace credledger::service {

BusStreams TargetBusDecider::Streams(const TargetCommand&, const CommandContext& context) const {
  std::string stream = projections::TargetStream(context.target_namespace, context.target_name);
  return {stream, {{std::move(stream)}}};
}

void TargetBusDecider::Evolve(v1::TargetState& state, v1::Event& event,
                              const projections::EventPosition& at,
                              const CommandContext& context) const {
  projections::EvolveTarget(state, event, at, context.service);
}

std::string TargetBusDecider::Name(const TargetCommand& command) const {
  return CommandName(command);
}

absl::StatusOr<Decision<NoNote>> TargetBusDecider::Decide(const TargetCommand& command,
                                                          const v1::TargetState& state,
                                                          const CommandContext& context,
                                                          NoReads&) const {
  ASSIGN_OR_RETURN(std::vector<v1::Event> events, DecideTarget(command, state, context));
  return Decision<NoNote>{
      {{projections::TargetStream(context.target_namespace, context.target_name),
        std::move(events)}}};
}

std::string TargetBusDecider::FoldScope(const CommandContext& context) const {
  return context.service.SerializeAsString();
}

int64_t TargetBusDecider::CausationSeq(const v1::TargetState& state, const v1::Event& event) const {
  return service::CausationSeq(event, state);
}

}  // namespace credledger::service
