#include "kubebridge/mirrors/mirror_reconciler.h"

#include <map>
#include <optional>
#include <set>
#include <thread>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "common/status_macros.h"
#include "kubebridge/client/json_util.h"
#include "kubebridge/client/status_mapping.h"
#include "kubebridge/credentials/agent_objects.h"
#include "kubebridge/mirrors/mirror_objects.h"
#include "kubebridge/mirrors/mirror_plan_runner.h"
#include "kubebridge/mirrors/namespace_labels.h"
#include "projections/mirror_naming.h"

namespace credledger::kubebridge {
namespace {

ResourceRef NamespaceResource(const std::string& ns) {
  ResourceRef ref;
  ref.version = "v1";
  ref.resource = "namespaces";
  ref.name = ns;
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

}  // namespace

MirrorReconciler::MirrorReconciler(KubeClient& client, MirrorOutcomeSink& sink,
                                   NamespaceLookup* namespaces,
                                   const common::FingerprintKey& fingerprint_key,
                                   RecreationPacer* pacer, int writers)
    : client_(client),
      sink_(sink),
      namespaces_(namespaces),
      fingerprint_key_(fingerprint_key),
      pacer_(pacer),
      writers_(writers) {}

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

  // The mirrors are listed meanwhile: the list does not depend on what is observed.
  const std::string mirror_name = projections::MirrorSecretName(state.name());
  absl::StatusOr<ObjectList> listed;
  std::jthread lister([&] {
    ListOptions by_name;
    by_name.field_selector = absl::StrCat("metadata.name=", mirror_name);
    listed = mirrors.List(SecretResource(""), by_name, cancel);
  });
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
      RecordedOutcomes observed,
      sink_.Record(state.name(), observations, MirrorOutcomeRequestId(state, "observe")));
  const v1::IdentityState current = std::move(observed.state);
  // Events of others came in since `state` was read: what was observed (the labels of the
  // namespaces `state` has) may not cover them.
  result.others_appended = current.stream_version() != state.stream_version() + observed.appended;
  if (current.phase() != v1::IdentityState::PHASE_ACTIVE) return result;

  lister.join();
  if (!listed.ok()) return unreachable(current, listed.status());
  std::map<std::string, nlohmann::json> existing;
  for (nlohmann::json& secret : listed->items) {
    std::string ns = StringAt(secret, {"metadata", "namespace"});
    existing.emplace(std::move(ns), std::move(secret));
  }

  const std::vector<MirrorNamespace> targets = MirrorNamespaces(current, existing);
  std::set<std::string> held;
  if (pacer_ != nullptr) {
    std::vector<std::string> deleted_externally;
    for (const MirrorNamespace& target : targets) {
      if (MirrorGone(current, target)) deleted_externally.push_back(target.namespace_name);
    }
    held = pacer_->HeldBack(current.name(), deleted_externally);
  }

  const MirrorPlanContext ctx{mirrors, sink_,    current, mirror_name, read.source.fingerprint,
                              remote,  writers_, cancel};
  return RunMirrorPlan(
      ctx, targets.size(),
      [&](size_t i) {
        return PlanMirrorNamespace(current, targets[i], read.source,
                                   held.count(targets[i].namespace_name) > 0);
      },
      result);
}

}  // namespace credledger::kubebridge
