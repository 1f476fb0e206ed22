// EvolveCluster: folds the events of one cluster stream into a ClusterState
// (docs/connections.md, "Error classes" and "Probes and the Reachable condition";
// docs/design.md, "Deciders").
// Pure: no clock, no I/O; times come from the events' positions.
//
// Reachable condition: Unknown/ProbePending after a registration or a spec change (until a
// probe of that spec is recorded); then True/ProbeSucceeded, False/ProbeFailed or
// False/Unsupported from the last ClusterProbed whose spec_version is the current one
// (probes of an older spec are kept in the log but do not change the state). Its
// last_transition_time changes only when its status changes; its message is the probe's
// (empty on success). server_version and api_groups come from the last successful probe of
// the current spec; last_probe_time and auth_type from the last recorded probe of it.
//
// Thread-safety: pure functions.
#pragma once

#include <string>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "credledger/v1/events.pb.h"
#include "credledger/v1/state.pb.h"
#include "projections/target_state.h"

namespace credledger::projections {

inline constexpr char kReachableCondition[] = "Reachable";
inline constexpr char kReasonProbePending[] = "ProbePending";

// "cluster/<name>".
std::string ClusterStream(absl::string_view name);

// OK when `state` is an active cluster (registered, not deregistered): what mirrors, probes
// and deregistration need. Errors: kNotFound "not registered" for a cluster never
// registered (PHASE_UNSPECIFIED), "deregistered; register it again to use it" for a
// deregistered one (`cluster get` still answers it). Callers prefix the cluster's name.
absl::Status RequireActiveCluster(const v1::ClusterState& state);

// Folds `event` (of the cluster's stream, at `at`) into `state`. Events of other streams'
// kinds leave it unchanged. ClusterRegistered starts a new incarnation (state reset);
// ClusterSpecChanged replaces the spec and resets the probe results; ClusterDeregistered
// sets PHASE_DEREGISTERED. Every cluster event moves stream_version and seq, also a probe
// that changes nothing else.
void EvolveCluster(v1::ClusterState& state, const v1::Event& event, const EventPosition& at);

}  // namespace credledger::projections
