#include "service/bus/audit_command_bus.h"

#include "common/status_macros.h"

namespace credledger::service {

BusStreams AuditBusDecider::Streams(const AdoptLog&, const AuditCommandContext&) const {
  return {kAuditStream, {{kAuditStream, /*last_event_only=*/true}}};
}

void AuditBusDecider::Evolve(AuditState& state, v1::Event&, const projections::EventPosition& at,
                             const AuditCommandContext&) const {
  state.stream_version = at.stream_version;
}

std::string AuditBusDecider::Name(const AdoptLog&) const { return kAdoptLogCommand; }

absl::StatusOr<Decision<NoNote>> AuditBusDecider::Decide(const AdoptLog& command, const AuditState&,
                                                         const AuditCommandContext&,
                                                         NoReads&) const {
  ASSIGN_OR_RETURN(v1::Event event, DecideLogAdopted(command));
  return Decision<NoNote>{{{kAuditStream, {std::move(event)}}}};
}

std::string AuditBusDecider::RequestId(const AuditCommandContext&, const AuditState& state) const {
  return LogAdoptedRequestId(state.stream_version);
}

}  // namespace credledger::service
