#include "service/server/service_configuration.h"

#include <string>

#include "common/status_macros.h"
#include "service/bus/service_command_bus.h"

namespace credledger::service {

absl::StatusOr<bool> RecordServiceConfiguration(store::EventStore& store,
                                                const v1::ServiceConfigured& current,
                                                absl::string_view actor) {
  ServiceCommandBus bus(&store);
  ASSIGN_OR_RETURN(ServiceCommandBus::Result result,
                   bus.Execute(ConfigureService{current}, ServiceCommandContext{std::string(actor)}));
  return !result.replayed && !result.events.empty();
}

}  // namespace credledger::service
