// What every command bus does first and last with a request id (DESIGN section 3,
// idempotency): find the events an earlier request with the same id appended, and stamp new
// events with the command's metadata.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "credledger/v1/events.pb.h"
#include "service/target_commands.h"
#include "store/event_store.h"

namespace credledger::service {

// The events an earlier request with `request_id` appended, read inside `tx`; nullopt when
// none. `stream` is the stream the command addresses first, `command` its name
// (CommandName, IdentityCommandName, ...).
// Errors: kFailedPrecondition when that request was another command or addressed another
// stream (a retry must repeat its request exactly); kDataLoss when its metadata does not
// decode; store read errors.
absl::StatusOr<std::optional<std::vector<store::RecordedEvent>>> FindPriorRequest(
    store::WriteTransaction& tx, absl::string_view request_id, absl::string_view stream,
    absl::string_view command);

// The metadata of events appended by `command` on behalf of `actor` under `request_id`:
// actor, request id, command name; no correlation id or causation seq. Shared by every bus.
v1::EventMetadata CommandMetadata(absl::string_view actor, absl::string_view request_id,
                                  absl::string_view command);

// CommandMetadata(context.actor, context.request_id, command) for a Target command.
v1::EventMetadata CommandMetadata(const CommandContext& context, absl::string_view command);

}  // namespace credledger::service
