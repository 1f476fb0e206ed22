// BridgeClusterSink: the cluster bridge's ClusterProbeSink, turning each probe outcome into a
// RecordProbe command on the ClusterCommandBus with actor "credledger" (docs/design.md,
// "Intent and outcome"; docs/connections.md, "Error classes" and
// "Probes and the Reachable condition").
//
// The request id is derived from the cluster's state as read just before the command and
// from the outcome itself (ClusterProbeRequestId): the same outcome reported again for the
// same state (a retry after a crash or a lost answer) appends nothing twice, a different
// outcome reported concurrently is decided on its own, and a later report is new.
//
// Thread-safety: thread-safe (the bus and the clock are).
#pragma once

#include <string>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "common/clock.h"
#include "credledger/v1/events.pb.h"
#include "credledger/v1/state.pb.h"
#include "kubebridge/clusters/cluster_bridge.h"
#include "service/bus/cluster_command_bus.h"

namespace credledger::service {

// "credledger:cluster/<name>/<incarnation version>/<stream version>/probe/<h>", where <h> is
// the first 16 hex digits of SHA-256 over the deterministic serialization of `probe`.
std::string ClusterProbeRequestId(const v1::ClusterState& state, const v1::ClusterProbed& probe);

class BridgeClusterSink final : public kubebridge::ClusterProbeSink {
 public:
  // `bus` and `clock` are not owned and must outlive the sink. An unchanged outcome is
  // recorded again once its last record is older than `record_interval`.
  BridgeClusterSink(ClusterCommandBus* bus, common::Clock* clock,
                    absl::Duration record_interval = kDefaultProbeRecordInterval);

  // Runs RecordProbe{probe, record_interval} for cluster `name` at the clock's now.
  // Returns the cluster's state afterwards.
  // Errors: as ClusterCommandBus::Execute (kNotFound when the cluster is not active).
  absl::StatusOr<v1::ClusterState> RecordProbe(const std::string& name,
                                               const v1::ClusterProbed& probe) override;

 private:
  ClusterCommandBus* bus_;
  common::Clock* clock_;
  const absl::Duration record_interval_;
};

}  // namespace credledger::service
