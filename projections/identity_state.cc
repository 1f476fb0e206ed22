#include "projections/identity_state.h"

#include <algorithm>
#include <string>
#include <tuple>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "projections/allowed_namespaces.h"
#include "projections/condition.h"
#include "projections/mirror_naming.h"
#include "projections/proto_time.h"

namespace credledger::projections {
namespace {

using v1::IdentityNamespaceState;

bool SameObject(const v1::OwnerReference& a, const v1::OwnerReference& b) {
  return a.api_version() == b.api_version() && a.kind() == b.kind() && a.name() == b.name();
}

bool OwnerBefore(const v1::OwnerReference& a, const v1::OwnerReference& b) {
  return std::tie(a.api_version(), a.kind(), a.name()) <
         std::tie(b.api_version(), b.kind(), b.name());
}

bool NamespaceBefore(const IdentityNamespaceState& entry, absl::string_view name) {
  return entry.namespace_() < name;
}

auto NamespaceLowerBound(google::protobuf::RepeatedPtrField<IdentityNamespaceState>& namespaces,
                         absl::string_view ns) {
  return std::lower_bound(namespaces.begin(), namespaces.end(), ns, NamespaceBefore);
}

IdentityNamespaceState* FindMutable(v1::IdentityState& state, absl::string_view ns) {
  auto* namespaces = state.mutable_namespaces();
  auto it = NamespaceLowerBound(*namespaces, ns);
  return it != namespaces->end() && it->namespace_() == ns ? &*it : nullptr;
}

// The entry of `ns`, inserted in namespace order when missing.
IdentityNamespaceState& FindOrAdd(v1::IdentityState& state, absl::string_view ns) {
  if (IdentityNamespaceState* found = FindMutable(state, ns)) return *found;
  auto* namespaces = state.mutable_namespaces();
  const int index = static_cast<int>(NamespaceLowerBound(*namespaces, ns) - namespaces->begin());
  namespaces->Add()->set_namespace_(std::string(ns));
  for (int i = namespaces->size() - 1; i > index; --i) namespaces->SwapElements(i - 1, i);
  return *namespaces->Mutable(index);
}

// Drops the entry of `ns` once it has no binding and no mirror.
void DropIfUnused(v1::IdentityState& state, absl::string_view ns) {
  auto* namespaces = state.mutable_namespaces();
  auto it = NamespaceLowerBound(*namespaces, ns);
  if (it == namespaces->end() || it->namespace_() != ns) return;
  if (it->bindings().empty() && !it->has_mirror()) namespaces->erase(it);
}

void StartIncarnation(v1::IdentityState& state, const v1::IdentityCreated& e,
                      const EventPosition& at) {
  state.Clear();
  state.set_name(e.name());
  state.set_phase(v1::IdentityState::PHASE_ACTIVE);
  *state.mutable_spec() = e.spec();
  state.set_incarnation_version(at.stream_version);
  *state.mutable_created_at() = ToProto(at.recorded_at);
  *state.mutable_updated_at() = ToProto(at.recorded_at);
  *state.mutable_access_review() = e.access_review();
}

void ApplyUpdated(v1::IdentityState& state, const v1::IdentityUpdated& e, absl::Time at) {
  // Another source Secret: what was observed of the old one says nothing about the new one.
  if (e.spec().secret_ref().namespace_() != state.spec().secret_ref().namespace_() ||
      e.spec().secret_ref().name() != state.spec().secret_ref().name()) {
    state.clear_source();
  }
  *state.mutable_spec() = e.spec();
  if (e.has_access_review()) *state.mutable_access_review() = e.access_review();
  *state.mutable_updated_at() = ToProto(at);
}

void ApplyBound(IdentityNamespaceState& ns, const v1::IdentityBound& e, absl::Time at) {
  auto* bindings = ns.mutable_bindings();
  auto it = std::find_if(bindings->begin(), bindings->end(), [&](const v1::IdentityBinding& b) {
    return SameObject(b.owner(), e.owner());
  });
  if (it == bindings->end()) {
    auto pos = std::lower_bound(bindings->begin(), bindings->end(), e.owner(),
                                [](const v1::IdentityBinding& b, const v1::OwnerReference& o) {
                                  return OwnerBefore(b.owner(), o);
                                });
    const int index = static_cast<int>(pos - bindings->begin());
    bindings->Add();
    for (int i = bindings->size() - 1; i > index; --i) bindings->SwapElements(i - 1, i);
    it = bindings->begin() + index;
  }
  *it->mutable_owner() = e.owner();
  *it->mutable_bound_at() = ToProto(at);
  // A new uid is a new object: whatever was found of the old one says nothing about it.
  it->clear_gone();
  it->clear_gone_at();
}

void ApplyBoundObjectGone(IdentityNamespaceState& ns, const v1::BoundObjectGone& e, absl::Time at) {
  for (v1::IdentityBinding& b : *ns.mutable_bindings()) {
    if (!SameObject(b.owner(), e.owner()) || b.owner().uid() != e.owner().uid() || b.gone()) {
      continue;
    }
    b.set_gone(true);
    *b.mutable_gone_at() = ToProto(at);
  }
}

// "Job plan (batch/v1, uid 6f0c...)" for each gone binding of `ns`.
std::string GoneOwnersWords(const IdentityNamespaceState& ns) {
  std::vector<std::string> words;
  for (const v1::IdentityBinding& b : ns.bindings()) {
    if (!b.gone()) continue;
    words.push_back(OwnerWords(b.owner()));
  }
  return absl::StrJoin(words, ", ");
}

void ApplyUnbound(IdentityNamespaceState& ns, const v1::IdentityUnbound& e) {
  auto* bindings = ns.mutable_bindings();
  bindings->erase(std::remove_if(bindings->begin(), bindings->end(),
                                 [&](const v1::IdentityBinding& b) {
                                   return SameObject(b.owner(), e.owner());
                                 }),
                  bindings->end());
}

void ApplySourceObserved(v1::IdentityState& state, const v1::SourceSecretObserved& e,
                         absl::Time at) {
  v1::SourceObservation* source = state.mutable_source();
  source->Clear();
  source->set_observed(true);
  source->set_found(e.found());
  source->set_source_hash(e.source_hash());
  source->set_source_fingerprint(e.source_fingerprint());
  *source->mutable_keys() = e.keys();
  *source->mutable_observed_at() = ToProto(at);
  // The source is back: a SOURCE_NOT_FOUND failure no longer holds. When its data is the
  // same as before, no write follows to clear it.
  if (!e.found()) return;
  for (IdentityNamespaceState& ns : *state.mutable_namespaces()) {
    if (ns.failure().kind() == v1::MIRROR_FAILURE_KIND_SOURCE_NOT_FOUND) ns.clear_failure();
  }
}

void ApplyLabels(v1::IdentityState& state, const v1::NamespaceLabelsObserved& e) {
  IdentityNamespaceState* ns = FindMutable(state, e.namespace_());
  if (ns == nullptr) return;  // not bound there (any longer)
  ns->set_labels_observed(true);
  ns->set_namespace_found(e.found());
  *ns->mutable_labels() = e.labels();
}

void ApplyMirrorWritten(IdentityNamespaceState& ns, const v1::MirrorWritten& e, absl::Time at) {
  v1::MirrorRecord* mirror = ns.mutable_mirror();
  mirror->Clear();
  *mirror->mutable_secret() = e.secret();
  mirror->set_source_hash(e.source_hash());
  mirror->set_source_fingerprint(e.source_fingerprint());
  *mirror->mutable_owners() = e.owners();
  *mirror->mutable_written_at() = ToProto(at);
  ns.clear_failure();
}

void ApplyMirrorFailed(IdentityNamespaceState& ns, const v1::MirrorFailed& e, absl::Time at) {
  v1::MirrorFailure* failure = ns.mutable_failure();
  failure->set_kind(e.kind());
  failure->set_message(e.message());
  *failure->mutable_at() = ToProto(at);
}

void UpdateMirroredCondition(const v1::IdentityState& state, IdentityNamespaceState& ns,
                             const Allowance& allowance, absl::Time at) {
  v1::Condition& c = *ns.mutable_credentials_mirrored();
  const std::string mirror_name =
      ns.has_mirror() ? ns.mirror().secret().name() : MirrorSecretName(state.name());
  const v1::SourceObservation& source = state.source();
  const v1::SourceSecretRef& ref = state.spec().secret_ref();
  if (BindingsAllGone(ns)) {
    SetCondition(
        c, kCredentialsMirroredCondition, "False", kReasonBoundObjectGone,
        absl::StrCat("every object bound in namespace ", ns.namespace_(),
                     " is gone: ", GoneOwnersWords(ns), "; ",
                     ns.has_mirror() ? absl::StrCat("mirror ", mirror_name, " is to be removed and")
                                     : "a mirror",
                     " is not written again until an existing object is bound"),
        at);
  } else if (allowance.verdict == Allowance::Verdict::kNotAllowed) {
    SetCondition(
        c, kCredentialsMirroredCondition, "False", kReasonNamespaceNotAllowed,
        ns.has_mirror()
            ? absl::StrCat("namespace ", ns.namespace_(), " is not allowed: mirror ", mirror_name,
                           " is to be removed")
            : absl::StrCat("namespace ", ns.namespace_(), " is not allowed: it holds no mirror"),
        at);
  } else if (ns.has_failure()) {
    SetCondition(c, kCredentialsMirroredCondition, "False", kReasonMirrorFailed,
                 ns.failure().message(), at);
  } else if (ns.has_mirror() && source.found() &&
             SourceDigestOf(ns.mirror()) == SourceDigestOf(source)) {
    SetCondition(c, kCredentialsMirroredCondition, "True", kReasonMirrored,
                 absl::StrCat("mirror ", mirror_name, " holds the source's current data (source ",
                              ShortSourceDigest(SourceDigestOf(source)), ")"),
                 at);
  } else {
    std::string message;
    if (allowance.verdict == Allowance::Verdict::kUnknown) {
      message = allowance.message;
    } else if (!source.observed()) {
      message = absl::StrCat("waiting for the source Secret ", ref.namespace_(), "/", ref.name(),
                             " to be read");
    } else if (!source.found()) {
      message =
          absl::StrCat("the source Secret ", ref.namespace_(), "/", ref.name(), " does not exist");
    } else if (!ns.has_mirror()) {
      message = absl::StrCat("waiting for mirror ", mirror_name, " to be written (source ",
                             ShortSourceDigest(SourceDigestOf(source)), ")");
    } else {
      message = absl::StrCat("mirror ", mirror_name, " holds source ",
                             ShortSourceDigest(SourceDigestOf(ns.mirror())),
                             "; waiting for it to be rewritten with source ",
                             ShortSourceDigest(SourceDigestOf(source)));
    }
    SetCondition(c, kCredentialsMirroredCondition, "Unknown", kReasonMirrorPending,
                 std::move(message), at);
  }
}

void UpdateConditions(const v1::IdentityState& state, IdentityNamespaceState& ns, absl::Time at) {
  const Allowance allowance = EvaluateAllowed(state.spec(), ns);
  switch (allowance.verdict) {
    case Allowance::Verdict::kAllowed:
      SetCondition(*ns.mutable_identity_allowed(), kIdentityAllowedCondition, "True",
                   kReasonNamespaceAllowed, allowance.message, at);
      break;
    case Allowance::Verdict::kNotAllowed:
      SetCondition(*ns.mutable_identity_allowed(), kIdentityAllowedCondition, "False",
                   kReasonNamespaceNotAllowed, allowance.message, at);
      break;
    case Allowance::Verdict::kUnknown:
      SetCondition(*ns.mutable_identity_allowed(), kIdentityAllowedCondition, "Unknown",
                   kReasonNamespaceLabelsUnknown, allowance.message, at);
      break;
  }
  UpdateMirroredCondition(state, ns, allowance, at);
}

}  // namespace

std::string IdentityStream(absl::string_view name) { return absl::StrCat("identity/", name); }

void EvolveIdentity(v1::IdentityState& state, const v1::Event& event, const EventPosition& at) {
  // The namespace the event is about; empty for events about the identity as a whole (its
  // spec or its source), after which every namespace's conditions are recomputed.
  absl::string_view ns;
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
    case v1::Event::kClusterRegistered:
    case v1::Event::kClusterSpecChanged:
    case v1::Event::kClusterDeregistered:
    case v1::Event::kClusterProbed:
    case v1::Event::kSourceVerified:
    case v1::Event::kCallsDenied:
    case v1::Event::kLogAdopted:
    case v1::Event::KIND_NOT_SET:
      return;
    case v1::Event::kIdentityCreated:
      StartIncarnation(state, event.identity_created(), at);
      break;
    case v1::Event::kIdentityUpdated:
      ApplyUpdated(state, event.identity_updated(), at.recorded_at);
      break;
    case v1::Event::kIdentityDeleted:
      state.set_phase(v1::IdentityState::PHASE_DELETED);
      break;
    case v1::Event::kIdentityBound:
      ns = event.identity_bound().namespace_();
      ApplyBound(FindOrAdd(state, ns), event.identity_bound(), at.recorded_at);
      break;
    case v1::Event::kIdentityUnbound:
      ns = event.identity_unbound().namespace_();
      if (IdentityNamespaceState* entry = FindMutable(state, ns)) {
        ApplyUnbound(*entry, event.identity_unbound());
      }
      break;
    case v1::Event::kSourceSecretObserved:
      ApplySourceObserved(state, event.source_secret_observed(), at.recorded_at);
      break;
    case v1::Event::kNamespaceLabelsObserved:
      ns = event.namespace_labels_observed().namespace_();
      ApplyLabels(state, event.namespace_labels_observed());
      break;
    case v1::Event::kMirrorWritten:
      ns = event.mirror_written().namespace_();
      ApplyMirrorWritten(FindOrAdd(state, ns), event.mirror_written(), at.recorded_at);
      break;
    case v1::Event::kMirrorDeleted:
      ns = event.mirror_deleted().namespace_();
      if (IdentityNamespaceState* entry = FindMutable(state, ns)) entry->clear_mirror();
      break;
    case v1::Event::kMirrorDeletedExternally:
      ns = event.mirror_deleted_externally().namespace_();
      if (IdentityNamespaceState* entry = FindMutable(state, ns)) entry->clear_mirror();
      break;
    case v1::Event::kBoundObjectGone:
      ns = event.bound_object_gone().namespace_();
      if (IdentityNamespaceState* entry = FindMutable(state, ns)) {
        ApplyBoundObjectGone(*entry, event.bound_object_gone(), at.recorded_at);
      }
      break;
    case v1::Event::kMirrorFailed:
      ns = event.mirror_failed().namespace_();
      ApplyMirrorFailed(FindOrAdd(state, ns), event.mirror_failed(), at.recorded_at);
      break;
  }
  state.set_stream_version(at.stream_version);
  state.set_seq(at.seq);
  if (ns.empty()) {
    for (IdentityNamespaceState& entry : *state.mutable_namespaces()) {
      UpdateConditions(state, entry, at.recorded_at);
    }
    return;
  }
  DropIfUnused(state, ns);
  if (IdentityNamespaceState* entry = FindMutable(state, ns)) {
    UpdateConditions(state, *entry, at.recorded_at);
  }
}

std::string OwnerWords(const v1::OwnerReference& owner) {
  return absl::StrCat(owner.kind(), " ", owner.name(), " (", owner.api_version(), ", uid ",
                      owner.uid(), ")");
}

bool BindingsAllGone(const v1::IdentityNamespaceState& ns) {
  return !ns.bindings().empty() &&
         std::all_of(ns.bindings().begin(), ns.bindings().end(),
                     [](const v1::IdentityBinding& b) { return b.gone(); });
}

const v1::IdentityNamespaceState* FindIdentityNamespace(const v1::IdentityState& state,
                                                        absl::string_view ns) {
  auto it =
      std::lower_bound(state.namespaces().begin(), state.namespaces().end(), ns, NamespaceBefore);
  return it != state.namespaces().end() && it->namespace_() == ns ? &*it : nullptr;
}

}  // namespace credledger::projections
