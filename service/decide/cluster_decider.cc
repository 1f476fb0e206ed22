#include "service/decide/cluster_decider.h"

#include <google/protobuf/util/message_differencer.h>

#include <algorithm>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "common/status_macros.h"
#include "kubebridge/model/connection_errors.h"
#include "projections/cluster_state.h"
#include "projections/proto_time.h"
#include "service/decide/cluster_validation.h"

namespace credledger::service {
namespace {

using google::protobuf::util::MessageDifferencer;
using v1::ClusterState;
using v1::Event;

struct ClusterCommandNamer {
  const char* operator()(const RegisterCluster&) const { return "RegisterCluster"; }
  const char* operator()(const DeregisterCluster&) const { return "DeregisterCluster"; }
  const char* operator()(const RecordProbe&) const { return "RecordProbe"; }
};

// A probe outcome as the bridge reports it (events.proto, ClusterProbed).
absl::Status ValidateProbe(const v1::ClusterProbed& probe) {
  if (probe.reason() == kubebridge::kReasonProbeSucceeded) return absl::OkStatus();
  if (probe.reason() != kubebridge::kReasonProbeFailed &&
      probe.reason() != kubebridge::kReasonUnsupported) {
    return absl::InvalidArgumentError(absl::StrCat(
        "probe.reason: \"", probe.reason(), "\" is none of ", kubebridge::kReasonProbeSucceeded,
        ", ", kubebridge::kReasonProbeFailed, ", ", kubebridge::kReasonUnsupported));
  }
  if (!probe.server_version().empty() || !probe.api_groups().empty()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "probe: a probe with reason ", probe.reason(),
        " carries no server_version and no api_groups (they come from successful probes)"));
  }
  return absl::OkStatus();
}

// Whether `probe` says something the last recorded probe of the current spec does not.
bool DiffersFromLastProbe(const ClusterState& state, const v1::ClusterProbed& probe) {
  if (!state.has_last_probe_time()) return true;
  if (probe.reason() != state.reachable().reason() ||
      probe.message() != state.reachable().message() || probe.auth_type() != state.auth_type()) {
    return true;
  }
  if (probe.reason() != kubebridge::kReasonProbeSucceeded) return false;
  return probe.server_version() != state.server_version() ||
         !std::equal(probe.api_groups().begin(), probe.api_groups().end(),
                     state.api_groups().begin(), state.api_groups().end());
}

class ClusterDecision {
 public:
  ClusterDecision(const ClusterState& state, const ClusterCommandContext& context)
      : state_(state), context_(context) {}

  absl::StatusOr<std::vector<Event>> operator()(const RegisterCluster& c) const {
    RETURN_IF_ERROR(ValidateClusterSpec(c.spec));
    // Recorded and compared with the defaults written out, also those of a spec recorded
    // before specs were normalized, so that one spec written two ways changes nothing.
    v1::ClusterSpec spec = NormalizedClusterSpec(c.spec);
    Event e;
    if (state_.phase() != ClusterState::PHASE_ACTIVE) {
      v1::ClusterRegistered* registered = e.mutable_cluster_registered();
      registered->set_name(context_.cluster);
      *registered->mutable_spec() = std::move(spec);
      return Events(std::move(e));
    }
    if (MessageDifferencer::Equals(NormalizedClusterSpec(state_.spec()), spec)) {
      return std::vector<Event>();
    }
    *e.mutable_cluster_spec_changed()->mutable_spec() = std::move(spec);
    return Events(std::move(e));
  }

  absl::StatusOr<std::vector<Event>> operator()(const DeregisterCluster& c) const {
    RETURN_IF_ERROR(projections::RequireActiveCluster(state_));
    if (!c.identities.empty()) {
      const bool one = c.identities.size() == 1;
      return absl::FailedPreconditionError(absl::StrCat(
          one ? "identity " : "identities ", absl::StrJoin(c.identities, ", "),
          one ? " mirrors into it; unbind its namespaces and, once its mirrors are "
                "removed, delete it or change its spec.cluster"
              : " mirror into it; unbind their namespaces and, once their mirrors are "
                "removed, delete them or change their spec.cluster"));
    }
    Event e;
    e.mutable_cluster_deregistered();
    return Events(std::move(e));
  }

  absl::StatusOr<std::vector<Event>> operator()(const RecordProbe& c) const {
    RETURN_IF_ERROR(projections::RequireActiveCluster(state_));
    RETURN_IF_ERROR(ValidateProbe(c.probe));
    if (c.probe.spec_version() != state_.spec_version()) return std::vector<Event>();
    const bool stale =
        state_.has_last_probe_time() &&
        projections::FromProto(state_.last_probe_time()) < context_.now - c.record_interval;
    if (!stale && !DiffersFromLastProbe(state_, c.probe)) return std::vector<Event>();
    Event e;
    *e.mutable_cluster_probed() = c.probe;
    return Events(std::move(e));
  }

 private:
  static std::vector<Event> Events(Event e) {
    std::vector<Event> events;
    events.push_back(std::move(e));
    return events;
  }

  const ClusterState& state_;
  const ClusterCommandContext& context_;
};

}  // namespace

std::string ClusterCommandName(const ClusterCommand& command) {
  return std::visit(ClusterCommandNamer{}, command);
}

absl::StatusOr<std::vector<v1::Event>> DecideCluster(const ClusterCommand& command,
                                                     const ClusterState& state,
                                                     const ClusterCommandContext& context) {
  absl::StatusOr<std::vector<v1::Event>> decided =
      std::visit(ClusterDecision(state, context), command);
  if (!decided.ok()) {
    // Every error names the cluster.
    return absl::Status(decided.status().code(), absl::StrCat("cluster \"", context.cluster,
                                                              "\": ", decided.status().message()));
  }
  return decided;
}

}  // namespace credledger::service
