#include "service/bus/identity_command_bus.h"

#include <string>

#include "projections/identity_state.h"
#include "service/decide/identity_decider.h"

namespace credledger::service {

absl::Status FoldIdentityEvents(const std::vector<store::RecordedEvent>& events,
                               v1::IdentityState& state) {
  return FoldStreamEvents<v1::IdentityState, &projections::EvolveIdentity>(events, state);
}

IdentityCommandBus::IdentityCommandBus(store::EventStore* store) : bus_(store) {}

absl::StatusOr<IdentityCommandResult> IdentityCommandBus::Execute(
    const IdentityCommand& command, const IdentityCommandContext& context) {
  return bus_.Execute(context.identity, projections::IdentityStream(context.identity),
                      IdentityCommandName(command), context.actor, context.request_id,
                      context.request_digest,
                      [&](const v1::IdentityState& state) {
                        return DecideIdentity(command, state, context);
                      });
}

absl::StatusOr<bool> IdentityCommandBus::Answered(const IdentityCommand& command,
                                                  absl::string_view identity,
                                                  const RequestKey& request) {
  return bus_.Answered(projections::IdentityStream(identity), IdentityCommandName(command),
                       request.id, request.digest);
}

absl::StatusOr<v1::IdentityState> IdentityCommandBus::LoadState(absl::string_view name) {
  return bus_.LoadState(std::string(name), projections::IdentityStream(name));
}

}  // namespace credledger::service
