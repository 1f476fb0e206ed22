#include "service/bridge/bridge_cluster_sink.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "common/sha256.h"
#include "kubebridge/model/outcomes.h"
#include "service/bridge/bridge_outcome_sink.h"
#include "store/event_codec.h"

namespace credledger::service {
namespace {

// Hex digits of the outcome's digest in its request id.
constexpr size_t kProbeDigestChars = 16;

}  // namespace

std::string ClusterProbeRequestId(const v1::ClusterState& state, const v1::ClusterProbed& probe) {
  return absl::StrCat(
      kubebridge::kServiceRequestIdPrefix, "cluster/", state.name(), "/",
      state.incarnation_version(), "/", state.stream_version(), "/probe/",
      common::Sha256HexPrefix(store::SerializeDeterministic(probe), kProbeDigestChars));
}

BridgeClusterSink::BridgeClusterSink(ClusterCommandBus* bus, common::Clock* clock,
                                     absl::Duration record_interval)
    : bus_(bus), clock_(clock), record_interval_(record_interval) {}

absl::StatusOr<v1::ClusterState> BridgeClusterSink::RecordProbe(const std::string& name,
                                                                const v1::ClusterProbed& probe) {
  absl::StatusOr<v1::ClusterState> state = bus_->LoadState({.cluster = std::string(name)});
  if (!state.ok()) return state.status();
  // A cluster never registered has no name in its state yet; the id names it anyway.
  state->set_name(name);
  const ClusterCommandContext context{name, clock_->Now(), kServiceActor,
                                      ClusterProbeRequestId(*state, probe)};
  absl::StatusOr<ClusterCommandResult> result =
      bus_->Execute(service::RecordProbe{probe, record_interval_}, context);
  if (!result.ok()) return result.status();
  return std::move(result->state);
}

}  // namespace credledger::service
