// Recording the configuration that changes what events mean (docs/design.md,
// "Configuration events"; docs/events.md, "ServiceConfigured"): the agent API server URL and CA
// hash, the agent token TTL, and whether credentials are enabled. Appended to stream `service`
// at start-up, through the ServiceCommandBus (service/bus/service_command_bus.h), whenever it
// differs from the last recorded one, so replay knows what the service was told.
#pragma once

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "credledger/v1/events.pb.h"
#include "store/event_store.h"

namespace credledger::service {

// Appends `current` as ServiceConfigured (actor `actor`) unless the last recorded
// configuration equals it. Returns true when an event was appended.
// Errors: kDataLoss when the last recorded event does not decode; store errors (kUnavailable
// when the log cannot be written; kAborted when another writer raced, which a single-writer
// deployment never sees).
absl::StatusOr<bool> RecordServiceConfiguration(store::EventStore& store,
                                                const v1::ServiceConfigured& current,
                                                absl::string_view actor);

}  // namespace credledger::service
