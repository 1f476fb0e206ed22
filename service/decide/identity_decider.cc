#include "service/decide/identity_decider.h"

#include <google/protobuf/util/message_differencer.h>

#include <algorithm>
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "common/dns_label.h"
#include "common/fingerprint_key.h"
#include "common/status_macros.h"
#include "projections/allowed_namespaces.h"
#include "projections/identity_state.h"
#include "projections/mirror_naming.h"
#include "service/decide/validation.h"

namespace credledger::service {
namespace {

using google::protobuf::RepeatedPtrField;
using google::protobuf::util::MessageDifferencer;

using projections::FindIdentityNamespace;
using v1::Event;
using v1::IdentityState;

// "the home cluster" or `cluster "<name>"`.
std::string ClusterWords(const std::string& cluster) {
  return cluster.empty() ? "the home cluster" : absl::StrCat("cluster \"", cluster, "\"");
}

std::string SecretName(const v1::SourceSecretRef& ref) {
  return absl::StrCat(ref.namespace_(), "/", ref.name());
}

bool SameSecret(const v1::SourceSecretRef& a, const v1::SourceSecretRef& b) {
  return a.namespace_() == b.namespace_() && a.name() == b.name();
}

// The same Kubernetes object, possibly another incarnation of it (uids not compared).
bool SameObject(const v1::OwnerReference& a, const v1::OwnerReference& b) {
  return a.api_version() == b.api_version() && a.kind() == b.kind() && a.name() == b.name();
}

// An access review fit to record for a spec pointing at `secret`: run for that Secret and
// allowed ("Who may point an identity at a Secret").
absl::Status CheckReview(const v1::AccessReview& review, const v1::SourceSecretRef& secret) {
  if (review.secret().namespace_().empty() && review.secret().name().empty()) {
    return absl::FailedPreconditionError(absl::StrCat(
        "access review missing or for another Secret: none was run for Secret ",
        SecretName(secret)));
  }
  if (!SameSecret(review.secret(), secret)) {
    return absl::FailedPreconditionError(absl::StrCat(
        "access review missing or for another Secret: the review asked about Secret ",
        SecretName(review.secret()), ", spec.secret_ref is ", SecretName(secret)));
  }
  if (!review.allowed()) {
    return absl::FailedPreconditionError(absl::StrCat("access review denied: user \"",
                                                      review.user(), "\" may not get Secret ",
                                                      SecretName(secret)));
  }
  return absl::OkStatus();
}

// The namespace an outcome names: a DNS-1123 label.
absl::Status ValidateOutcomeNamespace(absl::string_view field, absl::string_view ns) {
  return common::ValidateDnsLabel(absl::StrCat(field, ".namespace"), ns);
}

bool SameLabels(const RepeatedPtrField<v1::Label>& a, const std::vector<v1::Label>& b) {
  if (static_cast<size_t>(a.size()) != b.size()) return false;
  for (size_t i = 0; i < b.size(); ++i) {
    if (a[i].key() != b[i].key() || a[i].value() != b[i].value()) return false;
  }
  return true;
}

bool SameOwners(const RepeatedPtrField<v1::OwnerReference>& a,
                const std::vector<v1::OwnerReference>& b) {
  if (static_cast<size_t>(a.size()) != b.size()) return false;
  for (size_t i = 0; i < b.size(); ++i) {
    if (!SameObject(a[i], b[i]) || a[i].uid() != b[i].uid()) return false;
  }
  return true;
}

class IdentityDecision {
 public:
  IdentityDecision(const IdentityState& state, const IdentityCommandContext& context)
      : state_(state), context_(context) {}

  absl::StatusOr<std::vector<Event>> operator()(const CreateIdentity& c) {
    RETURN_IF_ERROR(projections::ValidateIdentitySpec(c.spec));
    RETURN_IF_ERROR(CheckReview(c.review, c.spec.secret_ref()));
    if (state_.phase() == IdentityState::PHASE_ACTIVE) {
      if (MessageDifferencer::Equals(state_.spec(), c.spec)) return Done();
      return absl::FailedPreconditionError(
          "already exists with another spec; use UpdateIdentity (`credledger identity update`) "
          "to change it");
    }
    Event e;
    v1::IdentityCreated* created = e.mutable_identity_created();
    created->set_name(context_.identity);
    *created->mutable_spec() = c.spec;
    *created->mutable_access_review() = c.review;
    Emit(std::move(e));
    return Done();
  }

