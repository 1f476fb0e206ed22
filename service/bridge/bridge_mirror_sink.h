// BridgeMirrorSink: the mirror bridge's MirrorOutcomeSink, turning each batch of outcomes
// into one ApplyMirrorOutcomes command on the IdentityCommandBus with actor "credledger"
// (docs/design.md, "Intent and outcome"; docs/mirrors.md, "How a change propagates").
//
// Thread-safety: thread-safe (the bus and the clock are).
#pragma once

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "common/clock.h"
#include "credledger/v1/state.pb.h"
#include "kubebridge/model/mirror_outcomes.h"
#include "service/bus/identity_command_bus.h"

namespace credledger::service {

class BridgeMirrorSink final : public kubebridge::MirrorOutcomeSink {
 public:
  // `bus` and `clock` are not owned and must outlive the sink.
  BridgeMirrorSink(IdentityCommandBus* bus, common::Clock* clock);

  // Runs ApplyMirrorOutcomes{outcomes} for `identity` at the clock's now, as one command
  // (all outcomes appended or none); a replayed request appended nothing now. Errors as
  // IdentityCommandBus::Execute.
  absl::StatusOr<kubebridge::RecordedOutcomes> Record(
      const std::string& identity, const std::vector<kubebridge::MirrorOutcome>& outcomes,
      const std::string& request_id) override;
  // IdentityCommandBus::LoadState.
  absl::StatusOr<v1::IdentityState> Load(const std::string& identity) override;

 private:
  IdentityCommandBus* bus_;
  common::Clock* clock_;
};

}  // namespace credledger::service
