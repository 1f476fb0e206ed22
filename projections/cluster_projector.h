// ClusterProjector: keeps the cluster read model (every `cluster/<name>` stream folded by
// EvolveCluster; ClusterProjection in cluster_projection.h) current by following the log,
// with snapshots and key listeners (projector.h; docs/design.md, "Snapshots").
//
// Thread-safety: all methods are thread-safe. Listeners run on the projector's thread, in
// seq order, and must not block.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "projections/cluster_projection.h"
#include "projections/projector.h"
#include "store/event_store.h"

namespace credledger::projections {

template <>
struct ProjectionTraits<ClusterProjection> {
  using State = v1::ClusterState;
  static constexpr const char* kName = kClusterProjectionName;
  static constexpr uint32_t kVersion = kClusterProjectionVersion;
  // `key` is a stream name as ClusterProjection::Apply returns them.
  static std::optional<State> GetByKey(const ClusterProjection& p, const std::string& key) {
    return p.GetStream(key);
  }
};

extern template class Projector<ClusterProjection>;

class ClusterProjector final : public Projector<ClusterProjection> {
 public:
  // Starts following `store` (not owned; must outlive the projector).
  // Errors: kDataLoss for an undecodable cluster event or snapshot; store read errors.
  static absl::StatusOr<std::unique_ptr<ClusterProjector>> Start(store::EventStore* store,
                                                                 Options options);

  // One cluster by name; nullopt when its stream has no events.
  std::optional<v1::ClusterState> GetCluster(absl::string_view name) const;
  // Cluster `name` when it is registered and not deregistered (PHASE_ACTIVE): what mirrors
  // and probes may use.
  // Errors: kNotFound `cluster "<name>" is not registered` otherwise.
  absl::StatusOr<v1::ClusterState> GetActive(absl::string_view name) const;
  // Clusters ordered by name (active ones; also deregistered ones when asked). `seq` (may
  // be null) receives the position the list is consistent with.
  std::vector<v1::ClusterState> List(bool include_deregistered, int64_t* seq) const;

 private:
  using Projector::Projector;
};

}  // namespace credledger::projections
