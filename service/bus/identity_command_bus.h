// IdentityCommandBus: the command bus of identity streams `identity/<name>` (docs/mirrors.md,
// "Bindings"; docs/architecture.md, "One command bus"). A command folds its identity's stream
// (projections::EvolveIdentity) and runs DecideIdentity; its events are appended under the
// version folded. The identity's name is validated by the API edge, not here.
//
// The kept fold matters here: an identity bound in many namespaces gathers a MirrorWritten
// per namespace per rotation, and refolding that history for every outcome batch would make
// a rotation quadratic.
//
// Thread-safety: as CommandBus.
#pragma once

#include <string>

#include "absl/status/statusor.h"
#include "credledger/v1/events.pb.h"
#include "credledger/v1/state.pb.h"
#include "projections/target_state.h"
#include "service/bus/bus_decider.h"
#include "service/bus/command_bus.h"
#include "service/decide/identity_commands.h"

namespace credledger::service {

// The bus decider of identity streams (service/bus/bus_decider.h).
struct IdentityBusDecider : BusDeciderDefaults<v1::IdentityState> {
  using Command = IdentityCommand;
  using Context = IdentityCommandContext;
  using State = v1::IdentityState;

  // Addresses and folds `identity/<name>` of the context's identity.
  BusStreams Streams(const IdentityCommand& command, const IdentityCommandContext& context) const;
  void Evolve(v1::IdentityState& state, v1::Event& event, const projections::EventPosition& at,
              const IdentityCommandContext& context) const;
  std::string Name(const IdentityCommand& command) const;
  // DecideIdentity's events for the identity's stream. Errors: DecideIdentity's.
  absl::StatusOr<Decision<NoNote>> Decide(const IdentityCommand& command,
                                          const v1::IdentityState& state,
                                          const IdentityCommandContext& context,
                                          NoReads& reads) const;
};

using IdentityCommandBus = CommandBus<IdentityBusDecider>;
// What an identity command gave; `state` is the identity's state after it (PHASE_UNSPECIFIED
// for an identity without events).
using IdentityCommandResult = IdentityCommandBus::Result;

}  // namespace credledger::service
