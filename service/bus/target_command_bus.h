// TargetCommandBus: the command bus of Target streams `target/<namespace>/<name>`
// (docs/credentials.md; docs/architecture.md, "One command bus"). A command folds its Target's
// stream (projections::EvolveTarget under the service configuration in force) and runs the
// Target decider; its events are appended to the Target's stream under the version folded.
// Folds are kept per Target under the service configuration: a new configuration drops them.
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
#include "service/decide/target_commands.h"

namespace credledger::service {

// The bus decider of Target streams (service/bus/bus_decider.h).
struct TargetBusDecider : BusDeciderDefaults<v1::TargetState> {
  using Command = TargetCommand;
  using Context = CommandContext;
  using State = v1::TargetState;

  // Addresses and folds `target/<namespace>/<name>` of the context's Target.
  BusStreams Streams(const TargetCommand& command, const CommandContext& context) const;
  void Evolve(v1::TargetState& state, v1::Event& event, const projections::EventPosition& at,
              const CommandContext& context) const;
  std::string Name(const TargetCommand& command) const;
  // DecideTarget's events for the Target's stream. Errors: DecideTarget's.
  absl::StatusOr<Decision<NoNote>> Decide(const TargetCommand& command,
                                          const v1::TargetState& state,
                                          const CommandContext& context, NoReads& reads) const;
  // The serialized service configuration: a Target's state depends on it.
  std::string FoldScope(const CommandContext& context) const;
  // The Target decider's CausationSeq of `event`.
  int64_t CausationSeq(const v1::TargetState& state, const v1::Event& event) const;
};

using TargetCommandBus = CommandBus<TargetBusDecider>;
// What a Target command gave; `state` is the Target's state after it.
using CommandResult = TargetCommandBus::Result;

}  // namespace credledger::service
