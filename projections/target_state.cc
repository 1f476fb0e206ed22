#include "projections/target_state.h"

#include <algorithm>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "common/sha256.h"
#include "projections/condition.h"
#include "projections/proto_time.h"

namespace credledger::projections {
namespace {

using v1::CredentialRecord;

CredentialRecord* FindByUid(v1::TargetState& state, absl::string_view uid) {
  for (CredentialRecord& c : *state.mutable_credentials()) {
    if (c.secret().uid() == uid) return &c;
  }
  return nullptr;
}

void RemoveByUid(v1::TargetState& state, absl::string_view uid) {
  auto* creds = state.mutable_credentials();
  creds->erase(std::remove_if(creds->begin(), creds->end(),
                              [&](const CredentialRecord& c) { return c.secret().uid() == uid; }),
               creds->end());
}

// Inserts `record` keeping the list ordered by suffix.
CredentialRecord* InsertOrdered(v1::TargetState& state, CredentialRecord record) {
  auto* creds = state.mutable_credentials();
  CredentialRecord* added = creds->Add();
  *added = std::move(record);
  for (int i = creds->size() - 1; i > 0 && creds->Get(i - 1).suffix() > creds->Get(i).suffix();
       --i) {
    creds->SwapElements(i - 1, i);
  }
  return FindByUid(state, added->secret().uid());
}

void Release(CredentialRecord& c, v1::SecretDeletionReason reason) {
  if (c.phase() == CredentialRecord::PHASE_RELEASED) return;
  c.set_phase(CredentialRecord::PHASE_RELEASED);
  c.set_release_reason(reason);
}

// The AgentCredentialReady message of a Target with an issued credential: "Secret <name>
// holds the current credential".
constexpr absl::string_view kIssuedPrefix = "Secret ";
constexpr absl::string_view kIssuedSuffix = " holds the current credential";

// Whether `message` is that message for the Secret `secret_name`.
bool IsIssuedMessage(absl::string_view message, absl::string_view secret_name) {
  return absl::ConsumePrefix(&message, kIssuedPrefix) &&
         absl::ConsumeSuffix(&message, kIssuedSuffix) && message == secret_name;
}

bool IsOpenAttempt(const v1::TargetState& state, absl::string_view attempt_id) {
  return state.has_open_attempt() && state.open_attempt().attempt_id() == attempt_id;
}

// A new incarnation starts from nothing but its identity.
void StartIncarnation(v1::TargetState& state, const v1::TargetRegistered& e,
                      int64_t stream_version_at) {
  const int64_t last_seq = state.last_seq();
  const int64_t stream_version = state.stream_version();
  state.Clear();
  state.set_namespace_(e.namespace_());
  state.set_name(e.name());
  state.set_target_uid(e.target_uid());
  state.set_phase(v1::TargetState::PHASE_ACTIVE);
  state.set_incarnation_version(stream_version_at);
  state.set_last_seq(last_seq);
  state.set_stream_version(stream_version);
}

void ApplySecretCreated(v1::TargetState& state, const v1::CredentialSecretCreated& e) {
  if (FindByUid(state, e.secret().uid()) != nullptr) return;
  CredentialRecord record;
  *record.mutable_secret() = e.secret();
  record.set_suffix(e.suffix());
  record.set_attempt_id(e.attempt_id());
  record.set_phase(CredentialRecord::PHASE_CREATED);
  if (IsOpenAttempt(state, e.attempt_id())) {
    record.set_request_value(state.open_attempt().request_value());
    *state.mutable_open_attempt()->mutable_secret() = e.secret();
    state.mutable_open_attempt()->set_suffix(e.suffix());
  } else {
    // The attempt was abandoned (revoked, deleted) while the bridge was creating its Secret.
    Release(record, v1::SECRET_DELETION_REASON_MINT_ABANDONED);
  }
  InsertOrdered(state, std::move(record));
}

void ApplyIssued(v1::TargetState& state, const v1::CredentialIssued& e) {
  CredentialRecord* c = FindByUid(state, e.secret().uid());
  if (c == nullptr) {
    CredentialRecord record;
    *record.mutable_secret() = e.secret();
    record.set_attempt_id(e.attempt_id());
    if (IsOpenAttempt(state, e.attempt_id())) {
      record.set_suffix(state.open_attempt().suffix());
      record.set_request_value(state.open_attempt().request_value());
    }
    c = InsertOrdered(state, std::move(record));
  }
  c->set_credential_tag(e.credential_tag());
  c->set_token_fingerprint(e.token_fingerprint());
  *c->mutable_issued_at() = e.issued_at();
  *c->mutable_expires_at() = e.expires_at();
  *c->mutable_rotation_due_at() =
      ToProto(RotationDueAt(FromProto(e.issued_at()), FromProto(e.expires_at())));
  if (!IsOpenAttempt(state, e.attempt_id())) {
    Release(*c, v1::SECRET_DELETION_REASON_MINT_ABANDONED);
    return;
  }
  c->set_phase(CredentialRecord::PHASE_ISSUED);
  const std::string& value = state.open_attempt().request_value();
  if (!value.empty() && !RequestAnswered(state, value)) state.add_answered_request_values(value);
  if (state.pending_request_value() == value) state.clear_pending_request_value();
  state.clear_open_attempt();
  state.clear_last_failure();
  state.clear_consecutive_failures();
  state.clear_last_failure_at();
}

void ApplyMintFailed(v1::TargetState& state, const v1::CredentialMintFailed& e, absl::Time at) {
  *state.mutable_last_failure() = e;
  state.set_consecutive_failures(state.consecutive_failures() + 1);
  *state.mutable_last_failure_at() = ToProto(at);
  if (e.has_deleted_secret()) RemoveByUid(state, e.deleted_secret().uid());
  if (IsOpenAttempt(state, e.attempt_id())) state.clear_open_attempt();
}

void ApplyAbandoned(v1::TargetState& state, const v1::CredentialMintAbandoned& e) {
  if (!IsOpenAttempt(state, e.attempt_id())) return;
  if (state.open_attempt().has_secret()) {
    if (CredentialRecord* c = FindByUid(state, state.open_attempt().secret().uid())) {
      Release(*c, v1::SECRET_DELETION_REASON_MINT_ABANDONED);
    }
  }
  state.clear_open_attempt();
}

}  // namespace

std::string TargetStream(absl::string_view target_namespace, absl::string_view name) {
  return absl::StrCat("target/", target_namespace, "/", name);
}

void EvolveTarget(v1::TargetState& state, const v1::Event& event, const EventPosition& at,
                  const v1::ServiceConfigured& service) {
  switch (event.kind_case()) {
    case v1::Event::kServiceConfigured:
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
    case v1::Event::KIND_NOT_SET:
      return;
    case v1::Event::kTargetRegistered:
      StartIncarnation(state, event.target_registered(), at.stream_version);
      break;
    case v1::Event::kTargetDeletionRequested:
      state.set_phase(v1::TargetState::PHASE_DELETING);
      state.set_deletion_requested_seq(at.seq);
      for (CredentialRecord& c : *state.mutable_credentials()) {
        Release(c, v1::SECRET_DELETION_REASON_TARGET_DELETED);
      }
      break;
    case v1::Event::kTargetFinalized:
      state.set_phase(v1::TargetState::PHASE_FINALIZED);
      state.clear_credentials();
      state.clear_open_attempt();
      break;
    case v1::Event::kRotationRequested:
      state.set_pending_request_value(event.rotation_requested().request_value());
      break;
    case v1::Event::kTargetRevoked:
      state.set_revoked(true);
      state.set_revoked_seq(at.seq);
      for (CredentialRecord& c : *state.mutable_credentials()) {
        Release(c, v1::SECRET_DELETION_REASON_REVOKED);
      }
      break;
    case v1::Event::kRevocationLifted:
      state.set_revoked(false);
      state.clear_revoked_seq();
      break;
    case v1::Event::kRolloutConfirmed:
      for (const std::string& name : event.rollout_confirmed().released_secrets()) {
        for (CredentialRecord& c : *state.mutable_credentials()) {
          if (c.secret().name() == name) Release(c, v1::SECRET_DELETION_REASON_SUPERSEDED);
        }
      }
      break;
    case v1::Event::kCredentialMintRequested: {
      const v1::CredentialMintRequested& e = event.credential_mint_requested();
      v1::MintAttempt* attempt = state.mutable_open_attempt();
      attempt->Clear();
      attempt->set_attempt_id(e.attempt_id());
      attempt->set_reason(e.reason());
      attempt->set_request_value(e.request_value());
      state.set_attempt_count(state.attempt_count() + 1);
      break;
    }
    case v1::Event::kStaleCredentialsDeleted:
    case v1::Event::kIdentityObjectsWritten:
      break;  // objects outside the credential records; recorded for audit only
    case v1::Event::kCredentialSecretCreated:
      ApplySecretCreated(state, event.credential_secret_created());
      break;
    case v1::Event::kCredentialIssued:
      ApplyIssued(state, event.credential_issued());
      break;
    case v1::Event::kCredentialMintFailed:
      ApplyMintFailed(state, event.credential_mint_failed(), at.recorded_at);
      break;
    case v1::Event::kCredentialMintAbandoned:
      ApplyAbandoned(state, event.credential_mint_abandoned());
      break;
    case v1::Event::kCredentialSecretDeleted:
      RemoveByUid(state, event.credential_secret_deleted().secret().uid());
      break;
    case v1::Event::kCredentialSecretDeletedExternally:
      RemoveByUid(state, event.credential_secret_deleted_externally().secret().uid());
      break;
  }
  state.set_last_seq(at.seq);
  state.set_stream_version(at.stream_version);
  UpdateCondition(state, at.recorded_at, service);
}

void UpdateCondition(v1::TargetState& state, absl::Time at, const v1::ServiceConfigured& service) {
  if (state.phase() == v1::TargetState::PHASE_UNSPECIFIED) return;
  if (state.phase() == v1::TargetState::PHASE_FINALIZED) {
    state.clear_agent_credential_ready();  // the Target and its credentials are gone
    return;
  }
  absl::string_view status, reason, message;
  std::string built;  // a message naming the Secret or the failure, when it changes
  const CredentialRecord* current = CurrentCredential(state);
  if (state.phase() == v1::TargetState::PHASE_DELETING) {
    status = "False";
    reason = kReasonDeleting;
    message = "the Target is being deleted; its credentials and identity are removed";
  } else if (state.revoked()) {
    status = "False";
    reason = kReasonRevoked;
    message = "the Target's credentials are revoked";
  } else if (!service.credentials_enabled()) {
    status = "False";
    reason = kReasonDisabled;
    message = "credentials are disabled: --agent-apiserver-url is empty";
  } else if (state.has_last_failure()) {
    status = "False";
    reason = kReasonMintFailed;
    built = absl::StrCat(v1::MintStage_Name(state.last_failure().stage()), ": ",
                         state.last_failure().message());
    message = built;
  } else if (current != nullptr) {
    status = "True";
    reason = kReasonIssued;
    // Folded once per event of the Target: the message is built only when the Secret changed.
    const std::string& held = state.agent_credential_ready().message();
    if (IsIssuedMessage(held, current->secret().name())) {
      message = held;
    } else {
      built = absl::StrCat(kIssuedPrefix, current->secret().name(), kIssuedSuffix);
      message = built;
    }
  } else {
    status = "Unknown";
    reason = kReasonMintPending;
    message = "waiting for a credential to be minted";
  }
  SetCondition(*state.mutable_agent_credential_ready(), kAgentCredentialReady, status, reason,
               message, at);
}

const v1::CredentialRecord* CurrentCredential(const v1::TargetState& state) {
  const CredentialRecord* current = nullptr;
  for (const CredentialRecord& c : state.credentials()) {
    if (c.phase() == CredentialRecord::PHASE_ISSUED &&
        (current == nullptr || c.suffix() > current->suffix())) {
      current = &c;
    }
  }
  return current;
}

bool RequestAnswered(const v1::TargetState& state, absl::string_view value) {
  return std::find(state.answered_request_values().begin(), state.answered_request_values().end(),
                   value) != state.answered_request_values().end();
}

std::string CredentialTag(absl::string_view secret_uid) {
  return common::Sha256HexPrefix(secret_uid, 10);
}

std::string ConnectionHash(absl::string_view apiserver_url, absl::string_view ca_bundle) {
  return common::Sha256HexPrefix(absl::StrCat(apiserver_url, "\n", ca_bundle), 10);
}

absl::Duration MintRetryDelay(int64_t consecutive_failures) {
  if (consecutive_failures <= 0) return absl::ZeroDuration();
  absl::Duration delay = absl::Seconds(10);
  for (int64_t i = 1; i < consecutive_failures && delay < absl::Minutes(10); ++i) delay *= 2;
  return std::min(delay, absl::Minutes(10));
}

absl::Time RotationDueAt(absl::Time issued_at, absl::Time expires_at) {
  absl::Duration lifetime = std::max(expires_at - issued_at, absl::ZeroDuration());
  return issued_at + absl::Microseconds(absl::ToInt64Microseconds(lifetime) * 8 / 10);
}

}  // namespace credledger::projections
