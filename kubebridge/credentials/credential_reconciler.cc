#include "kubebridge/credentials/credential_reconciler.h"

#include "absl/strings/str_cat.h"
#include "common/fault_points.h"
#include "common/status_macros.h"
#include "kubebridge/client/json_util.h"
#include "kubebridge/client/write_helpers.h"
#include "kubebridge/credentials/agent_objects.h"
#include "projections/proto_time.h"
#include "projections/target_state.h"

namespace credledger::kubebridge {
namespace {

using projections::FromProto;

const v1::CredentialRecord* FindRecord(const v1::TargetState& state, absl::string_view uid) {
  for (const v1::CredentialRecord& c : state.credentials()) {
    if (c.secret().uid() == uid) return &c;
  }
  return nullptr;
}

absl::Status IgnoreNotFound(absl::Status status) {
  return absl::IsNotFound(status) ? absl::OkStatus() : status;
}

// Why a revoke or delete pass deletes the Secret of `record`: the pass's `reason`, unless the
// record belongs to a mint abandoned before its Secret was issued.
v1::SecretDeletionReason ReasonFor(const v1::CredentialRecord& record,
                                   v1::SecretDeletionReason reason) {
  return record.release_reason() == v1::SECRET_DELETION_REASON_MINT_ABANDONED
             ? v1::SECRET_DELETION_REASON_MINT_ABANDONED
             : reason;
}

}  // namespace

CredentialReconciler::CredentialReconciler(KubeClient& client, IdentityCaches& caches,
                                           OutcomeSink& sink, common::Clock& clock,
                                           absl::Duration token_ttl)
    : client_(client),
      caches_(caches),
      sink_(sink),
      clock_(clock),
      minter_(client, sink, clock, token_ttl) {}

absl::StatusOr<v1::TargetState> CredentialReconciler::Record(const v1::TargetState& state,
                                                             const Outcome& outcome,
                                                             const std::string& step) {
  return sink_.Record(state.namespace_(), state.name(), outcome, OutcomeRequestId(state, step));
}

absl::StatusOr<ReconcileResult> CredentialReconciler::Reconcile(
    const v1::TargetState& input, const v1::ServiceConfigured& service,
    const std::vector<DeletedSecretHint>& hints, Cancellation* cancel) {
  v1::TargetState state = input;
  ReconcileResult result;
  switch (state.phase()) {
    case v1::TargetState::PHASE_DELETING:
      RETURN_IF_ERROR(Finalize(state, cancel).status());
      return result;
    case v1::TargetState::PHASE_ACTIVE:
      break;
    default:
      return result;  // never registered, or finalized
  }
  if (state.revoked()) {
    RETURN_IF_ERROR(
        DeleteAllCredentials(state, v1::SECRET_DELETION_REASON_REVOKED, nullptr, cancel).status());
    return result;
  }
  if (!service.credentials_enabled()) return result;

  ASSIGN_OR_RETURN(state, ConfirmDeletions(state, hints, cancel));
  ASSIGN_OR_RETURN(state, EnsureIdentity(state, cancel));
  ASSIGN_OR_RETURN(state, DeleteReleased(state, cancel));
  if (!state.has_open_attempt()) {
    ASSIGN_OR_RETURN(
        state, Record(state, PlanCredential{}, absl::StrCat("plan/", state.stream_version())));
  }
  if (state.has_open_attempt() && !state.revoked() &&
      state.phase() == v1::TargetState::PHASE_ACTIVE) {
    ASSIGN_OR_RETURN(state, minter_.Run(state, cancel));
    // A released Secret of an attempt abandoned meanwhile goes right away.
    ASSIGN_OR_RETURN(state, DeleteReleased(state, cancel));
  }

  const v1::CredentialRecord* current = projections::CurrentCredential(state);
  auto earliest = [&](absl::Time t) {
    if (!result.requeue_at.has_value() || t < *result.requeue_at) result.requeue_at = t;
  };
  if (state.consecutive_failures() > 0 && !state.has_open_attempt()) {
    earliest(FromProto(state.last_failure_at()) +
             projections::MintRetryDelay(state.consecutive_failures()));
  }
  for (const v1::CredentialRecord& c : state.credentials()) {
    if (c.phase() != v1::CredentialRecord::PHASE_ISSUED) continue;
    if (&c == current) {
      earliest(FromProto(c.rotation_due_at()));
    } else {
      earliest(FromProto(c.expires_at()));
    }
  }
  return result;
}

absl::StatusOr<v1::TargetState> CredentialReconciler::Finalize(const v1::TargetState& state,
                                                               Cancellation* cancel) {
  std::vector<std::string> deleted;
  ASSIGN_OR_RETURN(
      v1::TargetState current,
      DeleteAllCredentials(state, v1::SECRET_DELETION_REASON_TARGET_DELETED, &deleted, cancel));
  const std::string& ns = state.namespace_();
  const std::string identity = AgentIdentityName(state.name());
  struct Object {
    ResourceRef ref;
    std::string label;
    ObjectCache* cache;
  };
  for (const Object& o : {Object{RoleBindingResource(ns, identity), "RoleBinding/" + identity,
                                 &caches_.role_bindings()},
                          Object{RoleResource(ns, identity), "Role/" + identity, &caches_.roles()},
                          Object{ServiceAccountResource(ns, identity), "ServiceAccount/" + identity,
                                 &caches_.service_accounts()},
                          Object{TargetReportResource(ns, state.name()),
                                 "TargetReport/" + state.name(), &caches_.target_reports()}}) {
    absl::Status status = client_.Delete(o.ref, {}, cancel);
    if (status.ok()) deleted.push_back(o.label);
    RETURN_IF_ERROR(IgnoreNotFound(status));
    o.cache->ObserveDeleted(ns, o.ref.name);
  }
  common::FaultPoint("finalize.after_objects_delete");
  return Record(current, RecordTargetFinalized{deleted}, "finalized");
}

absl::StatusOr<v1::TargetState> CredentialReconciler::DeleteAllCredentials(
    const v1::TargetState& state, v1::SecretDeletionReason reason,
    std::vector<std::string>* deleted, Cancellation* cancel) {
  ListOptions by_name;
  by_name.label_selector = absl::StrCat(kCredentialLabel, "=", state.name());
  ASSIGN_OR_RETURN(ObjectList listed,
                   client_.List(SecretResource(state.namespace_()), by_name, cancel));
  v1::TargetState current = state;
  RecordStaleCredentialsDeleted unknown;
  for (const nlohmann::json& secret : listed.items) {
    v1::SecretRef ref;
    ref.set_name(StringAt(secret, {"metadata", "name"}));
    ref.set_uid(StringAt(secret, {"metadata", "uid"}));
    RETURN_IF_ERROR(IgnoreNotFound(client_.Delete(SecretResource(state.namespace_(), ref.name()),
                                                  {.precondition_uid = ref.uid()}, cancel)));
    common::FaultPoint("credentials.after_secret_delete");
    if (deleted != nullptr) deleted->push_back("Secret/" + ref.name());
    const std::string uid_label =
        StringAt(secret, {"metadata", "labels", kCredentialTargetUidLabel});
    const std::string attempt = StringAt(secret, {"metadata", "annotations", kAttemptAnnotation});
    if (FindRecord(current, ref.uid()) == nullptr && uid_label == state.target_uid() &&
        !attempt.empty()) {
      // This incarnation's mint created it, and its attempt was abandoned before the Secret
      // was recorded: it is recorded as that attempt's Secret (released as abandoned), not as
      // a leftover of another Target.
      const int64_t suffix = CredentialSecretSuffix(state.name(), ref.name());
      ASSIGN_OR_RETURN(current, Record(current, RecordSecretCreated{attempt, ref, suffix},
                                       absl::StrCat(attempt, "/secret-created")));
    }
    if (const v1::CredentialRecord* record = FindRecord(current, ref.uid())) {
      ASSIGN_OR_RETURN(current,
                       Record(current, RecordSecretDeleted{ref, ReasonFor(*record, reason)},
                              absl::StrCat("deleted/", ref.uid())));
    } else {
      unknown.secrets.push_back(ref);
      unknown.secret_target_uids.push_back(uid_label);
    }
  }
  // Records of Secrets that were already gone from the cluster.
  const auto remaining = current.credentials();  // copy: Record replaces `current`
  for (const v1::CredentialRecord& c : remaining) {
    ASSIGN_OR_RETURN(current, Record(current, RecordSecretDeleted{c.secret(), ReasonFor(c, reason)},
                                     absl::StrCat("deleted/", c.secret().uid())));
  }
  if (!unknown.secrets.empty()) {
    ASSIGN_OR_RETURN(current,
                     Record(current, unknown, absl::StrCat("stale/", current.stream_version())));
  }
  return current;
}

absl::StatusOr<v1::TargetState> CredentialReconciler::ConfirmDeletions(
    const v1::TargetState& state, const std::vector<DeletedSecretHint>& hints,
    Cancellation* cancel) {
  v1::TargetState current = state;
  for (const DeletedSecretHint& hint : hints) {
    const v1::CredentialRecord* record = FindRecord(current, hint.secret.uid());
    if (record == nullptr || record->phase() == v1::CredentialRecord::PHASE_RELEASED) continue;
    absl::StatusOr<nlohmann::json> live =
        client_.Get(SecretResource(current.namespace_(), hint.secret.name()), cancel);
    if (live.ok() && StringAt(*live, {"metadata", "uid"}) == hint.secret.uid()) continue;
    if (!live.ok() && !absl::IsNotFound(live.status())) return live.status();
    ASSIGN_OR_RETURN(
        current, Record(current, RecordSecretDeletedExternally{record->secret(), hint.observed_at},
                        absl::StrCat("gone/", hint.secret.uid())));
  }
  return current;
}

absl::StatusOr<v1::TargetState> CredentialReconciler::EnsureIdentity(const v1::TargetState& state,
                                                                     Cancellation* cancel) {
  const std::string& ns = state.namespace_();
  const std::string identity = AgentIdentityName(state.name());
  RecordIdentityWritten written;
  absl::Status failure;
  struct Owned {
    ResourceRef ref;
    nlohmann::json desired;
    std::string kind;
    ObjectCache* cache;
  };
  for (Owned& o : std::vector<Owned>{
           {ServiceAccountResource(ns, identity), ServiceAccountObject(ns, state.name()),
            "ServiceAccount", &caches_.service_accounts()},
           {RoleResource(ns, identity), RoleObject(ns, state.name()), "Role", &caches_.roles()},
           {RoleBindingResource(ns, identity), RoleBindingObject(ns, state.name()), "RoleBinding",
            &caches_.role_bindings()}}) {
    absl::StatusOr<WriteResult> w =
        ApplyIfDrifted(client_, *o.cache, o.ref, o.desired, kFieldManager, cancel);
    if (!w.ok()) {
      failure = w.status();
      break;
    }
    if (w->wrote) {
      written.writes.push_back(
          absl::StrCat(w->created ? "created " : "updated ", o.kind, "/", identity));
    }
  }
  if (failure.ok()) {
    absl::StatusOr<WriteResult> report =
        CreateOnly(client_, caches_.target_reports(), TargetReportResource(ns, state.name()),
                   TargetReportObject(ns, state.name()), cancel);
    if (!report.ok()) {
      failure = report.status();
    } else if (report->wrote) {
      written.writes.push_back(absl::StrCat("created TargetReport/", state.name()));
    }
  }
  v1::TargetState current = state;
  if (!written.writes.empty()) {
    ASSIGN_OR_RETURN(current,
                     Record(current, written, absl::StrCat("identity/", current.stream_version())));
  }
  if (!failure.ok()) {
    if (absl::IsCancelled(failure)) return failure;
    RETURN_IF_ERROR(Record(current,
                           RecordMintFailed{"", v1::MINT_STAGE_IDENTITY,
                                            std::string(failure.message()), std::nullopt},
                           absl::StrCat("identity-failed/", current.stream_version()))
                        .status());
    return failure;
  }
  return current;
}

absl::StatusOr<v1::TargetState> CredentialReconciler::DeleteReleased(const v1::TargetState& state,
                                                                     Cancellation* cancel) {
  v1::TargetState current = state;
  const v1::CredentialRecord* newest = projections::CurrentCredential(state);
  const int64_t current_suffix = newest == nullptr ? -1 : newest->suffix();
  const absl::Time now = clock_.Now();
  for (const v1::CredentialRecord& c : state.credentials()) {
    v1::SecretDeletionReason reason;
    if (c.phase() == v1::CredentialRecord::PHASE_RELEASED) {
      reason = c.release_reason();
    } else if (c.phase() == v1::CredentialRecord::PHASE_ISSUED && c.suffix() < current_suffix &&
               FromProto(c.expires_at()) <= now) {
      reason = v1::SECRET_DELETION_REASON_EXPIRED;  // superseded and its token is dead
    } else {
      continue;
    }
    RETURN_IF_ERROR(
        IgnoreNotFound(client_.Delete(SecretResource(state.namespace_(), c.secret().name()),
                                      {.precondition_uid = c.secret().uid()}, cancel)));
    common::FaultPoint("credentials.after_released_delete");
    ASSIGN_OR_RETURN(current, Record(current, RecordSecretDeleted{c.secret(), reason},
                                     absl::StrCat("deleted/", c.secret().uid())));
  }
  return current;
}

}  // namespace credledger::kubebridge
