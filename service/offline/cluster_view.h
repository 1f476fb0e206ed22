// The view of a registered cluster that the API and the CLI show.
//
// Thread-safety: a pure function.
#pragma once

#include <optional>

#include "absl/time/time.h"
#include "credledger/v1/api.pb.h"
#include "credledger/v1/state.pb.h"

namespace credledger::service {

// The view of `cluster` with last_probe_time the later of cluster.last_probe_time and
// `live` (nullopt: only the recorded one; unset when neither is known).
v1::ClusterView ToClusterView(v1::ClusterState cluster, std::optional<absl::Time> live);

}  // namespace credledger::service
