// The service decider: records the configuration that changes what events mean
// (docs/design.md, "Configuration events"; docs/events.md, "ServiceConfigured"): the agent API
// server URL and CA hash, the agent token TTL, and whether credentials are enabled. Stream
// `service` holds one ServiceConfigured per change; the service appends one at start-up
// whenever its configuration differs from the last recorded one.
//
// Thread-safety: pure functions.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "credledger/v1/events.pb.h"

namespace credledger::service {

// The stream that holds ServiceConfigured events.
inline constexpr char kServiceStream[] = "service";

// The configuration the service starts with.
struct ConfigureService {
  v1::ServiceConfigured current;
};

// Who configures the service (the actor the start-up records).
struct ServiceCommandContext {
  std::string actor;
  std::string request_id = {};      // unused: the request id names the stream position
  std::string request_digest = {};  // the service's own command: none
};

// The fold of stream `service`: the last configuration recorded (nullopt when none) and the
// stream_version of the stream's last event (-1 when it has none).
struct ServiceState {
  std::optional<v1::ServiceConfigured> last;
  int64_t stream_version = -1;
};

// Pure decision: the configuration to record when `current` differs from `last` (nullopt when
// nothing was recorded yet), or nullopt when they are equal.
std::optional<v1::ServiceConfigured> DecideServiceConfigured(
    const std::optional<v1::ServiceConfigured>& last, const v1::ServiceConfigured& current);

// The request id of the ServiceConfigured appended after the stream's last event at
// `stream_version` ("credledger:service-configured/<stream_version + 1>"): a start-up retried
// after a crash finds its own event instead of appending a second one.
std::string ServiceConfiguredRequestId(int64_t stream_version);

}  // namespace credledger::service
