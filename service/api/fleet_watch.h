// FleetWatch: one WatchFleet stream's source of items, independent of gRPC (docs/reports.md,
// "Rollups"; docs/api.md, "ReportService"): the ProjectorWatch (projector_watch.h: snapshot,
// SNAPSHOT_END, changes, bounded queue) over the StatusProjector, with rollups rendered as
// TargetStatusView. The snapshot lists active Targets and its SNAPSHOT_END marker carries their
// FleetSummary; changes include a Target's finalization (active false).
//
// Thread-safety: as ProjectorWatch.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "credledger/v1/api.pb.h"
#include "projections/status_projector.h"
#include "service/api/projector_watch.h"

namespace credledger::service {

struct FleetWatchTraits {
  using Projector = projections::StatusProjector;
  using State = v1::TargetStatus;
  using Response = v1::WatchFleetResponse;
  static constexpr char kRpc[] = "WatchFleet";
  // The active Targets of `target_namespace` (all when empty).
  static std::vector<State> List(const Projector& projector,
                                 const std::string& target_namespace, int64_t* seq);
  // Sets response.status to the view of `state`.
  static void Render(const Projector& projector, const State& state, Response& response);
  // Sets response.summary to the counts over `snapshot`.
  static void RenderSnapshotEnd(const std::vector<State>& snapshot, Response& response);
};

extern template class ProjectorWatch<FleetWatchTraits>;
using FleetWatch = ProjectorWatch<FleetWatchTraits>;

}  // namespace credledger::service
