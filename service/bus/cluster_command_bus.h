// ClusterCommandBus: the command bus of cluster streams `cluster/<name>` (docs/connections.md,
// "Clusters"; docs/architecture.md, "One command bus"). A command folds its cluster's stream
// (projections::EvolveCluster) and runs DecideCluster; its events are appended under the
// version folded. The cluster's name is validated by the API edge, not here.
//
// The kept fold matters here: the bridge reports a probe of every cluster every few minutes,
// and an unchanged outcome is still recorded once per record interval, so a long-lived
// cluster's stream keeps growing while each command folds only the events after its fold.
//
// Thread-safety: as CommandBus.
#pragma once

#include <string>

#include "absl/status/statusor.h"
#include "credledger/v1/events.pb.h"
#include "credledger/v1/state.pb.h"
#include "projections/target_state.h"
#include "service/bus/bus_decider.h"
#include "service/bus/command_bus.h"
#include "service/decide/cluster_decider.h"

namespace credledger::service {

// The bus decider of cluster streams (service/bus/bus_decider.h).
struct ClusterBusDecider : BusDeciderDefaults<v1::ClusterState> {
  using Command = ClusterCommand;
  using Context = ClusterCommandContext;
  using State = v1::ClusterState;

  // Addresses and folds `cluster/<name>` of the context's cluster.
  BusStreams Streams(const ClusterCommand& command, const ClusterCommandContext& context) const;
  void Evolve(v1::ClusterState& state, v1::Event& event, const projections::EventPosition& at,
              const ClusterCommandContext& context) const;
  std::string Name(const ClusterCommand& command) const;
  // DecideCluster's events for the cluster's stream. Errors: DecideCluster's.
  absl::StatusOr<Decision<NoNote>> Decide(const ClusterCommand& command,
                                          const v1::ClusterState& state,
                                          const ClusterCommandContext& context,
                                          NoReads& reads) const;
};

using ClusterCommandBus = CommandBus<ClusterBusDecider>;
// What a cluster command gave; `state` is the cluster's state after it (PHASE_UNSPECIFIED
// for a cluster without events).
using ClusterCommandResult = ClusterCommandBus::Result;

}  // namespace credledger::service
