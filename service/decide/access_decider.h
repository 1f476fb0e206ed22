// The access decider: refused calls, counted per minute, caller and RPC, become CallsDenied
// events on stream `access` (docs/api.md, "Refused calls in the log"; docs/events.md,
// "CallsDenied").
//
// Thread-safety: pure functions.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "credledger/v1/events.pb.h"

namespace credledger::service {

// The stream of CallsDenied events.
inline constexpr char kAccessStream[] = "access";

// The command name in the metadata of CallsDenied events.
inline constexpr char kRecordCallsDeniedCommand[] = "RecordCallsDenied";

// One batch of ended minutes of refusals, in the order to record them.
struct RecordCallsDenied {
  std::vector<v1::CallsDenied> entries;
};

// The service records refusals itself: actor kServiceActor, no client request.
struct AccessCommandContext {
  std::string actor;
  std::string request_id = {};      // unused: the request id names the stream position
  std::string request_digest = {};  // the service's own command: none
};

// The fold of stream `access`: the stream_version of its last event (-1 when none).
struct AccessState {
  int64_t stream_version = -1;
};

// One CallsDenied event per entry, in order; no events for an empty batch.
std::vector<v1::Event> DecideCallsDenied(const RecordCallsDenied& command);

// The request id of the batch appended after the stream's last event at `stream_version`
// ("credledger:calls-denied/<stream_version + 1>"): an append retried after an unknown
// outcome finds its own events instead of recording the minutes twice.
std::string CallsDeniedRequestId(int64_t stream_version);

}  // namespace credledger::service
