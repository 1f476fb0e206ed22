#include "service/bus/report_command_bus.h"

#include <optional>
#include <utility>

#include "absl/strings/str_cat.h"
#include "common/status_macros.h"
#include "projections/report_streams.h"
#include "projections/target_state.h"
#include "service/bus/prior_request.h"
#include "service/decide/report_decider.h"
#include "store/event_codec.h"

namespace credledger::service {
namespace {

using Events = std::vector<store::RecordedEvent>;

// The Secrets released by the RolloutConfirmed events among `events`.
absl::StatusOr<std::vector<std::string>> ReleasedSecrets(const Events& events) {
  std::vector<std::string> released;
  for (const store::RecordedEvent& recorded : events) {
    ASSIGN_OR_RETURN(v1::Event event, store::EventCodec::Default().Decode(recorded));
    if (!event.has_rollout_confirmed()) continue;
    for (const std::string& name : event.rollout_confirmed().released_secrets()) {
      released.push_back(name);
    }
  }
  return released;
}

store::ExpectedVersion Expect(const StreamPosition& position) {
  return position.version < 0 ? store::ExpectedVersion::NoStream()
                              : store::ExpectedVersion::Exactly(position.version);
}

absl::StatusOr<store::StreamAppend> Encode(const std::string& stream,
                                           store::ExpectedVersion expected,
                                           const std::vector<v1::Event>& events,
                                           const v1::EventMetadata& metadata) {
  store::StreamAppend append{stream, expected, {}};
  for (const v1::Event& event : events) {
    ASSIGN_OR_RETURN(store::NewEvent encoded, store::EventCodec::Default().Encode(event, metadata));
    append.events.push_back(std::move(encoded));
  }
  return append;
}

}  // namespace

ReportCommandBus::ReportCommandBus(store::EventStore* store) : store_(store) {}

absl::StatusOr<ReportCommandResult> ReportCommandBus::Execute(const ReportCommand& command,
                                                              const CommandContext& context) {
  if (context.request_id.empty()) {
    return absl::InvalidArgumentError("request_id: required on every mutating call");
  }
  RETURN_IF_ERROR(liveness_.CatchUp(*store_));
  if (const auto* liveness = std::get_if<RecordLiveness>(&command)) {
    return ExecuteLiveness(*liveness, context);
  }
  return ExecuteForTarget(command, context);
}

absl::StatusOr<ReportCommandResult> ReportCommandBus::ExecuteForTarget(
    const ReportCommand& command, const CommandContext& context) {
  const std::string report_stream =
      projections::ReportStream(context.target_namespace, context.target_name);
  const std::string target_stream =
      projections::TargetStream(context.target_namespace, context.target_name);
  const std::string name = CommandName(command);
  ReportCommandResult result;
  std::optional<LivenessIndex::View> view;
  std::optional<TargetFolds> folds;
  RETURN_IF_ERROR(store_->Execute([&](store::WriteTransaction& tx) -> absl::Status {
    ASSIGN_OR_RETURN(view, liveness_.Open(tx));
    ASSIGN_OR_RETURN(folds, folds_.Load(tx, context.target_namespace, context.target_name,
                                        context.service, *view));
    ASSIGN_OR_RETURN(std::optional<Events> prior,
                     FindPriorRequest(tx, context.request_id, context.request_digest, report_stream, name));
    if (prior.has_value()) {
      ASSIGN_OR_RETURN(result.released_secrets, ReleasedSecrets(*prior));
      result.events = *std::move(prior);
      result.replayed = true;
      result.status = folds->status;
      return absl::OkStatus();
    }

    ASSIGN_OR_RETURN(ReportDecision decision,
                     DecideReport(command, folds->state, folds->status, context));
    result.heartbeat = decision.heartbeat;
    if (!decision.report_events.empty()) {
      const v1::EventMetadata metadata = CommandMetadata(context, name);
      store::AppendRequest request{context.request_id, {}};
      ASSIGN_OR_RETURN(request.streams.emplace_back(), Encode(report_stream, Expect(folds->report),
                                                              decision.report_events, metadata));
      if (!decision.target_events.empty()) {
        ASSIGN_OR_RETURN(
            request.streams.emplace_back(),
            Encode(target_stream, Expect(folds->target), decision.target_events, metadata));
      }
      ASSIGN_OR_RETURN(store::AppendResult appended, tx.Append(request));
      RETURN_IF_ERROR(ReportFoldCache::Advance(*folds, appended.events, context.service));
      ASSIGN_OR_RETURN(result.released_secrets, ReleasedSecrets(appended.events));
      result.events = std::move(appended.events);
    }
    result.status = folds->status;
    return absl::OkStatus();
  }));
  // The batch is durable: what the command read and appended may be kept.
  liveness_.Publish(*view);
  folds_.Publish(*folds, context.service);
  return result;
}

absl::StatusOr<ReportCommandResult> ReportCommandBus::ExecuteLiveness(
    const RecordLiveness& command, const CommandContext& context) {
  const std::string name = CommandName(command);
  ReportCommandResult result;
  std::optional<LivenessIndex::View> view;
  RETURN_IF_ERROR(store_->Execute([&](store::WriteTransaction& tx) -> absl::Status {
    ASSIGN_OR_RETURN(view, liveness_.Open(tx));
    ASSIGN_OR_RETURN(std::optional<Events> prior,
                     FindPriorRequest(tx, context.request_id, context.request_digest,
                                      projections::kLivenessStream, name));
    if (prior.has_value()) {
      result.events = *std::move(prior);
      result.replayed = true;
      return absl::OkStatus();
    }
    std::vector<v1::TargetState> targets;
    targets.reserve(command.entries.size());
    for (const v1::LivenessEntry& entry : command.entries) {
      ASSIGN_OR_RETURN(targets.emplace_back(),
                       folds_.LoadState(tx, entry.namespace_(), entry.name(), context.service));
    }
    const std::vector<v1::Event> decided = DecideLiveness(command, targets);
    if (decided.empty()) return absl::OkStatus();
    ASSIGN_OR_RETURN(store::StreamAppend append,
                     Encode(projections::kLivenessStream, store::ExpectedVersion::Any(), decided,
                            CommandMetadata(context, name)));
    ASSIGN_OR_RETURN(store::AppendResult appended,
                     tx.Append({context.request_id, {std::move(append)}}));
    for (const store::RecordedEvent& event : appended.events) RETURN_IF_ERROR(view->Add(event));
    result.events = std::move(appended.events);
    return absl::OkStatus();
  }));
  liveness_.Publish(*view);
  return result;
}

}  // namespace credledger::service