  absl::StatusOr<std::vector<Event>> operator()(const UpdateIdentity& c) {
    RETURN_IF_ERROR(RequireActive());
    RETURN_IF_ERROR(projections::ValidateIdentitySpec(c.spec));
    if (MessageDifferencer::Equals(state_.spec(), c.spec)) return Done();
    if (c.spec.cluster() != state_.spec().cluster()) {
      // The mirrors live in the old cluster; moving the identity would orphan them there
      // while the log stopped following them (docs/connections.md,
      // "Mirrors into a registered cluster").
      std::vector<std::string> mirrored;
      for (const v1::IdentityNamespaceState& ns : state_.namespaces()) {
        if (ns.has_mirror()) mirrored.push_back(ns.namespace_());
      }
      if (!mirrored.empty()) {
        return absl::FailedPreconditionError(absl::StrCat(
            "spec.cluster: identity \"", state_.name(), "\" still has mirrors in ",
            ClusterWords(state_.spec().cluster()), " (namespaces ", absl::StrJoin(mirrored, ", "),
            "); remove them first (unbind, or update allowedNamespaces to exclude them), then "
            "change the cluster"));
      }
    }
    if (c.review.has_value()) {
      RETURN_IF_ERROR(CheckReview(*c.review, c.spec.secret_ref()));
    } else if (projections::NeedsAccessReview(state_.spec(), c.spec)) {
      return absl::FailedPreconditionError(absl::StrCat(
          "access review missing or for another Secret: changing secret_ref or widening "
          "allowed_namespaces needs a review of Secret ",
          SecretName(c.spec.secret_ref())));
    }
    Event e;
    *e.mutable_identity_updated()->mutable_spec() = c.spec;
    if (c.review.has_value()) *e.mutable_identity_updated()->mutable_access_review() = *c.review;
    Emit(std::move(e));
    return Done();
  }

  absl::StatusOr<std::vector<Event>> operator()(const DeleteIdentity&) {
    RETURN_IF_ERROR(RequireActive());
    std::vector<std::string> bound;
    std::vector<std::string> mirrored;
    for (const v1::IdentityNamespaceState& ns : state_.namespaces()) {
      if (!ns.bindings().empty()) bound.push_back(ns.namespace_());
      if (ns.has_mirror()) mirrored.push_back(ns.namespace_());
    }
    if (!bound.empty() || !mirrored.empty()) {
      std::vector<std::string> uses;
      if (!bound.empty()) uses.push_back(absl::StrCat("bound in ", absl::StrJoin(bound, ", ")));
      if (!mirrored.empty()) {
        uses.push_back(absl::StrCat("mirrors in ", absl::StrJoin(mirrored, ", ")));
      }
      return absl::FailedPreconditionError(absl::StrCat(
          "is still used: ", absl::StrJoin(uses, "; "),
          "; unbind every object and let the mirrors be removed first"));
    }
    Event e;
    e.mutable_identity_deleted();
    Emit(std::move(e));
    return Done();
  }

  absl::StatusOr<std::vector<Event>> operator()(const BindIdentity& c) {
    RETURN_IF_ERROR(RequireActive());
    RETURN_IF_ERROR(common::ValidateDnsLabel("namespace", c.namespace_name));
    RETURN_IF_ERROR(ValidateOwnerReference(c.owner, /*require_uid=*/true));
    std::string replaced_uid;
    if (const v1::IdentityBinding* bound = FindBinding(c.namespace_name, c.owner)) {
      if (bound->owner().uid() == c.owner.uid()) return Done();
      replaced_uid = bound->owner().uid();
    }
    Event e;
    v1::IdentityBound* b = e.mutable_identity_bound();
    b->set_namespace_(c.namespace_name);
    *b->mutable_owner() = c.owner;
    b->set_replaced_uid(replaced_uid);
    Emit(std::move(e));
    return Done();
  }

  absl::StatusOr<std::vector<Event>> operator()(const UnbindIdentity& c) {
    RETURN_IF_ERROR(RequireActive());
    const v1::IdentityBinding* bound = FindBinding(c.namespace_name, c.owner);
    if (bound == nullptr) return Done();
    if (!c.owner.uid().empty() && c.owner.uid() != bound->owner().uid()) {
      return absl::FailedPreconditionError(absl::StrCat(
          c.owner.kind(), " ", c.namespace_name, "/", c.owner.name(),
          " is bound with uid ", bound->owner().uid(), ", not ", c.owner.uid(),
          "; an unbind names the bound object's uid or none"));
    }
    Event e;
    e.mutable_identity_unbound()->set_namespace_(c.namespace_name);
    *e.mutable_identity_unbound()->mutable_owner() = bound->owner();
    Emit(std::move(e));
    return Done();
  }

