#include "service/api/fleet_watch.h"

#include "service/offline/status_view.h"

namespace credledger::service {

template class ProjectorWatch<FleetWatchTraits>;

std::vector<v1::TargetStatus> FleetWatchTraits::List(const Projector& projector,
                                                     const std::string& target_namespace,
                                                     int64_t* seq) {
  return projector.List(target_namespace, seq);
}

void FleetWatchTraits::Render(const Projector&, const State& state, Response& response) {
  *response.mutable_status() = ToStatusView(state);
}

void FleetWatchTraits::RenderSnapshotEnd(const std::vector<State>& snapshot,
                                         Response& response) {
  *response.mutable_summary() = SummarizeFleet(snapshot);
}

}  // namespace credledger::service
