// An append of one small event, as the store tests write them: type
// credledger.v1.ServiceConfigured, metadata "m", payload "p".
#pragma once

#include <string>

#include "store/event_store.h"

namespace credledger::testing {

// One event for `stream` on behalf of `request_id`, under `expected`.
inline store::AppendRequest OneEvent(
    const std::string& request_id, const std::string& stream,
    store::ExpectedVersion expected = store::ExpectedVersion::Any()) {
  return store::AppendRequest{
      request_id,
      {store::StreamAppend{
          stream, expected, {store::NewEvent{"credledger.v1.ServiceConfigured", 1, "m", "p"}}}}};
}

}  // namespace credledger::testing
