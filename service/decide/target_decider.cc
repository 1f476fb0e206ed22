#include "service/decide/target_decider.h"

#include <algorithm>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "projections/proto_time.h"
#include "projections/target_state.h"
#include "service/decide/validation.h"

namespace credledger::service {
namespace {

// Characters of a connection hash and of a credential tag (docs/credentials.md, "Credential
// tag and connection hash").
constexpr size_t kHashChars = 10;

bool IsHash(absl::string_view text) {
  return text.size() == kHashChars && std::all_of(text.begin(), text.end(), [](char c) {
           return absl::ascii_isdigit(c) || (c >= 'a' && c <= 'f');
         });
}

// The credential tag `revision` ends in, when it ends in "-<connection hash>-<credentialTag>"
// as a renderer appends them; "" otherwise.
absl::string_view TagOf(absl::string_view revision) {
  const std::vector<absl::string_view> parts = absl::StrSplit(revision, '-');
  if (parts.size() < 3) return "";
  const absl::string_view tag = parts.back();
  return IsHash(parts[parts.size() - 2]) && IsHash(tag) ? tag : "";
}

using projections::CurrentCredential;
using projections::FromProto;
using projections::ToProto;
using v1::Event;
using v1::TargetState;

// Longest rotation request value (stored in an annotation) and revision accepted.
constexpr size_t kMaxValueBytes = 253;

class TargetDecision {
 public:
  TargetDecision(const TargetState& state, const CommandContext& context)
      : state_(state), context_(context) {}

  absl::StatusOr<std::vector<Event>> operator()(const RegisterTarget& c) {
    if (state_.phase() == TargetState::PHASE_ACTIVE) {
      if (c.uid_given && c.target_uid != state_.target_uid()) {
        return absl::FailedPreconditionError(absl::StrCat(Name(), ": registered with uid ",
                                                          state_.target_uid(), ", not ",
                                                          c.target_uid, "; delete it first"));
      }
      return Done();  // already registered
    }
    if (state_.phase() == TargetState::PHASE_DELETING) {
      return absl::FailedPreconditionError(
          absl::StrCat(Name(), ": the previous incarnation ", state_.target_uid(),
                       " is being deleted and not finalized yet; retry once it is"));
    }
    Event e;
    v1::TargetRegistered* r = e.mutable_target_registered();
    r->set_target_uid(c.target_uid);
    r->set_namespace_(context_.target_namespace);
    r->set_name(context_.target_name);
    Emit(std::move(e));
    PlanAfter(v1::MINT_REASON_INITIAL);
    return Done();
  }

  absl::StatusOr<std::vector<Event>> operator()(const DeleteTarget&) {
    if (auto s = RequireRegistered(); !s.ok()) return s;
    if (state_.phase() == TargetState::PHASE_DELETING) return Done();
    AbandonOpenAttempt("the Target is being deleted");
    Event e;
    e.mutable_target_deletion_requested()->set_target_uid(state_.target_uid());
    Emit(std::move(e));
    return Done();
  }

  absl::StatusOr<std::vector<Event>> operator()(const RequestRotation& c) {
    // Named as the API names it (RequestRotationRequest.value, `target rotate --value`).
    if (auto s = ValidateToken("value", c.request_value, kMaxValueBytes); !s.ok()) {
      return s;
    }
    if (auto s = RequireActive(); !s.ok()) return s;
    if (state_.revoked()) {
      return absl::FailedPreconditionError(
          absl::StrCat(Name(), ": credentials are revoked; lift the revocation first"));
    }
    if (!context_.service.credentials_enabled()) {
      return absl::FailedPreconditionError(absl::StrCat(
          Name(), ": credentials are disabled (the service has no --agent-apiserver-url)"));
    }
    if (projections::RequestAnswered(state_, c.request_value) ||
        state_.pending_request_value() == c.request_value) {
      return Done();  // already answered, or already waiting for its mint
    }
    Event e;
    e.mutable_rotation_requested()->set_target_uid(state_.target_uid());
    e.mutable_rotation_requested()->set_request_value(c.request_value);
    Emit(std::move(e));
    PlanAfter(v1::MINT_REASON_ROTATION_REQUESTED);
    return Done();
  }

  absl::StatusOr<std::vector<Event>> operator()(const Revoke& c) {
    if (auto s = RequireActive(); !s.ok()) return s;
    if (state_.revoked()) return Done();
    AbandonOpenAttempt("the Target's credentials are revoked");
    Event e;
    e.mutable_target_revoked()->set_target_uid(state_.target_uid());
    e.mutable_target_revoked()->set_reason(c.reason);
    Emit(std::move(e));
    return Done();
  }

