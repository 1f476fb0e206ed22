// The commands of the cluster stream and its decider: Decide(command, state) -> events, pure
// (docs/design.md, "Deciders"; docs/connections.md, "Clusters" and
// "Probes and the Reachable condition").
//
// Client commands come from ClusterService; the cluster bridge's probe outcomes arrive as
// RecordProbe (docs/design.md, "Intent and outcome"). `state` is the fold
// (projections::EvolveCluster) of stream `cluster/<name>`; the name, time and actor arrive in
// the ClusterCommandContext. A command that is already satisfied yields no events. Every
// error message starts with `cluster "<name>": ` and names the rule.
#pragma once

#include <string>
#include <variant>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "credledger/v1/connection.pb.h"
#include "credledger/v1/events.pb.h"
#include "credledger/v1/state.pb.h"

namespace credledger::service {

// The default of RecordProbe::record_interval: an unchanged probe outcome is recorded again
// once its last record is older than this (events.proto, ClusterProbed).
inline constexpr absl::Duration kDefaultProbeRecordInterval = absl::Hours(1);

// Registers the cluster with `spec`, or replaces the spec of a registered one.
struct RegisterCluster {
  v1::ClusterSpec spec;
};
// Deregisters the cluster. `identities` are the names of the active identities whose
// spec.cluster names this cluster, gathered by the API edge (the decider reads no other
// stream); any of them refuses the command.
struct DeregisterCluster {
  std::vector<std::string> identities;
};
// The cluster bridge's outcome of probing the cluster (kubebridge::ProbeCluster).
struct RecordProbe {
  v1::ClusterProbed probe;
  // An outcome equal to the last recorded one is recorded again when that record is older
  // than this before the command's time.
  absl::Duration record_interval = kDefaultProbeRecordInterval;
};

using ClusterCommand = std::variant<RegisterCluster, DeregisterCluster, RecordProbe>;

// The command's type name ("RegisterCluster", ...), recorded in each event's metadata.
std::string ClusterCommandName(const ClusterCommand& command);

// What every cluster command carries besides its own fields.
// Every field is defaulted, so an initializer names only what it sets.
struct ClusterCommandContext {
  std::string cluster = {};  // the cluster's name
  absl::Time now = {};
  std::string actor = {};
  std::string request_id = {};
  // RequestDigest of the client's request (service/bus/prior_request.h); empty for the service's
  // own commands.
  std::string request_digest = {};
};

// Decides `command` against `state`:
//   RegisterCluster    ClusterRegistered{name, spec} when never registered or deregistered
//                      (a new incarnation); nothing when active with the same spec;
//                      ClusterSpecChanged{spec} when active with another spec. Specs are
//                      recorded and compared as NormalizedClusterSpec (cluster_validation.h).
//   DeregisterCluster  ClusterDeregistered.
//   RecordProbe        nothing when probe.spec_version is not the state's spec_version (a
//                      probe of another spec); ClusterProbed(probe) when the state holds no
//                      probe of the current spec, when reason, message, auth_type or (for
//                      ProbeSucceeded) server_version or api_groups differ from the last
//                      recorded probe, or when last_probe_time < now - record_interval;
//                      nothing otherwise.
// Errors (no events):
//   kNotFound            Deregister or RecordProbe of a cluster that is not active
//                        ("deregistered; ..." or "not registered").
//   kFailedPrecondition  Deregister while identities target the cluster (naming them).
//   kInvalidArgument     an invalid spec (ValidateClusterSpec); a probe whose reason is not
//                        ProbeSucceeded, ProbeFailed or Unsupported, or that failed yet
//                        carries a server version or API groups.
absl::StatusOr<std::vector<v1::Event>> DecideCluster(const ClusterCommand& command,
                                                     const v1::ClusterState& state,
                                                     const ClusterCommandContext& context);

}  // namespace credledger::service
