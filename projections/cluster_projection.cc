#include "projections/cluster_projection.h"

#include "projections/cluster_state.h"

namespace credledger::projections {

void ClusterStreams::Evolve(State& state, const v1::Event& event, const EventPosition& at) {
  EvolveCluster(state, event, at);
}

bool ClusterStreams::IsActive(const State& state) {
  return state.phase() == v1::ClusterState::PHASE_ACTIVE;
}

google::protobuf::RepeatedPtrField<ClusterStreams::State>* ClusterStreams::States(Fleet& fleet) {
  return fleet.mutable_clusters();
}

}  // namespace credledger::projections
