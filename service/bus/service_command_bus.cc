#include "service/bus/service_command_bus.h"

#include <optional>

namespace credledger::service {

BusStreams ServiceBusDecider::Streams(const ConfigureService&, const ServiceCommandContext&) const {
  return {kServiceStream, {{kServiceStream, /*last_event_only=*/true}}};
}

void ServiceBusDecider::Evolve(ServiceState& state, v1::Event& event,
                               const projections::EventPosition& at,
                               const ServiceCommandContext&) const {
  state.last = event.has_service_configured()
                   ? std::optional<v1::ServiceConfigured>(event.service_configured())
                   : std::nullopt;
  state.stream_version = at.stream_version;
}

std::string ServiceBusDecider::Name(const ConfigureService&) const { return ""; }

absl::StatusOr<Decision<NoNote>> ServiceBusDecider::Decide(const ConfigureService& command,
                                                           const ServiceState& state,
                                                           const ServiceCommandContext&,
                                                           NoReads&) const {
  Decision<NoNote> decision;
  const std::optional<v1::ServiceConfigured> decided =
      DecideServiceConfigured(state.last, command.current);
  if (!decided.has_value()) return decision;
  v1::Event event;
  *event.mutable_service_configured() = *decided;
  decision.appends.push_back({kServiceStream, {std::move(event)}});
  return decision;
}

std::string ServiceBusDecider::RequestId(const ServiceCommandContext&,
                                         const ServiceState& state) const {
  return ServiceConfiguredRequestId(state.stream_version);
}

}  // namespace credledger::service
