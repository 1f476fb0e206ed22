#include "projections/cluster_projector.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "common/status_macros.h"

namespace credledger::projections {

template class Projector<ClusterProjection>;

absl::StatusOr<std::unique_ptr<ClusterProjector>> ClusterProjector::Start(store::EventStore* store,
                                                                          Options options) {
  std::unique_ptr<ClusterProjector> projector(new ClusterProjector(store, options));
  RETURN_IF_ERROR(projector->Follow());
  return projector;
}

std::optional<v1::ClusterState> ClusterProjector::GetCluster(absl::string_view name) const {
  return Read([&](const ClusterProjection& p) { return p.GetCluster(name); });
}

absl::StatusOr<v1::ClusterState> ClusterProjector::GetActive(absl::string_view name) const {
  std::optional<v1::ClusterState> cluster = GetCluster(name);
  if (!cluster.has_value() || cluster->phase() != v1::ClusterState::PHASE_ACTIVE) {
    return absl::NotFoundError(absl::StrCat("cluster \"", name, "\" is not registered"));
  }
  return *std::move(cluster);
}

std::vector<v1::ClusterState> ClusterProjector::List(bool include_deregistered,
                                                     int64_t* seq) const {
  return Read([&](const ClusterProjection& p) {
    if (seq != nullptr) *seq = p.seq();
    return p.List(include_deregistered);
  });
}

}  // namespace credledger::projections
