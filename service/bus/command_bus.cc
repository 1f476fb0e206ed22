#include "service/bus/command_bus.h"

#include "common/status_macros.h"
#include "projections/target_state.h"
#include "service/bus/prior_request.h"
#include "service/decide/target_decider.h"
#include "store/event_codec.h"

namespace credledger::service {

absl::Status FoldTargetEvents(const std::vector<store::RecordedEvent>& events,
                              const v1::ServiceConfigured& service, v1::TargetState& state) {
  for (const store::RecordedEvent& recorded : events) {
    ASSIGN_OR_RETURN(v1::Event event, store::EventCodec::Default().Decode(recorded));
    projections::EvolveTarget(
        state, event,
        {recorded.seq, recorded.stream_version, absl::FromUnixMicros(recorded.recorded_at_us)},
        service);
  }
  return absl::OkStatus();
}

namespace {

// The mint attempt an event belongs to (its correlation id); empty for other events.
std::string AttemptIdOf(const v1::Event& event) {
  switch (event.kind_case()) {
    case v1::Event::kCredentialMintRequested:
      return event.credential_mint_requested().attempt_id();
    case v1::Event::kStaleCredentialsDeleted:
      return event.stale_credentials_deleted().attempt_id();
    case v1::Event::kCredentialSecretCreated:
      return event.credential_secret_created().attempt_id();
    case v1::Event::kCredentialIssued:
      return event.credential_issued().attempt_id();
    case v1::Event::kCredentialMintFailed:
      return event.credential_mint_failed().attempt_id();
    case v1::Event::kCredentialMintAbandoned:
      return event.credential_mint_abandoned().attempt_id();
    default:
      return "";
  }
}

}  // namespace

TargetCommandBus::TargetCommandBus(store::EventStore* store) : store_(store) {}

absl::StatusOr<CommandResult> TargetCommandBus::Execute(const TargetCommand& command,
                                                        const CommandContext& context) {
  if (context.request_id.empty()) {
    return absl::InvalidArgumentError("request_id: required on every mutating call");
  }
  const std::string stream =
      projections::TargetStream(context.target_namespace, context.target_name);
  const store::EventCodec& codec = store::EventCodec::Default();
  const std::string name = CommandName(command);
  CommandResult result;
  RETURN_IF_ERROR(store_->Execute([&](store::WriteTransaction& tx) -> absl::Status {
    ASSIGN_OR_RETURN(auto history, tx.ReadStream(stream, 0));
    v1::TargetState state;
    RETURN_IF_ERROR(FoldTargetEvents(history, context.service, state));

    ASSIGN_OR_RETURN(auto prior, FindPriorRequest(tx, context.request_id, context.request_digest, stream, name));
    if (prior.has_value()) {
      result = {*std::move(prior), /*replayed=*/true, std::move(state)};
      return absl::OkStatus();
    }

    ASSIGN_OR_RETURN(std::vector<v1::Event> decided, DecideTarget(command, state, context));
    result.state = state;
    if (decided.empty()) return absl::OkStatus();

    v1::EventMetadata metadata = CommandMetadata(context, name);
    store::StreamAppend append{stream,
                               history.empty() ? store::ExpectedVersion::NoStream()
                                               : store::ExpectedVersion::Exactly(
                                                     history.back().stream_version),
                               {}};
    for (const v1::Event& event : decided) {
      metadata.set_correlation_id(AttemptIdOf(event));
      ASSIGN_OR_RETURN(store::NewEvent encoded, codec.Encode(event, metadata));
      append.events.push_back(std::move(encoded));
    }
    ASSIGN_OR_RETURN(store::AppendResult appended,
                     tx.Append({context.request_id, {std::move(append)}}));
    RETURN_IF_ERROR(FoldTargetEvents(appended.events, context.service, result.state));
    result.events = std::move(appended.events);
    return absl::OkStatus();
  }));
  return result;
}

absl::StatusOr<v1::TargetState> TargetCommandBus::LoadState(absl::string_view target_namespace,
                                                            absl::string_view name,
                                                            const v1::ServiceConfigured& service) {
  const std::string stream = projections::TargetStream(target_namespace, name);
  v1::TargetState state;
  int64_t from = 0;
  while (true) {
    ASSIGN_OR_RETURN(auto page, store_->ReadStream(stream, from, 512));
    if (page.empty()) break;
    RETURN_IF_ERROR(FoldTargetEvents(page, service, state));
    from = page.back().stream_version + 1;
  }
  return state;
}

}  // namespace credledger::service
