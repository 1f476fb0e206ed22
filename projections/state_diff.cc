#include "projections/state_diff.h"

#include <google/protobuf/util/message_differencer.h>

#include <optional>
#include <set>
#include <tuple>
#include <utility>

#include "absl/strings/str_cat.h"
#include "common/status_macros.h"
#include "projections/credential_lifetimes.h"
#include "projections/event_summary.h"
#include "projections/target_state.h"
#include "projections/target_status.h"
#include "store/event_codec.h"

namespace credledger::projections {
namespace {

using Kind = v1::StateChange::Kind;
using TargetKey = std::pair<std::string, std::string>;  // (namespace, name)

v1::StateChange Change(Kind kind, const TargetKey& target) {
  v1::StateChange change;
  change.set_kind(kind);
  change.set_namespace_(target.first);
  change.set_name(target.second);
  return change;
}

// A change made by `event` at `seq`, described as the timeline describes the event.
v1::StateChange EventChange(Kind kind, const TargetKey& target, int64_t seq,
                            const v1::Event& event) {
  v1::StateChange change = Change(kind, target);
  change.set_seq(seq);
  change.set_summary(SummarizeEvent(event));
  return change;
}

v1::StateChange SecretDeleted(const TargetKey& target, int64_t seq, const v1::Event& event,
                              const v1::SecretRef& secret) {
  v1::StateChange change =
      EventChange(v1::StateChange::KIND_CREDENTIAL_DELETED, target, seq, event);
  change.set_secret_name(secret.name());
  change.set_credential_tag(CredentialTag(secret.uid()));  // by definition of the tag
  return change;
}

// (target_uid, incarnation_version) of a registered, not finalized Target; nullopt otherwise.
std::optional<std::pair<std::string, int64_t>> ActiveIncarnation(
    const std::optional<v1::TargetState>& state) {
  if (!state.has_value() || (state->phase() != v1::TargetState::PHASE_ACTIVE &&
                             state->phase() != v1::TargetState::PHASE_DELETING)) {
    return std::nullopt;
  }
  return std::make_pair(state->target_uid(), state->incarnation_version());
}

std::string ServiceText(const v1::ServiceConfigured& s) {
  if (s.ByteSizeLong() == 0) return "";  // none recorded yet
  const std::string ttl =
      absl::StrCat("token TTL ", absl::FormatDuration(absl::Seconds(s.agent_token_ttl_seconds())));
  if (!s.credentials_enabled()) return absl::StrCat("credentials disabled, ", ttl);
  return absl::StrCat("credentials enabled, API server ", s.agent_apiserver_url(), ", CA sha256 ",
                      s.agent_ca_sha256().empty() ? "none" : s.agent_ca_sha256(),
                      ", connection hash ", s.connection_hash(), ", ", ttl);
}

// "<status>/<reason>" of `condition`; "" when it is absent (nullptr or never set).
std::string ConditionText(const v1::Condition* condition) {
  if (condition == nullptr || condition->type().empty()) return "";
  return absl::StrCat(condition->status(), "/", condition->reason());
}

// Appends a KIND_CONDITION_CHANGED for `type` when `before` and `after` differ.
void CompareCondition(const TargetKey& target, absl::string_view type, const v1::Condition* before,
                      const v1::Condition* after, std::vector<v1::StateChange>& out) {
  const std::string before_text = ConditionText(before);
  const std::string after_text = ConditionText(after);
  if (before_text == after_text) return;
  v1::StateChange change = Change(v1::StateChange::KIND_CONDITION_CHANGED, target);
  change.set_condition_type(std::string(type));
  change.set_before(before_text);
  change.set_after(after_text);
  std::string summary =
      absl::StrCat(type, " changed from ", before_text.empty() ? "(none)" : before_text, " to ",
                   after_text.empty() ? "(none)" : after_text);
  if (!after_text.empty() && !after->message().empty()) {
    absl::StrAppend(&summary, ": ", after->message());
  }
  change.set_summary(summary);
  out.push_back(std::move(change));
}

// The Target's rollup when it is active (a finalized Target's conditions count as absent).
std::optional<v1::TargetStatus> ActiveStatus(const StatusProjection& projection,
                                             const TargetKey& target) {
  std::optional<v1::TargetStatus> status = projection.Get(target.first, target.second);
  if (status.has_value() && !status->active()) return std::nullopt;
  return status;
}

// The four conditions of a Target at one point, nullptr where absent.
struct Conditions {
  const v1::Condition* agent_credential_ready = nullptr;
  const v1::Condition* reporting = nullptr;
  const v1::Condition* preflight_ready = nullptr;
  const v1::Condition* releases_ready = nullptr;
};

Conditions ConditionsOf(const std::optional<v1::TargetState>& state,
                        const std::optional<v1::TargetStatus>& status) {
  Conditions c;
  if (state.has_value() && state->has_agent_credential_ready()) {
    c.agent_credential_ready = &state->agent_credential_ready();
  }
  if (status.has_value()) {
    c.reporting = &status->reporting();
    c.preflight_ready = &status->preflight_ready();
    c.releases_ready = &status->releases_ready();
  }
  return c;
}

}  // namespace

StateDiff::StateDiff(std::string target_namespace, std::string name)
    : namespace_(std::move(target_namespace)), name_(std::move(name)) {}

bool StateDiff::Selected(absl::string_view target_namespace, absl::string_view name) const {
  if (namespace_.empty()) return true;
  return target_namespace == namespace_ && (name_.empty() || name == name_);
}

absl::Status StateDiff::ApplyBetween(const store::RecordedEvent& recorded) {
  const std::optional<TargetKey> target = TargetOfTargetStream(recorded.stream);
  if (!target.has_value() || !Selected(target->first, target->second)) return absl::OkStatus();
  ASSIGN_OR_RETURN(v1::Event event, store::EventCodec::Default().Decode(recorded));
  const int64_t seq = recorded.seq;
  switch (event.kind_case()) {
    case v1::Event::KIND_NOT_SET:
    case v1::Event::kServiceConfigured:
    case v1::Event::kTargetRegistered:  // Targets are compared state to state
    case v1::Event::kTargetDeletionRequested:
    case v1::Event::kTargetFinalized:
    case v1::Event::kRotationRequested:
    case v1::Event::kRolloutConfirmed:
    case v1::Event::kCredentialMintRequested:
    case v1::Event::kCredentialSecretCreated:
    case v1::Event::kCredentialMintFailed:
    case v1::Event::kCredentialMintAbandoned:
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
    case v1::Event::kClusterRegistered:
    case v1::Event::kClusterSpecChanged:
    case v1::Event::kClusterDeregistered:
    case v1::Event::kClusterProbed:
    case v1::Event::kSourceVerified:
    case v1::Event::kCallsDenied:
    case v1::Event::kLogAdopted:
    case v1::Event::kMirrorFailed:
      break;
    case v1::Event::kCredentialIssued: {
      v1::StateChange change =
          EventChange(v1::StateChange::KIND_CREDENTIAL_ISSUED, *target, seq, event);
      change.set_secret_name(event.credential_issued().secret().name());
      change.set_credential_tag(event.credential_issued().credential_tag());
      event_changes_.push_back(std::move(change));
      break;
    }
    case v1::Event::kCredentialSecretDeleted:
      event_changes_.push_back(
          SecretDeleted(*target, seq, event, event.credential_secret_deleted().secret()));
      break;
    case v1::Event::kCredentialSecretDeletedExternally:
      event_changes_.push_back(SecretDeleted(
          *target, seq, event, event.credential_secret_deleted_externally().secret()));
      break;
    case v1::Event::kStaleCredentialsDeleted: {
      const v1::StaleCredentialsDeleted& e = event.stale_credentials_deleted();
      for (int i = 0; i < e.secrets_size(); ++i) {
        // Described one Secret at a time.
        v1::Event one;
        v1::StaleCredentialsDeleted& single = *one.mutable_stale_credentials_deleted();
        single.set_target_uid(e.target_uid());
        single.set_attempt_id(e.attempt_id());
        *single.add_secrets() = e.secrets(i);
        single.add_secret_target_uids(i < e.secret_target_uids_size() ? e.secret_target_uids(i)
                                                                      : "");
        event_changes_.push_back(SecretDeleted(*target, seq, one, e.secrets(i)));
      }
      break;
    }
    case v1::Event::kTargetRevoked:
      event_changes_.push_back(EventChange(v1::StateChange::KIND_REVOKED, *target, seq, event));
      break;
    case v1::Event::kRevocationLifted:
      event_changes_.push_back(
          EventChange(v1::StateChange::KIND_REVOCATION_LIFTED, *target, seq, event));
      break;
  }
  return absl::OkStatus();
}

std::vector<v1::StateChange> StateDiff::Finish(const CredentialProjection& from_credentials,
                                               const StatusProjection& from_status,
                                               const CredentialProjection& to_credentials,
                                               const StatusProjection& to_status) const {
  std::vector<v1::StateChange> out = event_changes_;
  if (!google::protobuf::util::MessageDifferencer::Equals(from_credentials.service(),
                                                          to_credentials.service())) {
    v1::StateChange change;
    change.set_kind(v1::StateChange::KIND_SERVICE_CONFIGURED);
    change.set_before(ServiceText(from_credentials.service()));
    change.set_after(ServiceText(to_credentials.service()));
    change.set_summary("service configuration changed");
    out.push_back(std::move(change));
  }
  std::set<TargetKey> targets;  // ordered by namespace, then name
  for (const CredentialProjection* p : {&from_credentials, &to_credentials}) {
    for (const v1::TargetState& state : p->List(namespace_, /*include_finalized=*/true)) {
      if (Selected(state.namespace_(), state.name())) {
        targets.emplace(state.namespace_(), state.name());
      }
    }
  }
  for (const TargetKey& target : targets) {
    const std::optional<v1::TargetState> from = from_credentials.Get(target.first, target.second);
    const std::optional<v1::TargetState> to = to_credentials.Get(target.first, target.second);
    const auto from_incarnation = ActiveIncarnation(from);
    const auto to_incarnation = ActiveIncarnation(to);
    if (from_incarnation.has_value() && from_incarnation != to_incarnation) {
      v1::StateChange change = Change(v1::StateChange::KIND_TARGET_REMOVED, target);
      change.set_summary(absl::StrCat("Target removed (uid ", from_incarnation->first, ")"));
      out.push_back(std::move(change));
    }
    if (to_incarnation.has_value() && to_incarnation != from_incarnation) {
      v1::StateChange change = Change(v1::StateChange::KIND_TARGET_ADDED, target);
      change.set_summary(absl::StrCat("Target added (uid ", to_incarnation->first, ")"));
      out.push_back(std::move(change));
    }
    const std::optional<v1::TargetStatus> from_rollup = ActiveStatus(from_status, target);
    const std::optional<v1::TargetStatus> to_rollup = ActiveStatus(to_status, target);
    const Conditions before = ConditionsOf(from, from_rollup);
    const Conditions after = ConditionsOf(to, to_rollup);
    CompareCondition(target, kAgentCredentialReady, before.agent_credential_ready,
                     after.agent_credential_ready, out);
    CompareCondition(target, kReportingCondition, before.reporting, after.reporting, out);
    CompareCondition(target, kPreflightReadyCondition, before.preflight_ready,
                     after.preflight_ready, out);
    CompareCondition(target, kReleasesReadyCondition, before.releases_ready, after.releases_ready,
                     out);
  }
  return out;
}

}  // namespace credledger::projections
