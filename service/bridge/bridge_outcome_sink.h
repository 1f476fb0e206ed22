// BridgeOutcomeSink: the kube bridge's OutcomeSink, turning its outcomes into Target commands
// on the command bus with actor "credledger" (docs/design.md, "Intent and outcome").
//
// Thread-safety: thread-safe.
#pragma once

#include "absl/synchronization/mutex.h"
#include "common/clock.h"
#include "kubebridge/model/outcomes.h"
#include "service/bus/target_command_bus.h"
#include "service/decide/validation.h"

namespace credledger::service {


class BridgeOutcomeSink final : public kubebridge::OutcomeSink {
 public:
  // `bus` and `clock` are not owned and must outlive the sink. `service` is the
  // configuration recorded at start-up.
  BridgeOutcomeSink(TargetCommandBus* bus, common::Clock* clock, v1::ServiceConfigured service);

  absl::StatusOr<v1::TargetState> Record(const std::string& target_namespace,
                                         const std::string& name,
                                         const kubebridge::Outcome& outcome,
                                         const std::string& request_id) override;
  absl::StatusOr<v1::TargetState> Load(const std::string& target_namespace,
                                       const std::string& name) override;
  v1::ServiceConfigured Service() override { return service_; }

 private:
  TargetCommandBus* bus_;
  common::Clock* clock_;
  const v1::ServiceConfigured service_;
};

}  // namespace credledger::service
