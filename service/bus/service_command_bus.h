// ServiceCommandBus: the command bus of stream `service`, where the configuration that changes
// what events mean is recorded (docs/design.md, "Configuration events"; docs/architecture.md,
// "One command bus"). Only the stream's last event is folded (the configuration in force); the
// request id names the position the event is appended at (ServiceConfiguredRequestId), and it
// is appended under that version. The events carry no command name.
//
// Thread-safety: as CommandBus.
#pragma once

#include <string>

#include "absl/status/statusor.h"
#include "credledger/v1/events.pb.h"
#include "projections/target_state.h"
#include "service/bus/bus_decider.h"
#include "service/bus/command_bus.h"
#include "service/decide/service_decider.h"

namespace credledger::service {

// The bus decider of stream `service` (service/bus/bus_decider.h).
struct ServiceBusDecider : BusDeciderDefaults<ServiceState> {
  using Command = ConfigureService;
  using Context = ServiceCommandContext;
  using State = ServiceState;

  // Addresses `service` and folds its last event.
  BusStreams Streams(const ConfigureService& command, const ServiceCommandContext& context) const;
  // Keeps a ServiceConfigured and the event's stream_version.
  void Evolve(ServiceState& state, v1::Event& event, const projections::EventPosition& at,
              const ServiceCommandContext& context) const;
  // "": ServiceConfigured events record no command.
  std::string Name(const ConfigureService& command) const;
  // One ServiceConfigured when DecideServiceConfigured gives one.
  absl::StatusOr<Decision<NoNote>> Decide(const ConfigureService& command,
                                          const ServiceState& state,
                                          const ServiceCommandContext& context,
                                          NoReads& reads) const;
  // ServiceConfiguredRequestId(state.stream_version).
  std::string RequestId(const ServiceCommandContext& context, const ServiceState& state) const;
};

using ServiceCommandBus = CommandBus<ServiceBusDecider>;

}  // namespace credledger::service
