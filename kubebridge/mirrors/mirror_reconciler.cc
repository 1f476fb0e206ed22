#include "kubebridge/mirrors/mirror_reconciler.h"

#include <algorithm>
#include <iterator>
#include <map>
#include <optional>
#include <type_traits>
#include <utility>
#include <variant>

#include "absl/strings/str_cat.h"
#include "common/fault_points.h"
#include "common/status_macros.h"
#include "kubebridge/client/json_util.h"
#include "kubebridge/client/status_mapping.h"
#include "kubebridge/credentials/agent_objects.h"
#include "kubebridge/mirrors/mirror_objects.h"
#include "kubebridge/mirrors/namespace_labels.h"
#include "kubebridge/mirrors/owner_check.h"
#include "projections/identity_state.h"
#include "projections/mirror_naming.h"

namespace credledger::kubebridge {
namespace {

// At most this many outcomes per Record call, so one append stays small however many
// namespaces an identity is bound in.
constexpr size_t kOutcomesPerRecord = 64;

std::string NamespaceOf(const MirrorOutcome& outcome) {
  return std::visit(
      [](const auto& o) -> std::string {
        if constexpr (std::is_same_v<std::decay_t<decltype(o)>, RecordSourceObserved>) {
          return "";
        } else {
          return o.namespace_name;
        }
      },
      outcome);
}

// Collects the outcomes of a pass and records them in order, in calls of at most
// kOutcomesPerRecord, each under a request id derived from the state the previous call
// returned.
class OutcomeRecorder {
 public:
  OutcomeRecorder(MirrorOutcomeSink& sink, v1::IdentityState state)
      : sink_(sink), state_(std::move(state)) {}

  void Add(MirrorOutcome outcome) { pending_.push_back(std::move(outcome)); }

  // Records every full call's worth; with `all`, the rest too.
  absl::Status Flush(bool all) {
    while (pending_.size() >= kOutcomesPerRecord || (all && !pending_.empty())) {
      const size_t n = std::min(pending_.size(), kOutcomesPerRecord);
      std::vector<MirrorOutcome> chunk(std::make_move_iterator(pending_.begin()),
                                       std::make_move_iterator(pending_.begin() + n));
      pending_.erase(pending_.begin(), pending_.begin() + n);
      const std::string step = absl::StrCat("mirrors/", NamespaceOf(chunk.front()));
      ASSIGN_OR_RETURN(state_,
                       sink_.Record(state_.name(), chunk, MirrorOutcomeRequestId(state_, step)));
      common::FaultPoint("mirror.after_outcomes_recorded");
    }
    return absl::OkStatus();
  }

