#include "service/offline/cluster_view.h"

#include <algorithm>
#include <utility>

#include "projections/proto_time.h"

namespace credledger::service {

v1::ClusterView ToClusterView(v1::ClusterState cluster, std::optional<absl::Time> live) {
  v1::ClusterView view;
  if (cluster.has_last_probe_time()) {
    const absl::Time recorded = projections::FromProto(cluster.last_probe_time());
    live = live.has_value() ? std::max(*live, recorded) : recorded;
  }
  if (live.has_value()) *view.mutable_last_probe_time() = projections::ToProto(*live);
  *view.mutable_cluster() = std::move(cluster);
  return view;
}

}  // namespace credledger::service
