#include "service/bus/report_command_bus.h"

#include <utility>
#include <variant>

#include "common/status_macros.h"
#include "projections/report_streams.h"
#include "projections/target_status.h"
#include "service/decide/report_decider.h"
#include "store/event_codec.h"

namespace credledger::service {

ReportBusDecider::ReportBusDecider(TargetCommandBus* targets)
    : targets_(targets), liveness_(std::make_shared<LivenessIndex>()) {}

BusStreams ReportBusDecider::Streams(const ReportCommand& command,
                                     const CommandContext& context) const {
  if (std::holds_alternative<RecordLiveness>(command)) return {projections::kLivenessStream, {}};
  std::string report = projections::ReportStream(context.target_namespace, context.target_name);
  return {report,
          {{projections::TargetStream(context.target_namespace, context.target_name)}, {report}}};
}

void ReportBusDecider::Evolve(ReportFolds& folds, v1::Event& event,
                              const projections::EventPosition& at,
                              const CommandContext& context) const {
  projections::EvolveTarget(folds.state, event, at, context.service);
  projections::EvolveStatus(folds.status, event, at);
}

std::string ReportBusDecider::Name(const ReportCommand& command) const {
  return CommandName(command);
}

absl::StatusOr<Decision<ReportNote>> ReportBusDecider::Decide(const ReportCommand& command,
                                                              const ReportFolds& folds,
                                                              const CommandContext& context,
                                                              Reads& reads) const {
  if (const auto* liveness = std::get_if<RecordLiveness>(&command)) {
    return Decision<ReportNote>{
        {{projections::kLivenessStream, DecideLiveness(*liveness, reads.targets)}}};
  }
  ASSIGN_OR_RETURN(ReportDecision decision,
                   DecideReport(command, folds.state, folds.status, context));
  Decision<ReportNote> out;
  out.note.heartbeat = decision.heartbeat;
  out.note.held = decision.held;
  out.note.refused = decision.refused;
  out.note.refusal = std::move(decision.refusal);
  out.appends.push_back({projections::ReportStream(context.target_namespace, context.target_name),
                         std::move(decision.report_events)});
  out.appends.push_back({projections::TargetStream(context.target_namespace, context.target_name),
                         std::move(decision.target_events)});
  return out;
}

std::string ReportBusDecider::FoldScope(const CommandContext& context) const {
  return context.service.SerializeAsString();
}

absl::Status ReportBusDecider::Prepare(store::EventStore& store, const ReportCommand&,
                                       const CommandContext&) const {
  return liveness_->CatchUp(store);
}

absl::StatusOr<ReportBusDecider::Reads> ReportBusDecider::Open(
    store::WriteTransaction& tx, const ReportCommand& command,
    const CommandContext& context) const {
  ASSIGN_OR_RETURN(LivenessIndex::View view, liveness_->Open(tx));
  Reads reads{std::move(view), {}};
  const auto* liveness = std::get_if<RecordLiveness>(&command);
  if (liveness == nullptr) return reads;
  reads.targets.reserve(liveness->entries.size());
  for (const v1::LivenessEntry& entry : liveness->entries) {
    CommandContext target = context;
    target.target_namespace = entry.namespace_();
    target.target_name = entry.name();
    ASSIGN_OR_RETURN(reads.targets.emplace_back(), targets_->FoldIn(tx, target));
  }
  return reads;
}

std::vector<SideInput<ReportFolds>> ReportBusDecider::SideInputs(
    const Reads& reads, const CommandContext& context) const {
  std::optional<LivenessIndex::Seen> seen =
      reads.view.Find(context.target_namespace, context.target_name);
  if (!seen.has_value()) return {};
  const int64_t seq = seen->at.seq;
  return {{seq, [seen = *std::move(seen)](ReportFolds& folds) {
             projections::ApplyLiveness(folds.status, seen.entry, seen.at);
           }}};
}

absl::Status ReportBusDecider::Appended(Reads& reads,
                                        const std::vector<store::RecordedEvent>& events) const {
  for (const store::RecordedEvent& event : events) {
    if (event.stream == projections::kLivenessStream) RETURN_IF_ERROR(reads.view.Add(event));
  }
  return absl::OkStatus();
}

void ReportBusDecider::Publish(const Reads& reads) const { liveness_->Publish(reads.view); }

absl::StatusOr<std::vector<std::string>> ReleasedSecrets(
    const std::vector<store::RecordedEvent>& events) {
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

absl::Status RefusalOf(const std::vector<store::RecordedEvent>& events, ReportSource source) {
  for (const store::RecordedEvent& recorded : events) {
    ASSIGN_OR_RETURN(v1::Event event, store::EventCodec::Default().Decode(recorded));
    if (event.has_report_clock_skew_detected()) {
      return ClockSkewRefusal(event.report_clock_skew_detected(), source);
    }
  }
  return absl::OkStatus();
}

}  // namespace credledger::service