 private:
  MirrorOutcomeSink& sink_;
  v1::IdentityState state_;
  std::vector<MirrorOutcome> pending_;
};

ResourceRef NamespaceResource(const std::string& ns) {
  ResourceRef ref;
  ref.version = "v1";
  ref.resource = "namespaces";
  ref.name = ns;
  return ref;
}

v1::SecretRef MirrorRef(const std::string& name, const std::string& uid) {
  v1::SecretRef ref;
  ref.set_name(name);
  ref.set_uid(uid);
  return ref;
}

// The source Secret as read for one pass; its data lives here for that pass only.
struct SourceRead {
  MirrorSource source;
  RecordSourceObserved observed;
};

// Reads the source Secret `ref` directly (never from a cache), hashes its data and
// fingerprints it under `key`.
// Errors: the client's, except kNotFound (then found = false); SourceSecretDigest's.
absl::StatusOr<SourceRead> ReadSource(KubeClient& client, const v1::SourceSecretRef& ref,
                                      const common::FingerprintKey& key, Cancellation* cancel) {
  SourceRead read;
  absl::StatusOr<nlohmann::json> live =
      client.Get(SecretResource(ref.namespace_(), ref.name()), cancel);
  if (absl::IsNotFound(live.status())) return read;
  if (!live.ok()) return live.status();
  ASSIGN_OR_RETURN(SourceDigest digest, SourceSecretDigest(*live, key));
  auto data = live->find("data");
  if (data != live->end() && data->is_object()) read.source.data = std::move(*data);
  read.source.found = true;
  read.source.hash = std::move(digest.hash);
  read.source.fingerprint = digest.fingerprint;
  read.observed = {true, std::move(digest.fingerprint), std::move(digest.keys),
                   StringAt(*live, {"metadata", "resourceVersion"})};
  return read;
}

// What a pass needs to carry out one action.
struct ActionContext {
  KubeClient& client;
  OwnerCheck& owner_check;
  const std::string& mirror_name;
  const std::string& source_fingerprint;
  // The namespace's entry in the state the plan was made from; null when it has none.
  const v1::IdentityNamespaceState* entry;
  Cancellation* cancel;
};

// Checks every owner `action` would write a reference to, recording those found gone.
// Returns whether all exist (only then may the mirror be written).
// Errors: OwnerCheck::Check's.
absl::StatusOr<bool> OwnersExist(const ActionContext& ctx, const MirrorAction& action,
                                 OutcomeRecorder& recorder, MirrorReconcileResult& result) {
  bool all_exist = true;
  for (const v1::OwnerReference& owner : action.owners) {
    ASSIGN_OR_RETURN(std::optional<v1::BoundObjectAbsence> absence,
                     ctx.owner_check.Check(action.namespace_name, owner));
    if (!absence.has_value()) continue;
    recorder.Add(RecordBoundObjectGone{action.namespace_name, owner, *absence});
    ++result.bound_objects_gone;
    all_exist = false;
  }
  return all_exist;
}

RecordMirrorWritten Written(const ActionContext& ctx, const MirrorAction& action,
                            const std::string& uid, v1::MirrorWriteKind kind) {
  return RecordMirrorWritten{action.namespace_name,
                             MirrorRef(ctx.mirror_name, uid),
                             ctx.source_fingerprint,
                             action.owners,
                             kind,
                             action.changes};
}

// Carries out `action`, adding its outcomes to `recorder` and counting them in `result`.
// Returns the Kubernetes error of its write (outcomes added before it stay).
absl::Status CarryOut(const ActionContext& ctx, const MirrorAction& action,
                      OutcomeRecorder& recorder, MirrorReconcileResult& result) {
  const std::string& ns = action.namespace_name;
  if (action.mirror_gone) {
    recorder.Add(RecordMirrorDeletedExternally{ns, ctx.entry->mirror().secret()});
    ++result.deleted_externally;
  }
  if (action.held_back) ++result.held_back;
  switch (action.kind) {
    case MirrorAction::Kind::kNone:
      return absl::OkStatus();
    case MirrorAction::Kind::kCreate: {
      ASSIGN_OR_RETURN(const bool owners_exist, OwnersExist(ctx, action, recorder, result));
      if (!owners_exist) return absl::OkStatus();
      common::FaultPoint("mirror.before_secret_write");
      ASSIGN_OR_RETURN(nlohmann::json created,
                       ctx.client.Create(SecretResource(ns), action.object, ctx.cancel));
      common::FaultPoint("mirror.after_secret_write");
      recorder.Add(Written(ctx, action, StringAt(created, {"metadata", "uid"}),
                           v1::MIRROR_WRITE_KIND_CREATED));
      ++result.created;
      return absl::OkStatus();
    }
    case MirrorAction::Kind::kUpdate: {
      ASSIGN_OR_RETURN(const bool owners_exist, OwnersExist(ctx, action, recorder, result));
      if (!owners_exist) return absl::OkStatus();
      common::FaultPoint("mirror.before_secret_write");
      ASSIGN_OR_RETURN(
          nlohmann::json updated,
          ctx.client.Update(SecretResource(ns, ctx.mirror_name), action.object, ctx.cancel));
      common::FaultPoint("mirror.after_secret_write");
      recorder.Add(Written(ctx, action, StringAt(updated, {"metadata", "uid"}),
                           v1::MIRROR_WRITE_KIND_UPDATED));
      ++result.updated;
      return absl::OkStatus();
    }
    case MirrorAction::Kind::kAdopt:
      recorder.Add(Written(ctx, action, action.uid, v1::MIRROR_WRITE_KIND_ADOPTED));
      ++result.adopted;
      return absl::OkStatus();
    case MirrorAction::Kind::kDelete: {
      absl::Status deleted = ctx.client.Delete(SecretResource(ns, ctx.mirror_name),
                                               {.precondition_uid = action.uid}, ctx.cancel);
      if (deleted.ok()) {
        recorder.Add(RecordMirrorDeleted{ns, MirrorRef(ctx.mirror_name, action.uid),
                                         action.deletion_reason});
        ++result.deleted;
      } else if (absl::IsNotFound(deleted)) {
        // Gone between the list and the delete: someone else deleted it.
        if (ctx.entry != nullptr && ctx.entry->has_mirror()) {
          recorder.Add(RecordMirrorDeletedExternally{ns, ctx.entry->mirror().secret()});
          ++result.deleted_externally;
        }
      } else {
        return deleted;
      }
      return absl::OkStatus();
    }
    case MirrorAction::Kind::kRecordFailure:
      recorder.Add(RecordMirrorFailed{ns, action.failure_kind, action.message});
      ++result.failed;
      result.retry = true;
      return absl::OkStatus();
  }
  return absl::OkStatus();
}

}  // namespace

MirrorReconciler::MirrorReconciler(KubeClient& client, MirrorOutcomeSink& sink,
                                   NamespaceLookup* namespaces,
                                   const common::FingerprintKey& fingerprint_key,
                                   RecreationPacer* pacer)
    : client_(client),
      sink_(sink),
      namespaces_(namespaces),
      fingerprint_key_(fingerprint_key),
      pacer_(pacer) {}

absl::StatusOr<NamespaceLabels> MirrorReconciler::LabelsOf(KubeClient& target,
                                                           const std::string& ns,
                                                           Cancellation* cancel) {
  if (namespaces_ != nullptr && &target == &client_) {
    if (std::optional<NamespaceLabels> known = namespaces_->Lookup(ns)) return *std::move(known);
  }
  absl::StatusOr<nlohmann::json> live = target.Get(NamespaceResource(ns), cancel);
  if (absl::IsNotFound(live.status())) return NamespaceLabels{false, {}};
  if (!live.ok()) return live.status();
  return NamespaceLabels{true, NamespaceLabelsOf(*live)};
}

absl::Status MirrorReconciler::RecordClusterFailure(const v1::IdentityState& state,
                                                    v1::MirrorFailureKind kind,
                                                    const std::string& message) {
  std::vector<MirrorOutcome> failures;
  for (const v1::IdentityNamespaceState& entry : state.namespaces()) {
    // A namespace whose bindings are gone but whose mirror is not is waiting for its removal.
    if (entry.bindings_size() > 0 || entry.has_mirror()) {
      failures.push_back(RecordMirrorFailed{entry.namespace_(), kind, message});
    }
  }
  if (failures.empty()) return absl::OkStatus();
  return sink_.Record(state.name(), failures, MirrorOutcomeRequestId(state, "cluster")).status();
}

absl::StatusOr<MirrorReconcileResult> MirrorReconciler::Reconcile(const v1::IdentityState& state,
                                                                  Cancellation* cancel,
                                                                  KubeClient* target) {
  MirrorReconcileResult result;
  if (state.phase() != v1::IdentityState::PHASE_ACTIVE) return result;
  KubeClient& mirrors = target != nullptr ? *target : client_;
  // The words of a registered cluster's API server stay out of the log (it could echo a
  // credential); a failure to read it is recorded as the cluster being unreachable.
  const bool remote = target != nullptr;
  auto describe = [remote](const absl::Status& status) {
    return remote ? ServerFreeMessage(status) : std::string(status.message());
  };
  auto unreachable = [&](const v1::IdentityState& at, const absl::Status& status) {
    if (!remote || absl::IsCancelled(status)) return status;
    RETURN_IF_ERROR(RecordClusterFailure(
        at, v1::MIRROR_FAILURE_KIND_CLUSTER_UNREACHABLE,
        absl::StrCat("cluster \"", at.spec().cluster(), "\": ", describe(status))));
    return status;
  };

  ASSIGN_OR_RETURN(SourceRead read,
                   ReadSource(client_, state.spec().secret_ref(), fingerprint_key_, cancel));
  result.source_found = read.source.found;

  std::vector<MirrorOutcome> observations = {std::move(read.observed)};
  if (state.spec().allowed_namespaces().has_selector()) {
    for (const v1::IdentityNamespaceState& entry : state.namespaces()) {
      absl::StatusOr<NamespaceLabels> labels = LabelsOf(mirrors, entry.namespace_(), cancel);
      if (!labels.ok()) return unreachable(state, labels.status());
      observations.push_back(
          RecordNamespaceLabels{entry.namespace_(), labels->found, std::move(labels->labels)});
    }
  }
  ASSIGN_OR_RETURN(
      const v1::IdentityState current,
      sink_.Record(state.name(), observations, MirrorOutcomeRequestId(state, "observe")));
  if (current.phase() != v1::IdentityState::PHASE_ACTIVE) return result;

  const std::string mirror_name = projections::MirrorSecretName(current.name());
  ListOptions by_name;
  by_name.field_selector = absl::StrCat("metadata.name=", mirror_name);
  absl::StatusOr<ObjectList> listed = mirrors.List(SecretResource(""), by_name, cancel);
  if (!listed.ok()) return unreachable(current, listed.status());
  std::map<std::string, nlohmann::json> existing;
  for (nlohmann::json& secret : listed->items) {
    std::string ns = StringAt(secret, {"metadata", "namespace"});
    existing.emplace(std::move(ns), std::move(secret));
  }

  std::vector<MirrorAction> plan = PlanMirrors(current, existing, read.source, {});
  if (pacer_ != nullptr) {
    std::vector<std::string> deleted_externally;
    for (const MirrorAction& action : plan) {
      if (action.mirror_gone) deleted_externally.push_back(action.namespace_name);
    }
    const std::set<std::string> held = pacer_->HeldBack(current.name(), deleted_externally);
    if (!held.empty()) plan = PlanMirrors(current, existing, read.source, held);
  }

  OutcomeRecorder recorder(sink_, current);
  OwnerCheck owner_check(mirrors, cancel, remote);
  absl::Status first_error;
  for (const MirrorAction& action : plan) {
    const ActionContext ctx{mirrors,
                            owner_check,
                            mirror_name,
                            read.source.fingerprint,
                            projections::FindIdentityNamespace(current, action.namespace_name),
                            cancel};
    absl::Status status = CarryOut(ctx, action, recorder, result);
    if (absl::IsCancelled(status)) {
      // Keep what was written so far explained by the log.
      recorder.Flush(/*all=*/true).IgnoreError();
      return status;
    }
    if (!status.ok()) {
      recorder.Add(
          RecordMirrorFailed{action.namespace_name, v1::MIRROR_FAILURE_KIND_WRITE_FAILED,
                             absl::StrCat("mirror \"", action.namespace_name, "/", mirror_name,
                                          "\" could not be made current: ", describe(status))});
      ++result.failed;
      if (first_error.ok()) first_error = status;
    }
    RETURN_IF_ERROR(recorder.Flush(/*all=*/false));
  }
  RETURN_IF_ERROR(recorder.Flush(/*all=*/true));
  if (!first_error.ok()) return first_error;
  return result;
}

}  // namespace credledger::kubebridge
