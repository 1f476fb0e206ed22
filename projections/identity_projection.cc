#include "projections/identity_projection.h"

#include "projections/identity_state.h"

namespace credledger::projections {

void IdentityStreams::Evolve(State& state, const v1::Event& event, const EventPosition& at) {
  EvolveIdentity(state, event, at);
}

bool IdentityStreams::IsActive(const State& state) {
  return state.phase() == v1::IdentityState::PHASE_ACTIVE;
}

google::protobuf::RepeatedPtrField<IdentityStreams::State>* IdentityStreams::States(Fleet& fleet) {
  return fleet.mutable_identities();
}

}  // namespace credledger::projections
