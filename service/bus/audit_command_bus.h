// AuditCommandBus: the command bus of stream `audit`, where decisions about the log itself are
// recorded as LogAdopted (docs/audit.md, "Adopting a log"; docs/architecture.md, "One command
// bus"). Only the stream's last event is folded (its version); the request id names the
// position the event is appended at (LogAdoptedRequestId), and it is appended under that
// version.
//
// Thread-safety: as CommandBus.
#pragma once

#include <string>

#include "absl/status/statusor.h"
#include "credledger/v1/events.pb.h"
#include "projections/target_state.h"
#include "service/bus/bus_decider.h"
#include "service/bus/command_bus.h"
#include "service/decide/audit_decider.h"

namespace credledger::service {

// The bus decider of stream `audit` (service/bus/bus_decider.h).
struct AuditBusDecider : BusDeciderDefaults<AuditState> {
  using Command = AdoptLog;
  using Context = AuditCommandContext;
  using State = AuditState;

  // Addresses `audit` and folds its last event.
  BusStreams Streams(const AdoptLog& command, const AuditCommandContext& context) const;
  // Keeps the event's stream_version.
  void Evolve(AuditState& state, v1::Event& event, const projections::EventPosition& at,
              const AuditCommandContext& context) const;
  // kAdoptLogCommand.
  std::string Name(const AdoptLog& command) const;
  // DecideLogAdopted's event for stream `audit`; its errors.
  absl::StatusOr<Decision<NoNote>> Decide(const AdoptLog& command, const AuditState& state,
                                          const AuditCommandContext& context, NoReads& reads) const;
  // LogAdoptedRequestId(state.stream_version).
  std::string RequestId(const AuditCommandContext& context, const AuditState& state) const;
};

using AuditCommandBus = CommandBus<AuditBusDecider>;

}  // namespace credledger::service
