#include "service/bridge/bridge_mirror_sink.h"

#include <utility>

#include "service/bridge/bridge_outcome_sink.h"

namespace credledger::service {

BridgeMirrorSink::BridgeMirrorSink(IdentityCommandBus* bus, common::Clock* clock)
    : bus_(bus), clock_(clock) {}

absl::StatusOr<kubebridge::RecordedOutcomes> BridgeMirrorSink::Record(
    const std::string& identity, const std::vector<kubebridge::MirrorOutcome>& outcomes,
    const std::string& request_id) {
  const IdentityCommandContext context{identity, clock_->Now(), kServiceActor, request_id};
  absl::StatusOr<IdentityCommandResult> result =
      bus_->Execute(ApplyMirrorOutcomes{outcomes}, context);
  if (!result.ok()) return result.status();
  const int64_t appended = result->replayed ? 0 : static_cast<int64_t>(result->events.size());
  return kubebridge::RecordedOutcomes{std::move(result->state), appended};
}

absl::StatusOr<v1::IdentityState> BridgeMirrorSink::Load(const std::string& identity) {
  return bus_->LoadState({.identity = std::string(identity)});
}

}  // namespace credledger::service