  absl::StatusOr<std::vector<Event>> operator()(const ApplyMirrorOutcomes& c) {
    RETURN_IF_ERROR(RequireActive());
    for (size_t i = 0; i < c.outcomes.size(); ++i) {
      const std::string field = absl::StrCat("outcomes[", i, "]");
      RETURN_IF_ERROR(
          std::visit([&](const auto& outcome) { return Apply(field, outcome); }, c.outcomes[i]));
    }
    return Done();
  }

 private:
  absl::Status RequireActive() const {
    if (state_.phase() != IdentityState::PHASE_ACTIVE) return absl::NotFoundError("not found");
    return absl::OkStatus();
  }

  // The binding of the object `owner` names (any uid) in `ns`, in the working state.
  const v1::IdentityBinding* FindBinding(absl::string_view ns,
                                         const v1::OwnerReference& owner) const {
    const v1::IdentityNamespaceState* entry = FindIdentityNamespace(working_, ns);
    if (entry == nullptr) return nullptr;
    for (const v1::IdentityBinding& b : entry->bindings()) {
      if (SameObject(b.owner(), owner)) return &b;
    }
    return nullptr;
  }

  absl::Status Apply(const std::string& field, const kubebridge::RecordSourceObserved& o) {
    if (o.found) {
      RETURN_IF_ERROR(common::ValidateFingerprint(absl::StrCat(field, ".source_fingerprint"),
                                                  o.source_fingerprint));
    } else if (!o.source_fingerprint.empty() || !o.keys.empty()) {
      return absl::InvalidArgumentError(
          absl::StrCat(field, ": a source that was not found has no fingerprint and no keys"));
    }
    // A plain hash of a version 1 event never equals a fingerprint: the first observation
    // under fingerprints is recorded (docs/mirrors.md, "Logs with plain source hashes").
    const v1::SourceObservation& last = working_.source();
    if (last.observed() && last.found() == o.found &&
        projections::SourceDigestOf(last) == o.source_fingerprint &&
        std::equal(last.keys().begin(), last.keys().end(), o.keys.begin(), o.keys.end())) {
      return absl::OkStatus();
    }
    Event e;
    v1::SourceSecretObserved* s = e.mutable_source_secret_observed();
    s->set_found(o.found);
    s->set_source_fingerprint(o.source_fingerprint);
    for (const std::string& key : o.keys) s->add_keys(key);
    s->set_resource_version(o.resource_version);
    Emit(std::move(e));
    return absl::OkStatus();
  }

  absl::Status Apply(const std::string& field, const kubebridge::RecordNamespaceLabels& o) {
    RETURN_IF_ERROR(ValidateOutcomeNamespace(field, o.namespace_name));
    const v1::IdentityNamespaceState* entry = FindIdentityNamespace(working_, o.namespace_name);
    if (entry == nullptr) return absl::OkStatus();  // neither bound nor mirrored there
    if (entry->labels_observed() && entry->namespace_found() == o.found &&
        SameLabels(entry->labels(), o.labels)) {
      return absl::OkStatus();
    }
    Event e;
    v1::NamespaceLabelsObserved* n = e.mutable_namespace_labels_observed();
    n->set_namespace_(o.namespace_name);
    n->set_found(o.found);
    for (const v1::Label& label : o.labels) *n->add_labels() = label;
    Emit(std::move(e));
    return absl::OkStatus();
  }

  absl::Status Apply(const std::string& field, const kubebridge::RecordMirrorWritten& o) {
    RETURN_IF_ERROR(ValidateOutcomeNamespace(field, o.namespace_name));
    RETURN_IF_ERROR(common::ValidateFingerprint(absl::StrCat(field, ".source_fingerprint"),
                                                o.source_fingerprint));
    if (o.kind == v1::MIRROR_WRITE_KIND_ADOPTED) {
      // An adoption records nothing new when the log already holds the mirror as found and
      // no failure since; otherwise it explains the mirror (or clears the failure).
      const v1::IdentityNamespaceState* entry =
          FindIdentityNamespace(working_, o.namespace_name);
      if (entry != nullptr && entry->has_mirror() && !entry->has_failure() &&
          MessageDifferencer::Equals(entry->mirror().secret(), o.secret) &&
          projections::SourceDigestOf(entry->mirror()) == o.source_fingerprint &&
          SameOwners(entry->mirror().owners(), o.owners)) {
        return absl::OkStatus();
      }
    }
    Event e;
    v1::MirrorWritten* w = e.mutable_mirror_written();
    w->set_namespace_(o.namespace_name);
    *w->mutable_secret() = o.secret;
    w->set_source_fingerprint(o.source_fingerprint);
    for (const v1::OwnerReference& owner : o.owners) *w->add_owners() = owner;
    w->set_kind(o.kind);
    for (const std::string& what : o.changed) w->add_changed(what);
    Emit(std::move(e));
    return absl::OkStatus();
  }