  absl::StatusOr<std::vector<Event>> operator()(const LiftRevocation&) {
    if (auto s = RequireActive(); !s.ok()) return s;
    if (!state_.revoked()) return Done();
    Event e;
    e.mutable_revocation_lifted()->set_target_uid(state_.target_uid());
    Emit(std::move(e));
    PlanAfter(v1::MINT_REASON_REVOCATION_LIFTED);
    return Done();
  }

  absl::StatusOr<std::vector<Event>> operator()(const ConfirmRollout& c) {
    if (auto s = ValidateToken("revision", c.revision, kMaxValueBytes); !s.ok()) return s;
    if (auto s = RequireActive(); !s.ok()) return s;
    const v1::CredentialRecord* current = CurrentCredential(state_);
    if (current == nullptr) {
      return absl::FailedPreconditionError(
          absl::StrCat(Name(), ": has no current credential to confirm"));
    }
    // A tag no credential of this Target ever had is a mistake (a typo, another Target's
    // version); an older tag, or none, proves nothing about the current credential.
    if (const absl::string_view tag = TagOf(c.revision);
        !tag.empty() && std::none_of(state_.credentials().begin(), state_.credentials().end(),
                                     [&](const v1::CredentialRecord& cred) {
                                       return cred.credential_tag() == tag;
                                     })) {
      return absl::FailedPreconditionError(
          absl::StrCat(Name(), ": revision \"", c.revision, "\" carries credential tag \"", tag,
                       "\", which no credential of this Target has had; confirm the version a "
                       "release of this Target runs"));
    }
    if (!absl::EndsWith(c.revision, absl::StrCat("-", current->credential_tag()))) return Done();
    Event e;
    v1::RolloutConfirmed* r = e.mutable_rollout_confirmed();
    for (const v1::CredentialRecord& cred : state_.credentials()) {
      if (cred.phase() == v1::CredentialRecord::PHASE_ISSUED && cred.suffix() < current->suffix()) {
        r->add_released_secrets(cred.secret().name());
      }
    }
    if (r->released_secrets().empty()) return Done();  // nothing older left to release
    r->set_target_uid(state_.target_uid());
    r->set_revision(c.revision);
    r->set_credential_tag(current->credential_tag());
    Emit(std::move(e));
    return Done();
  }

  absl::StatusOr<std::vector<Event>> operator()(const PlanCredential&) {
    if (auto s = RequireRegistered(); !s.ok()) return s;
    PlanAfter(v1::MINT_REASON_UNSPECIFIED);
    return Done();
  }

  absl::StatusOr<std::vector<Event>> operator()(const RecordIdentityWritten& c) {
    if (auto s = RequireRegistered(); !s.ok()) return s;
    if (c.writes.empty()) return Done();
    Event e;
    e.mutable_identity_objects_written()->set_target_uid(state_.target_uid());
    for (const std::string& w : c.writes) e.mutable_identity_objects_written()->add_writes(w);
    Emit(std::move(e));
    return Done();
  }

  absl::StatusOr<std::vector<Event>> operator()(const RecordStaleCredentialsDeleted& c) {
    if (auto s = RequireRegistered(); !s.ok()) return s;
    if (c.secrets.empty()) return Done();
    Event e;
    v1::StaleCredentialsDeleted* d = e.mutable_stale_credentials_deleted();
    d->set_target_uid(state_.target_uid());
    d->set_attempt_id(c.attempt_id);
    for (const v1::SecretRef& s : c.secrets) *d->add_secrets() = s;
    for (const std::string& uid : c.secret_target_uids) d->add_secret_target_uids(uid);
    Emit(std::move(e));
    return Done();
  }

  absl::StatusOr<std::vector<Event>> operator()(const RecordSecretCreated& c) {
    if (auto s = RequireRegistered(); !s.ok()) return s;
    if (Known(c.secret.uid())) return Done();
    Event e;
    v1::CredentialSecretCreated* r = e.mutable_credential_secret_created();
    r->set_target_uid(state_.target_uid());
    r->set_attempt_id(c.attempt_id);
    *r->mutable_secret() = c.secret;
    r->set_suffix(c.suffix);
    Emit(std::move(e));
    return Done();
  }

