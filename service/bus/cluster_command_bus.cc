#include "service/bus/cluster_command_bus.h"

#include <utility>

#include "common/status_macros.h"
#include "projections/cluster_state.h"

namespace credledger::service {

BusStreams ClusterBusDecider::Streams(const ClusterCommand&,
                                      const ClusterCommandContext& context) const {
  std::string stream = projections::ClusterStream(context.cluster);
  return {stream, {{std::move(stream)}}};
}

void ClusterBusDecider::Evolve(v1::ClusterState& state, v1::Event& event,
                               const projections::EventPosition& at,
                               const ClusterCommandContext&) const {
  projections::EvolveCluster(state, event, at);
}

std::string ClusterBusDecider::Name(const ClusterCommand& command) const {
  return ClusterCommandName(command);
}

absl::StatusOr<Decision<NoNote>> ClusterBusDecider::Decide(const ClusterCommand& command,
                                                           const v1::ClusterState& state,
                                                           const ClusterCommandContext& context,
                                                           NoReads&) const {
  ASSIGN_OR_RETURN(std::vector<v1::Event> events, DecideCluster(command, state, context));
  return Decision<NoNote>{{{projections::ClusterStream(context.cluster), std::move(events)}}};
}

}  // namespace credledger::service
