// SourceCommandBus: the command bus of source streams `source/<namespace>/<name>`
// (docs/connections.md, "Sources"; docs/architecture.md, "One command bus"). No decision
// reads a source's history, so nothing is folded and the SourceVerified is appended under
// ExpectedVersion::Any: two checks of one source both land.
//
// Thread-safety: as CommandBus.
#pragma once

#include <string>

#include "absl/status/statusor.h"
#include "credledger/v1/events.pb.h"
#include "projections/target_state.h"
#include "service/bus/bus_decider.h"
#include "service/bus/command_bus.h"
#include "service/decide/source_decider.h"

namespace credledger::service {

// The state of a source stream: nothing is folded.
struct SourceState {};

// The bus decider of source streams (service/bus/bus_decider.h).
struct SourceBusDecider : BusDeciderDefaults<SourceState> {
  using Command = RecordSourceVerified;
  using Context = SourceCommandContext;
  using State = SourceState;

  // Addresses `source/<namespace>/<name>`; folds nothing.
  BusStreams Streams(const RecordSourceVerified& command,
                     const SourceCommandContext& context) const;
  void Evolve(SourceState& state, v1::Event& event, const projections::EventPosition& at,
              const SourceCommandContext& context) const;
  // kVerifySourceCommand.
  std::string Name(const RecordSourceVerified& command) const;
  // DecideSourceVerified's event for the source's stream.
  absl::StatusOr<Decision<NoNote>> Decide(const RecordSourceVerified& command,
                                          const SourceState& state,
                                          const SourceCommandContext& context,
                                          NoReads& reads) const;
};

using SourceCommandBus = CommandBus<SourceBusDecider>;

}  // namespace credledger::service