  absl::StatusOr<std::vector<Event>> operator()(const RecordCredentialIssued& c) {
    if (auto s = RequireRegistered(); !s.ok()) return s;
    if (c.expires_at <= c.issued_at) {
      return absl::InvalidArgumentError(
          absl::StrCat(Name(), ": expires_at ", absl::FormatTime(c.expires_at),
                       " is not after issued_at ", absl::FormatTime(c.issued_at)));
    }
    for (const v1::CredentialRecord& cred : state_.credentials()) {
      if (cred.secret().uid() == c.secret.uid() && !cred.token_fingerprint().empty()) {
        return Done();  // already recorded
      }
    }
    Event e;
    v1::CredentialIssued* r = e.mutable_credential_issued();
    r->set_target_uid(state_.target_uid());
    r->set_attempt_id(c.attempt_id);
    *r->mutable_secret() = c.secret;
    r->set_credential_tag(projections::CredentialTag(c.secret.uid()));
    r->set_token_fingerprint(c.token_fingerprint);
    *r->mutable_issued_at() = ToProto(c.issued_at);
    *r->mutable_expires_at() = ToProto(c.expires_at);
    r->set_adopted(c.adopted);
    Emit(std::move(e));
    return Done();
  }

  absl::StatusOr<std::vector<Event>> operator()(const RecordMintFailed& c) {
    if (auto s = RequireRegistered(); !s.ok()) return s;
    // The same failure again (same attempt, stage, message and deleted Secret) is already
    // recorded; attempt ids are unique within an incarnation.
    const std::string deleted_uid = c.deleted_secret.has_value() ? c.deleted_secret->uid() : "";
    if (state_.has_last_failure() && state_.last_failure().attempt_id() == c.attempt_id &&
        state_.last_failure().stage() == c.stage && state_.last_failure().message() == c.message &&
        state_.last_failure().deleted_secret().uid() == deleted_uid) {
      return Done();
    }
    Event e;
    v1::CredentialMintFailed* r = e.mutable_credential_mint_failed();
    r->set_target_uid(state_.target_uid());
    r->set_attempt_id(c.attempt_id);
    r->set_stage(c.stage);
    r->set_message(c.message);
    if (c.deleted_secret.has_value()) *r->mutable_deleted_secret() = *c.deleted_secret;
    Emit(std::move(e));
    return Done();
  }

  absl::StatusOr<std::vector<Event>> operator()(const RecordSecretDeleted& c) {
    if (auto s = RequireRegistered(); !s.ok()) return s;
    if (!Known(c.secret.uid())) return Done();
    Event e;
    v1::CredentialSecretDeleted* r = e.mutable_credential_secret_deleted();
    r->set_target_uid(state_.target_uid());
    *r->mutable_secret() = c.secret;
    r->set_reason(c.reason);
    Emit(std::move(e));
    return Done();
  }

  absl::StatusOr<std::vector<Event>> operator()(const RecordSecretDeletedExternally& c) {
    if (auto s = RequireRegistered(); !s.ok()) return s;
    if (!Known(c.secret.uid())) return Done();
    const v1::CredentialRecord* current = CurrentCredential(state_);
    const bool was_current = current != nullptr && current->secret().uid() == c.secret.uid();
    Event e;
    v1::CredentialSecretDeletedExternally* r = e.mutable_credential_secret_deleted_externally();
    r->set_target_uid(state_.target_uid());
    *r->mutable_secret() = c.secret;
    *r->mutable_observed_at() = ToProto(c.observed_at);
    Emit(std::move(e));
    // A missing current Secret is re-minted, even when an older credential remains: the
    // agent may already run with the deleted one.
    PlanAfter(was_current ? v1::MINT_REASON_REPLACEMENT : v1::MINT_REASON_UNSPECIFIED);
    return Done();
  }

  absl::StatusOr<std::vector<Event>> operator()(const RecordTargetFinalized& c) {
    if (auto s = RequireRegistered(); !s.ok()) return s;
    if (state_.phase() != TargetState::PHASE_DELETING) {
      return absl::FailedPreconditionError(
          absl::StrCat(Name(), ": cannot finalize a Target that is not being deleted"));
    }
    Event e;
    e.mutable_target_finalized()->set_target_uid(state_.target_uid());
    for (const std::string& o : c.deleted_objects) {
      e.mutable_target_finalized()->add_deleted_objects(o);
    }
    Emit(std::move(e));
    return Done();
  }

 private:
  std::string Name() const {
    return absl::StrCat("target \"", context_.target_namespace, "/", context_.target_name, "\"");
  }

