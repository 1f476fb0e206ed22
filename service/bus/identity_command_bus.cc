#include "service/bus/identity_command_bus.h"

#include <utility>

#include "common/status_macros.h"
#include "projections/identity_state.h"
#include "service/decide/identity_decider.h"

namespace credledger::service {

BusStreams IdentityBusDecider::Streams(const IdentityCommand&,
                                       const IdentityCommandContext& context) const {
  std::string stream = projections::IdentityStream(context.identity);
  return {stream, {{std::move(stream)}}};
}

void IdentityBusDecider::Evolve(v1::IdentityState& state, v1::Event& event,
                                const projections::EventPosition& at,
                                const IdentityCommandContext&) const {
  projections::EvolveIdentity(state, event, at);
}

std::string IdentityBusDecider::Name(const IdentityCommand& command) const {
  return IdentityCommandName(command);
}

absl::StatusOr<Decision<NoNote>> IdentityBusDecider::Decide(const IdentityCommand& command,
                                                            const v1::IdentityState& state,
                                                            const IdentityCommandContext& context,
                                                            NoReads&) const {
  ASSIGN_OR_RETURN(std::vector<v1::Event> events, DecideIdentity(command, state, context));
  // Moved in, not copied from an initializer list: a mirror pass's outcomes are hundreds of
  // events.
  Decision<NoNote> decision;
  decision.appends.push_back({projections::IdentityStream(context.identity), std::move(events)});
  return decision;
}

}  // namespace credledger::service
