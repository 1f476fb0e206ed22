// TargetWatch: one WatchTargets stream's source of items, independent of gRPC: the
// ProjectorWatch (projector_watch.h: snapshot, SNAPSHOT_END, changes, bounded queue) over the
// CredentialProjector, with Targets rendered as the API's Target view. Finalized Targets are
// left out of the snapshot; changes include them.
//
// Thread-safety: as ProjectorWatch.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "credledger/v1/api.pb.h"
#include "projections/credential_projector.h"
#include "service/api/projector_watch.h"

namespace credledger::service {

struct TargetWatchTraits {
  using Projector = projections::CredentialProjector;
  using State = v1::TargetState;
  using Response = v1::WatchTargetsResponse;
  static constexpr char kRpc[] = "WatchTargets";
  // The registered, not finalized Targets of `target_namespace` (all when empty).
  static std::vector<State> List(const Projector& projector,
                                 const std::string& target_namespace, int64_t* seq);
  // Sets response.target to the view of `state` under the current connection hash.
  static void Render(const Projector& projector, const State& state, Response& response);
  // The WatchTargets marker carries nothing besides kind and seq.
  static void RenderSnapshotEnd(const std::vector<State>&, Response&) {}
};

extern template class ProjectorWatch<TargetWatchTraits>;
using TargetWatch = ProjectorWatch<TargetWatchTraits>;

}  // namespace credledger::service
