#include "projections/cluster_state.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "projections/condition.h"
#include "projections/proto_time.h"

namespace credledger::projections {
namespace {

// The ClusterProbed reason of a successful probe (kubebridge::kReasonProbeSucceeded; the
// projections do not depend on the bridge).
constexpr char kReasonProbeSucceeded[] = "ProbeSucceeded";

// Forgets every probe result: the spec at `spec_version` has not been probed yet.
void AwaitProbe(v1::ClusterState& state, absl::Time at) {
  state.clear_server_version();
  state.clear_api_groups();
  state.clear_last_probe_time();
  state.clear_auth_type();
  SetCondition(*state.mutable_reachable(), kReachableCondition, "Unknown", kReasonProbePending,
               "waiting for the first probe of this spec", at);
}

void StartIncarnation(v1::ClusterState& state, const v1::ClusterRegistered& e,
                      const EventPosition& at) {
  state.Clear();
  state.set_name(e.name());
  state.set_phase(v1::ClusterState::PHASE_ACTIVE);
  *state.mutable_spec() = e.spec();
  state.set_incarnation_version(at.stream_version);
  state.set_spec_version(at.stream_version);
  *state.mutable_registered_at() = ToProto(at.recorded_at);
  *state.mutable_updated_at() = ToProto(at.recorded_at);
  AwaitProbe(state, at.recorded_at);
}

void ApplySpecChanged(v1::ClusterState& state, const v1::ClusterSpecChanged& e,
                      const EventPosition& at) {
  *state.mutable_spec() = e.spec();
  state.set_spec_version(at.stream_version);
  *state.mutable_updated_at() = ToProto(at.recorded_at);
  AwaitProbe(state, at.recorded_at);
}

void ApplyProbed(v1::ClusterState& state, const v1::ClusterProbed& e, absl::Time at) {
  // A probe of an earlier spec (or one recorded after a deregistration) says nothing about
  // the current connection.
  if (state.phase() != v1::ClusterState::PHASE_ACTIVE || e.spec_version() != state.spec_version()) {
    return;
  }
  const bool succeeded = e.reason() == kReasonProbeSucceeded;
  SetCondition(*state.mutable_reachable(), kReachableCondition, succeeded ? "True" : "False",
               e.reason(), e.message(), at);
  if (succeeded) {
    state.set_server_version(e.server_version());
    *state.mutable_api_groups() = e.api_groups();
  }
  *state.mutable_last_probe_time() = ToProto(at);
  state.set_auth_type(e.auth_type());
}

}  // namespace

std::string ClusterStream(absl::string_view name) { return absl::StrCat("cluster/", name); }

void EvolveCluster(v1::ClusterState& state, const v1::Event& event, const EventPosition& at) {
  switch (event.kind_case()) {
    case v1::Event::kServiceConfigured:
    case v1::Event::kTargetRegistered:
    case v1::Event::kTargetDeletionRequested:
    case v1::Event::kTargetFinalized:
    case v1::Event::kRotationRequested:
    case v1::Event::kTargetRevoked:
    case v1::Event::kRevocationLifted:
    case v1::Event::kRolloutConfirmed:
    case v1::Event::kCredentialMintRequested:
    case v1::Event::kStaleCredentialsDeleted:
    case v1::Event::kCredentialSecretCreated:
    case v1::Event::kCredentialIssued:
    case v1::Event::kCredentialMintFailed:
    case v1::Event::kCredentialMintAbandoned:
    case v1::Event::kCredentialSecretDeleted:
    case v1::Event::kCredentialSecretDeletedExternally:
    case v1::Event::kIdentityObjectsWritten:
    case v1::Event::kReportAccepted:
    case v1::Event::kReportingStale:
    case v1::Event::kReportClockSkewDetected:
    case v1::Event::kReportClockSkewCleared:
    case v1::Event::kBoundReleasesSet:
    case v1::Event::kLivenessObserved:
    case v1::Event::kIdentityCreated:
    case v1::Event::kIdentityUpdated:
    case v1::Event::kIdentityDeleted:
    case v1::Event::kIdentityBound:
    case v1::Event::kIdentityUnbound:
    case v1::Event::kSourceSecretObserved:
    case v1::Event::kNamespaceLabelsObserved:
    case v1::Event::kMirrorWritten:
    case v1::Event::kMirrorDeleted:
    case v1::Event::kMirrorDeletedExternally:
    case v1::Event::kBoundObjectGone:
    case v1::Event::kMirrorFailed:
    case v1::Event::kSourceVerified:
    case v1::Event::kCallsDenied:
    case v1::Event::kLogAdopted:
    case v1::Event::KIND_NOT_SET:
      return;
    case v1::Event::kClusterRegistered:
      StartIncarnation(state, event.cluster_registered(), at);
      break;
    case v1::Event::kClusterSpecChanged:
      ApplySpecChanged(state, event.cluster_spec_changed(), at);
      break;
    case v1::Event::kClusterDeregistered:
      state.set_phase(v1::ClusterState::PHASE_DEREGISTERED);
      *state.mutable_updated_at() = ToProto(at.recorded_at);
      break;
    case v1::Event::kClusterProbed:
      ApplyProbed(state, event.cluster_probed(), at.recorded_at);
      break;
  }
  state.set_stream_version(at.stream_version);
  state.set_seq(at.seq);
}

absl::Status RequireActiveCluster(const v1::ClusterState& state) {
  switch (state.phase()) {
    case v1::ClusterState::PHASE_ACTIVE:
      return absl::OkStatus();
    case v1::ClusterState::PHASE_DEREGISTERED:
      return absl::NotFoundError("deregistered; register it again to use it");
    default:
      return absl::NotFoundError("not registered");
  }
}

}  // namespace credledger::projections