  absl::Status RequireRegistered() const {
    if (state_.phase() == TargetState::PHASE_UNSPECIFIED ||
        state_.phase() == TargetState::PHASE_FINALIZED) {
      return absl::NotFoundError(absl::StrCat(Name(), ": not found"));
    }
    return absl::OkStatus();
  }

  absl::Status RequireActive() const {
    if (auto s = RequireRegistered(); !s.ok()) return s;
    if (state_.phase() == TargetState::PHASE_DELETING) {
      return absl::FailedPreconditionError(absl::StrCat(Name(), ": is being deleted"));
    }
    return absl::OkStatus();
  }

  bool Known(const std::string& secret_uid) const {
    for (const v1::CredentialRecord& c : state_.credentials()) {
      if (c.secret().uid() == secret_uid) return true;
    }
    return false;
  }

  void AbandonOpenAttempt(const std::string& reason) {
    if (!state_.has_open_attempt()) return;
    Event e;
    v1::CredentialMintAbandoned* a = e.mutable_credential_mint_abandoned();
    a->set_target_uid(state_.target_uid());
    a->set_attempt_id(state_.open_attempt().attempt_id());
    a->set_reason(reason);
    Emit(std::move(e));
  }

  // Appends `e` and folds it into the working state, so later decisions of this command see it.
  void Emit(Event e) {
    projections::EvolveTarget(working_, e, {0, 0, context_.now}, context_.service);
    events_.push_back(std::move(e));
  }

  // Adds the mint intent the state calls for after this command's events, if any.
  void PlanAfter(v1::MintReason hint) {
    std::optional<v1::CredentialMintRequested> mint = PlanMint(working_, context_, hint);
    if (!mint.has_value()) return;
    Event e;
    *e.mutable_credential_mint_requested() = *std::move(mint);
    Emit(std::move(e));
  }

  absl::StatusOr<std::vector<Event>> Done() { return std::move(events_); }

  const TargetState& state_;
  const CommandContext& context_;
  TargetState working_ = state_;
  std::vector<Event> events_;
};

}  // namespace

std::optional<v1::CredentialMintRequested> PlanMint(const TargetState& state,
                                                    const CommandContext& context,
                                                    v1::MintReason hint) {
  if (state.phase() != TargetState::PHASE_ACTIVE || state.revoked() ||
      !context.service.credentials_enabled() || state.has_open_attempt()) {
    return std::nullopt;
  }
  if (state.consecutive_failures() > 0 &&
      context.now < FromProto(state.last_failure_at()) +
                        projections::MintRetryDelay(state.consecutive_failures())) {
    return std::nullopt;  // retried once the delay after the last failure has passed
  }
  v1::CredentialMintRequested mint;
  const v1::CredentialRecord* current = CurrentCredential(state);
  const std::string& pending = state.pending_request_value();
  if (!pending.empty() && !projections::RequestAnswered(state, pending)) {
    mint.set_reason(v1::MINT_REASON_ROTATION_REQUESTED);
    mint.set_request_value(pending);
  } else if (current == nullptr) {
    if (hint == v1::MINT_REASON_REVOCATION_LIFTED || hint == v1::MINT_REASON_INITIAL) {
      mint.set_reason(hint);
    } else {
      mint.set_reason(state.attempt_count() == 0 ? v1::MINT_REASON_INITIAL
                                                 : v1::MINT_REASON_REPLACEMENT);
    }
  } else if (hint == v1::MINT_REASON_REPLACEMENT) {
    mint.set_reason(v1::MINT_REASON_REPLACEMENT);
  } else if (context.now >= FromProto(current->rotation_due_at()) &&
             context.now > FromProto(current->issued_at())) {
    mint.set_reason(v1::MINT_REASON_ROTATION_DUE);
  } else {
    return std::nullopt;
  }
  mint.set_target_uid(state.target_uid());
  mint.set_attempt_id(absl::StrCat("m", state.attempt_count() + 1));
  return mint;
}

int64_t CausationSeq(const v1::Event& event, const TargetState& state) {
  if (!event.has_credential_secret_deleted()) return 0;
  switch (event.credential_secret_deleted().reason()) {
    case v1::SECRET_DELETION_REASON_REVOKED:
      return state.revoked_seq();
    case v1::SECRET_DELETION_REASON_TARGET_DELETED:
      return state.deletion_requested_seq();
    default:
      return 0;
  }
}

absl::StatusOr<std::vector<v1::Event>> DecideTarget(const TargetCommand& command,
                                                    const TargetState& state,
                                                    const CommandContext& context) {
  TargetDecision decision(state, context);
  return std::visit(decision, command);
}

}  // namespace credledger::service
