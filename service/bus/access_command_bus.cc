#include "service/bus/access_command_bus.h"

namespace credledger::service {

BusStreams AccessBusDecider::Streams(const RecordCallsDenied&, const AccessCommandContext&) const {
  return {kAccessStream, {{kAccessStream, /*last_event_only=*/true}}};
}

void AccessBusDecider::Evolve(AccessState& state, v1::Event&, const projections::EventPosition& at,
                              const AccessCommandContext&) const {
  state.stream_version = at.stream_version;
}

std::string AccessBusDecider::Name(const RecordCallsDenied&) const {
  return kRecordCallsDeniedCommand;
}

absl::StatusOr<Decision<NoNote>> AccessBusDecider::Decide(const RecordCallsDenied& command,
                                                          const AccessState&,
                                                          const AccessCommandContext&,
                                                          NoReads&) const {
  return Decision<NoNote>{{{kAccessStream, DecideCallsDenied(command)}}};
}

std::string AccessBusDecider::RequestId(const AccessCommandContext&,
                                        const AccessState& state) const {
  return CallsDeniedRequestId(state.stream_version);
}

}  // namespace credledger::service
