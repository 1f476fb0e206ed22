#include "service/prior_request.h"

#include "absl/strings/str_cat.h"
#include "common/status_macros.h"
#include "store/event_codec.h"

namespace credledger::service {

absl::StatusOr<std::optional<std::vector<store::RecordedEvent>>> FindPriorRequest(
    store::WriteTransaction& tx, absl::string_view request_id, absl::string_view stream,
    absl::string_view command) {
  using Events = std::vector<store::RecordedEvent>;
  ASSIGN_OR_RETURN(Events prior, tx.FindRequest(request_id));
  if (prior.empty()) return std::optional<Events>();
  ASSIGN_OR_RETURN(v1::EventMetadata first, store::EventCodec::DecodeMetadata(prior.front()));
  if (prior.front().stream != stream || first.command() != command) {
    return absl::FailedPreconditionError(
        absl::StrCat("request_id \"", request_id, "\" was already used for ", first.command(),
                     " on ", prior.front().stream, "; use a new request id"));
  }
  return std::optional<Events>(std::move(prior));
}

v1::EventMetadata CommandMetadata(absl::string_view actor, absl::string_view request_id,
                                  absl::string_view command) {
  v1::EventMetadata metadata;
  metadata.set_actor(std::string(actor));
  metadata.set_request_id(std::string(request_id));
  metadata.set_command(std::string(command));
  return metadata;
}

v1::EventMetadata CommandMetadata(const CommandContext& context, absl::string_view command) {
  return CommandMetadata(context.actor, context.request_id, command);
}

}  // namespace credledger::service
