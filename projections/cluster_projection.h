// ClusterProjection: the cluster read model, every `cluster/<name>` stream folded by
// EvolveCluster (docs/connections.md, "Clusters"; docs/design.md, "Projections"), on
// NamedStreamProjection (named_stream_projection.h: Apply, Get, GetStream, List, ForEachActive,
// Serialize, Deserialize). A cluster is active in PHASE_ACTIVE; List(true) also gives the
// deregistered ones and streams without a ClusterRegistered.
//
// The snapshot is a ClusterFleetState (clusters ordered by name).
//
// Thread-safety: not thread-safe; ClusterProjector wraps it with a lock.
#pragma once

#include <cstdint>
#include <optional>

#include "absl/strings/string_view.h"
#include "credledger/v1/events.pb.h"
#include "credledger/v1/state.pb.h"
#include "google/protobuf/repeated_field.h"
#include "projections/named_stream_projection.h"
#include "projections/target_state.h"

namespace credledger::projections {

// Snapshot name and state version of this projection in `projection_snapshots`.
inline constexpr char kClusterProjectionName[] = "clusters";
inline constexpr uint32_t kClusterProjectionVersion = 1;

// The `cluster/<name>` streams, for NamedStreamProjection.
struct ClusterStreams {
  using State = v1::ClusterState;
  using Fleet = v1::ClusterFleetState;
  static constexpr absl::string_view kPrefix = "cluster/";
  static constexpr absl::string_view kKind = "cluster";
  // EvolveCluster.
  static void Evolve(State& state, const v1::Event& event, const EventPosition& at);
  // True in PHASE_ACTIVE.
  static bool IsActive(const State& state);
  static google::protobuf::RepeatedPtrField<State>* States(Fleet& fleet);
};

class ClusterProjection : public NamedStreamProjection<ClusterProjection, ClusterStreams> {
 public:
  // One cluster by name; nullopt when its stream has no events.
  std::optional<v1::ClusterState> GetCluster(absl::string_view name) const {
    return GetByName(name);
  }
};

}  // namespace credledger::projections
