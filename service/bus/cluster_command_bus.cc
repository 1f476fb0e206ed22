#include "service/bus/cluster_command_bus.h"

#include <string>

#include "projections/cluster_state.h"

namespace credledger::service {

absl::Status FoldClusterEvents(const std::vector<store::RecordedEvent>& events,
                               v1::ClusterState& state) {
  return FoldStreamEvents<v1::ClusterState, &projections::EvolveCluster>(events, state);
}

ClusterCommandBus::ClusterCommandBus(store::EventStore* store) : bus_(store) {}

absl::StatusOr<ClusterCommandResult> ClusterCommandBus::Execute(
    const ClusterCommand& command, const ClusterCommandContext& context) {
  return bus_.Execute(context.cluster, projections::ClusterStream(context.cluster),
                      ClusterCommandName(command), context.actor, context.request_id,
                      context.request_digest,
                      [&](const v1::ClusterState& state) {
                        return DecideCluster(command, state, context);
                      });
}

absl::StatusOr<v1::ClusterState> ClusterCommandBus::LoadState(absl::string_view name) {
  return bus_.LoadState(std::string(name), projections::ClusterStream(name));
}

}  // namespace credledger::service
