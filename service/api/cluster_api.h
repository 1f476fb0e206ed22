// ClusterApi: the ClusterService RPCs (proto/credledger/v1/api.proto) without gRPC: input
// validation, command execution through the ClusterCommandBus, probes through the cluster
// bridge, and reads from the ClusterProjector (docs/connections.md, "Clusters"; docs/api.md,
// "ClusterService"). The gRPC adapter (cluster_grpc_service.h) only extracts the actor and maps
// statuses.
//
// Every mutating call validates the cluster name (a DNS-1123 label), the request id
// (printable ASCII, at most 128 bytes, not "credledger:"-prefixed), the actor and its own
// fields (ValidateClusterSpec) before anything is appended; runs the command with the time
// from the injected clock; then waits (bounded) until the projector has folded the
// command's events, so that a read after the call reflects it. RegisterCluster decides on
// NormalizedClusterSpec(spec) and keys the request (RequestKey) by the request with that
// spec, so that one spec written two ways is one spec and one request.
//
// DeregisterCluster asks the identity projector which active identities name the cluster in
// spec.cluster and hands them to the decider, which refuses while there are any.
//
// Views (ClusterView): last_probe_time is the later of the recorded one and the last probe
// this process ran (an unchanged outcome is recorded at most once per record interval).
//
// Errors of every mutating call: kInvalidArgument naming the field and rule (name,
// request_id, credledger-actor, spec.*); the decider's kNotFound / kFailedPrecondition;
// kFailedPrecondition when the request id was already used for another request;
// kUnavailable when the log cannot be written. A failed call appends nothing.
//
// Thread-safety: all methods are thread-safe (the probe functions must be too).
#pragma once

#include <functional>
#include <optional>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "common/clock.h"
#include "credledger/v1/api.pb.h"
#include "kubebridge/client/cancellation.h"
#include "projections/cluster_projector.h"
#include "projections/identity_projector.h"
#include "service/bus/cluster_command_bus.h"
#include "service/bus/prior_request.h"
#include "service/offline/cluster_view.h"

namespace credledger::service {

// Probes cluster `name` now and records the outcome; returns the cluster's state afterwards
// (kubebridge::ClusterBridge::ProbeNow). `cancel` ends the probe early.
using ClusterProbeFunction = std::function<absl::StatusOr<v1::ClusterState>(
    const std::string& name, kubebridge::Cancellation* cancel)>;
// When this process last finished a probe of cluster `name`; nullopt when it has not
// (kubebridge::ClusterBridge::LastProbe).
using LastProbeFunction = std::function<std::optional<absl::Time>(const std::string& name)>;


class ClusterApi {
 public:
  struct Options {
    // How long a call waits for the projector to fold its events before it answers with
    // the state the command computed.
    absl::Duration read_your_writes_timeout = absl::Seconds(5);
  };

  // `bus`, `projector`, `identities` and `clock` are not owned and must outlive the api.
  // `probe` and `last_probe` are null when the service has no home cluster connection (no
  // cluster bridge): ProbeCluster then fails with kFailedPrecondition and views carry the
  // recorded last_probe_time only.
  ClusterApi(ClusterCommandBus* bus, projections::ClusterProjector* projector,
             const projections::IdentityProjector* identities, ClusterProbeFunction probe,
             LastProbeFunction last_probe, common::Clock* clock, Options options);

  // Mutating RPCs; `actor` is the caller's declared identity (empty means anonymous).
  // Errors: see the file comment; per-RPC rules in api.proto.
  absl::StatusOr<v1::ClusterChangeResponse> RegisterCluster(
      const v1::RegisterClusterRequest& request, absl::string_view actor);
  // Errors additionally: kNotFound when the cluster is not active (`cluster "<name>":
  // deregistered; ...` or `... not registered`); kFailedPrecondition naming the identities
  // whose spec.cluster is this cluster.
  absl::StatusOr<v1::ClusterChangeResponse> DeregisterCluster(
      const v1::DeregisterClusterRequest& request, absl::string_view actor);

  // Probes the cluster now through the probe function, which records the outcome when it
  // changed, and returns its view. A failed probe is not an error: it is the Reachable
  // condition. `cancel` (may be null) ends the probe early.
  // Errors: kInvalidArgument (name); kFailedPrecondition without a probe function;
  // kNotFound when the cluster is not active (worded as for DeregisterCluster); the probe
  // function's errors (kUnavailable when the log cannot be written, kCancelled).
  absl::StatusOr<v1::GetClusterResponse> ProbeCluster(const v1::ProbeClusterRequest& request,
                                                      kubebridge::Cancellation* cancel);

  // Reads from the projector. GetCluster answers a deregistered cluster too (phase
  // Deregistered, its last spec and probe), for audits; ListClusters only with
  // include_deregistered. Errors: kInvalidArgument (name); kNotFound for a cluster that was
  // never registered (GetCluster).
  absl::StatusOr<v1::GetClusterResponse> GetCluster(const v1::GetClusterRequest& request) const;
  absl::StatusOr<v1::ListClustersResponse> ListClusters(
      const v1::ListClustersRequest& request) const;

 private:
  // Runs `command` for cluster `name` and answers with the cluster after it.
  absl::StatusOr<v1::ClusterChangeResponse> Run(const ClusterCommand& command,
                                                absl::string_view name,
                                                const RequestKey& request,
                                                const std::string& actor);
  // The cluster as the projector holds it once it has folded `seq`; `fallback` when it has
  // not within the read-your-writes timeout.
  v1::ClusterState ReadYourWrites(absl::string_view name, int64_t seq,
                                  v1::ClusterState fallback) const;
  // ToClusterView with this process's last probe of the cluster.
  v1::ClusterView View(v1::ClusterState cluster) const;

  ClusterCommandBus* const bus_;
  projections::ClusterProjector* const projector_;
  const projections::IdentityProjector* const identities_;
  const ClusterProbeFunction probe_;
  const LastProbeFunction last_probe_;
  common::Clock* const clock_;
  const Options options_;
};

}  // namespace credledger::service
