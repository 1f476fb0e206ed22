// Recording the configuration that changes what events mean (docs/design.md,
// "Configuration events"; docs/events.md, "ServiceConfigured"): the agent API server URL and CA
// hash, the agent token TTL, and whether credentials are enabled. Appended to stream `service`
// at start-up whenever it differs from the last recorded one, so replay knows what the service
// was told.
#pragma once

#include <optional>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "credledger/v1/events.pb.h"
#include "store/event_store.h"

namespace credledger::service {

// The stream that holds ServiceConfigured events.
inline constexpr char kServiceStream[] = "service";

// Pure decision: the event to append when `current` differs from `last` (nullopt when nothing
// was recorded yet), or nullopt when they are equal.
std::optional<v1::ServiceConfigured> DecideServiceConfigured(
    const std::optional<v1::ServiceConfigured>& last, const v1::ServiceConfigured& current);

// Appends `current` as ServiceConfigured (actor `actor`) unless the last recorded
// configuration equals it. Returns true when an event was appended.
// Errors: kDataLoss when the last recorded event does not decode; store errors (kUnavailable
// when the log cannot be written; kAborted when another writer raced, which a single-writer
// deployment never sees).
absl::StatusOr<bool> RecordServiceConfiguration(store::EventStore& store,
                                                const v1::ServiceConfigured& current,
                                                absl::string_view actor);

}  // namespace credledger::service
