#include "service/api/cluster_api.h"

#include <algorithm>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "common/status_macros.h"
#include "projections/cluster_state.h"
#include "projections/proto_time.h"
#include "service/api/target_api.h"
#include "service/decide/cluster_validation.h"
#include "service/decide/validation.h"

namespace credledger::service {
namespace {

constexpr char kNoProbeMessage[] =
    "probing a cluster requires a home cluster connection (--kubeconfig or in-cluster)";

// OK when `known` (the cluster's state, nullopt when it has no events) is an active cluster;
// otherwise NotFound in the decider's words, prefixed with the name.
absl::Status RequireActive(absl::string_view name, const std::optional<v1::ClusterState>& known) {
  const absl::Status active =
      projections::RequireActiveCluster(known.value_or(v1::ClusterState()));
  if (active.ok()) return active;
  return absl::NotFoundError(absl::StrCat("cluster \"", name, "\": ", active.message()));
}

}  // namespace

ClusterApi::ClusterApi(ClusterCommandBus* bus, projections::ClusterProjector* projector,
                       const projections::IdentityProjector* identities, ClusterProbeFunction probe,
                       LastProbeFunction last_probe, common::Clock* clock, Options options)
    : bus_(bus),
      projector_(projector),
      identities_(identities),
      probe_(std::move(probe)),
      last_probe_(std::move(last_probe)),
      clock_(clock),
      options_(options) {}

v1::ClusterState ClusterApi::ReadYourWrites(absl::string_view name, int64_t seq,
                                            v1::ClusterState fallback) const {
  std::optional<v1::ClusterState> state;
  if (projector_->WaitForSeq(seq, options_.read_your_writes_timeout)) {
    state = projector_->GetCluster(name);
  }
  if (!state.has_value() || state->seq() < seq) return fallback;
  return *std::move(state);
}

v1::ClusterView ClusterApi::View(v1::ClusterState cluster) const {
  std::optional<absl::Time> live;
  if (last_probe_) live = last_probe_(cluster.name());
  return ToClusterView(std::move(cluster), live);
}

absl::StatusOr<v1::ClusterChangeResponse> ClusterApi::Run(const ClusterCommand& command,
                                                          absl::string_view name,
                                                          const RequestKey& request,
                                                          const std::string& actor) {
  ClusterCommandContext context;
  context.cluster = std::string(name);
  context.now = clock_->Now();
  context.actor = actor;
  context.request_id = request.id;
  context.request_digest = request.digest;
  ASSIGN_OR_RETURN(ClusterCommandResult result, bus_->Execute(command, context));

  v1::ClusterChangeResponse response;
  response.set_replayed(result.replayed);
  if (!result.events.empty()) response.set_seq(result.events.back().seq);
  // Read your writes: answer from the projector once it has folded the command's events;
  // past the timeout, from the state the command itself computed.
  const int64_t wait_for = std::max(response.seq(), result.state.seq());
  *response.mutable_cluster() = ReadYourWrites(name, wait_for, std::move(result.state));
  return response;
}

absl::StatusOr<v1::ClusterChangeResponse> ClusterApi::RegisterCluster(
    const v1::RegisterClusterRequest& request, absl::string_view actor) {
  RETURN_IF_ERROR(ValidateClusterName("name", request.name()));
  RETURN_IF_ERROR(ValidateClientRequestId(request.request_id(), kMaxRequestIdBytes));
  // One spec written two ways is one request: its digest is that of the normalized spec.
  // Normalized first, so that the server and CA a kubeconfig cluster ignores are dropped
  // unchecked, as the CLI's note says.
  v1::RegisterClusterRequest normalized = request;
  *normalized.mutable_spec() = NormalizedClusterSpec(request.spec());
  RETURN_IF_ERROR(ValidateClusterSpec(normalized.spec()));
  ASSIGN_OR_RETURN(const std::string resolved, ResolveActor(actor));
  return Run(service::RegisterCluster{normalized.spec()}, request.name(), KeyOf(normalized),
             resolved);
}

absl::StatusOr<v1::ClusterChangeResponse> ClusterApi::DeregisterCluster(
    const v1::DeregisterClusterRequest& request, absl::string_view actor) {
  RETURN_IF_ERROR(ValidateClusterName("name", request.name()));
  RETURN_IF_ERROR(ValidateClientRequestId(request.request_id(), kMaxRequestIdBytes));
  ASSIGN_OR_RETURN(const std::string resolved, ResolveActor(actor));
  service::DeregisterCluster command;
  identities_->VisitActive([&](const v1::IdentityState& identity) {
    if (identity.spec().cluster() == request.name()) command.identities.push_back(identity.name());
  });
  return Run(command, request.name(), KeyOf(request), resolved);
}

absl::StatusOr<v1::GetClusterResponse> ClusterApi::ProbeCluster(
    const v1::ProbeClusterRequest& request, kubebridge::Cancellation* cancel) {
  RETURN_IF_ERROR(ValidateClusterName("name", request.name()));
  if (!probe_) return absl::FailedPreconditionError(kNoProbeMessage);
  RETURN_IF_ERROR(RequireActive(request.name(), projector_->GetCluster(request.name())));
  kubebridge::Cancellation never;  // stands in for a null `cancel`
  ASSIGN_OR_RETURN(v1::ClusterState probed,
                   probe_(request.name(), cancel != nullptr ? cancel : &never));
  const int64_t seq = probed.seq();
  v1::GetClusterResponse response;
  *response.mutable_cluster() = View(ReadYourWrites(request.name(), seq, std::move(probed)));
  return response;
}

absl::StatusOr<v1::GetClusterResponse> ClusterApi::GetCluster(
    const v1::GetClusterRequest& request) const {
  RETURN_IF_ERROR(ValidateClusterName("name", request.name()));
  std::optional<v1::ClusterState> state = projector_->GetCluster(request.name());
  if (!state.has_value()) return RequireActive(request.name(), std::nullopt);
  v1::GetClusterResponse response;
  *response.mutable_cluster() = View(*std::move(state));
  return response;
}

absl::StatusOr<v1::ListClustersResponse> ClusterApi::ListClusters(
    const v1::ListClustersRequest& request) const {
  int64_t seq = 0;
  std::vector<v1::ClusterState> states = projector_->List(request.include_deregistered(), &seq);
  v1::ListClustersResponse response;
  response.set_seq(seq);
  for (v1::ClusterState& state : states) *response.add_clusters() = View(std::move(state));
  return response;
}

}  // namespace credledger::service