  absl::Status Apply(const std::string& field, const kubebridge::RecordMirrorDeleted& o) {
    RETURN_IF_ERROR(ValidateOutcomeNamespace(field, o.namespace_name));
    Event e;
    v1::MirrorDeleted* d = e.mutable_mirror_deleted();
    d->set_namespace_(o.namespace_name);
    *d->mutable_secret() = o.secret;
    d->set_reason(o.reason);
    Emit(std::move(e));
    return absl::OkStatus();
  }

  absl::Status Apply(const std::string& field,
                     const kubebridge::RecordMirrorDeletedExternally& o) {
    RETURN_IF_ERROR(ValidateOutcomeNamespace(field, o.namespace_name));
    const v1::IdentityNamespaceState* entry = FindIdentityNamespace(working_, o.namespace_name);
    if (entry == nullptr || !entry->has_mirror()) return absl::OkStatus();
    if (!o.secret.uid().empty() && o.secret.uid() != entry->mirror().secret().uid()) {
      return absl::OkStatus();  // another Secret than the one the log holds
    }
    Event e;
    e.mutable_mirror_deleted_externally()->set_namespace_(o.namespace_name);
    *e.mutable_mirror_deleted_externally()->mutable_secret() = o.secret;
    Emit(std::move(e));
    return absl::OkStatus();
  }

  absl::Status Apply(const std::string& field, const kubebridge::RecordBoundObjectGone& o) {
    RETURN_IF_ERROR(ValidateOutcomeNamespace(field, o.namespace_name));
    if (absl::Status owner = ValidateOwnerReference(o.owner, /*require_uid=*/true); !owner.ok()) {
      return absl::Status(owner.code(), absl::StrCat(field, ".", owner.message()));
    }
    const v1::IdentityBinding* bound = FindBinding(o.namespace_name, o.owner);
    // Unbound or replaced since the check, or already known to be gone.
    if (bound == nullptr || bound->owner().uid() != o.owner.uid() || bound->gone()) {
      return absl::OkStatus();
    }
    Event e;
    v1::BoundObjectGone* g = e.mutable_bound_object_gone();
    g->set_namespace_(o.namespace_name);
    *g->mutable_owner() = bound->owner();
    g->set_absence(o.absence);
    Emit(std::move(e));
    return absl::OkStatus();
  }

  absl::Status Apply(const std::string& field, const kubebridge::RecordMirrorFailed& o) {
    RETURN_IF_ERROR(ValidateOutcomeNamespace(field, o.namespace_name));
    const v1::IdentityNamespaceState* entry = FindIdentityNamespace(working_, o.namespace_name);
    if (entry != nullptr && entry->has_failure() && entry->failure().kind() == o.kind &&
        entry->failure().message() == o.message) {
      return absl::OkStatus();
    }
    Event e;
    v1::MirrorFailed* f = e.mutable_mirror_failed();
    f->set_namespace_(o.namespace_name);
    f->set_kind(o.kind);
    f->set_message(o.message);
    Emit(std::move(e));
    return absl::OkStatus();
  }

  // Appends `e` and folds it into the working state at a provisional position (after the
  // last event folded, at `now`), so later decisions of this command see it.
  void Emit(Event e) {
    projections::EvolveIdentity(
        working_, e, {working_.seq() + 1, working_.stream_version() + 1, context_.now});
    events_.push_back(std::move(e));
  }

  absl::StatusOr<std::vector<Event>> Done() { return std::move(events_); }

  const IdentityState& state_;
  const IdentityCommandContext& context_;
  IdentityState working_ = state_;
  std::vector<Event> events_;
};

}  // namespace

absl::StatusOr<std::vector<v1::Event>> DecideIdentity(const IdentityCommand& command,
                                                      const IdentityState& state,
                                                      const IdentityCommandContext& context) {
  IdentityDecision decision(state, context);
  absl::StatusOr<std::vector<v1::Event>> decided = std::visit(decision, command);
  if (!decided.ok()) {
    // Every error names the identity.
    return absl::Status(decided.status().code(),
                        absl::StrCat("identity \"", context.identity, "\": ",
                                     decided.status().message()));
  }
  return decided;
}

}  // namespace credledger::service
