// AccessCommandBus: the command bus of stream `access`, where refused calls are recorded as
// CallsDenied (docs/api.md, "Refused calls in the log"; docs/architecture.md, "One command
// bus"). Only the stream's last event is folded (its version); a batch's request id names the
// position it is appended at (CallsDeniedRequestId), and it is appended under that version.
//
// Thread-safety: as CommandBus.
#pragma once

#include <string>

#include "absl/status/statusor.h"
#include "credledger/v1/events.pb.h"
#include "projections/target_state.h"
#include "service/bus/bus_decider.h"
#include "service/bus/command_bus.h"
#include "service/decide/access_decider.h"

namespace credledger::service {

// The bus decider of stream `access` (service/bus/bus_decider.h).
struct AccessBusDecider : BusDeciderDefaults<AccessState> {
  using Command = RecordCallsDenied;
  using Context = AccessCommandContext;
  using State = AccessState;

  // Addresses `access` and folds its last event.
  BusStreams Streams(const RecordCallsDenied& command, const AccessCommandContext& context) const;
  // Keeps the event's stream_version.
  void Evolve(AccessState& state, v1::Event& event, const projections::EventPosition& at,
              const AccessCommandContext& context) const;
  // kRecordCallsDeniedCommand.
  std::string Name(const RecordCallsDenied& command) const;
  // DecideCallsDenied's events for stream `access`.
  absl::StatusOr<Decision<NoNote>> Decide(const RecordCallsDenied& command,
                                          const AccessState& state,
                                          const AccessCommandContext& context,
                                          NoReads& reads) const;
  // CallsDeniedRequestId(state.stream_version).
  std::string RequestId(const AccessCommandContext& context, const AccessState& state) const;
};

using AccessCommandBus = CommandBus<AccessBusDecider>;

}  // namespace credledger::service
