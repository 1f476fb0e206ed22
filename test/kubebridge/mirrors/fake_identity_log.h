// FakeIdentityLog: a MirrorOutcomeSink over one identity stream held in memory, for tests of
// the mirror bridge. Client commands are appended as their events (Append); outcomes become
// the events they describe, each folded with projections::EvolveIdentity before the next is
// turned into an event, and an outcome that changes nothing (the same source, labels or
// failure again, an owner already marked gone or not bound) appends nothing, as the
// service's decider does. Stream versions count from
// 0 and seq from 1; event times are one second apart.
//
// Thread-safety: all methods may be called concurrently.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "credledger/v1/events.pb.h"
#include "credledger/v1/state.pb.h"
#include "kubebridge/model/mirror_outcomes.h"
#include "projections/identity_state.h"
#include "projections/mirror_naming.h"

namespace credledger::kubebridge {

class FakeIdentityLog final : public MirrorOutcomeSink {
 public:
  void Append(const v1::Event& event) {
    absl::MutexLock lock(&mu_);
    AppendLocked(event);
  }
  v1::IdentityState state() {
    absl::MutexLock lock(&mu_);
    return state_;
  }
  std::vector<v1::Event> events() {
    absl::MutexLock lock(&mu_);
    return events_;
  }
  // Request id and size of every Record call.
  std::vector<std::pair<std::string, size_t>> calls() {
    absl::MutexLock lock(&mu_);
    return calls_;
  }

  absl::StatusOr<RecordedOutcomes> Record(const std::string& identity,
                                          const std::vector<MirrorOutcome>& outcomes,
                                          const std::string& request_id) override {
    absl::MutexLock lock(&mu_);
    if (state_.phase() == v1::IdentityState::PHASE_UNSPECIFIED || identity != state_.name()) {
      return absl::NotFoundError(absl::StrCat("identity \"", identity, "\" not found"));
    }
    calls_.emplace_back(request_id, outcomes.size());
    int64_t appended = 0;
    for (const MirrorOutcome& outcome : outcomes) {
      std::optional<v1::Event> event =
          std::visit([this](const auto& o) { return ToEvent(o); }, outcome);
      if (!event.has_value()) continue;
      AppendLocked(*event);
      ++appended;
    }
    return RecordedOutcomes{state_, appended};
  }
  absl::StatusOr<v1::IdentityState> Load(const std::string&) override { return state(); }

 private:
  std::optional<v1::Event> ToEvent(const RecordSourceObserved& o) {
    const v1::SourceObservation& last = state_.source();
    if (last.observed() && last.found() == o.found &&
        projections::SourceDigestOf(last) == o.source_fingerprint) {
      return std::nullopt;
    }
    v1::Event e;
    v1::SourceSecretObserved* s = e.mutable_source_secret_observed();
    s->set_found(o.found);
    s->set_source_fingerprint(o.source_fingerprint);
    for (const std::string& k : o.keys) s->add_keys(k);
    s->set_resource_version(o.resource_version);
    return e;
  }
  std::optional<v1::Event> ToEvent(const RecordNamespaceLabels& o) {
    const v1::IdentityNamespaceState* entry =
        projections::FindIdentityNamespace(state_, o.namespace_name);
    if (entry == nullptr) return std::nullopt;
    bool same = entry->labels_observed() && entry->namespace_found() == o.found &&
                entry->labels_size() == static_cast<int>(o.labels.size());
    for (size_t i = 0; same && i < o.labels.size(); ++i) {
      same = entry->labels(i).key() == o.labels[i].key() &&
             entry->labels(i).value() == o.labels[i].value();
    }
    if (same) return std::nullopt;
    v1::Event e;
    v1::NamespaceLabelsObserved* n = e.mutable_namespace_labels_observed();
    n->set_namespace_(o.namespace_name);
    n->set_found(o.found);
    for (const v1::Label& l : o.labels) *n->add_labels() = l;
    return e;
  }
  std::optional<v1::Event> ToEvent(const RecordMirrorWritten& o) {
    v1::Event e;
    v1::MirrorWritten* w = e.mutable_mirror_written();
    w->set_namespace_(o.namespace_name);
    *w->mutable_secret() = o.secret;
    w->set_source_fingerprint(o.source_fingerprint);
    for (const v1::OwnerReference& owner : o.owners) *w->add_owners() = owner;
    w->set_kind(o.kind);
    for (const std::string& c : o.changed) w->add_changed(c);
    return e;
  }
  std::optional<v1::Event> ToEvent(const RecordMirrorDeleted& o) {
    v1::Event e;
    e.mutable_mirror_deleted()->set_namespace_(o.namespace_name);
    *e.mutable_mirror_deleted()->mutable_secret() = o.secret;
    e.mutable_mirror_deleted()->set_reason(o.reason);
    return e;
  }
  std::optional<v1::Event> ToEvent(const RecordMirrorDeletedExternally& o) {
    v1::Event e;
    e.mutable_mirror_deleted_externally()->set_namespace_(o.namespace_name);
    *e.mutable_mirror_deleted_externally()->mutable_secret() = o.secret;
    return e;
  }
  std::optional<v1::Event> ToEvent(const RecordBoundObjectGone& o) {
    const v1::IdentityNamespaceState* entry =
        projections::FindIdentityNamespace(state_, o.namespace_name);
    if (entry == nullptr) return std::nullopt;
    for (const v1::IdentityBinding& b : entry->bindings()) {
      const v1::OwnerReference& bound = b.owner();
      if (bound.api_version() != o.owner.api_version() || bound.kind() != o.owner.kind() ||
          bound.name() != o.owner.name() || bound.uid() != o.owner.uid() || b.gone()) {
        continue;
      }
      v1::Event e;
      e.mutable_bound_object_gone()->set_namespace_(o.namespace_name);
      *e.mutable_bound_object_gone()->mutable_owner() = o.owner;
      e.mutable_bound_object_gone()->set_absence(o.absence);
      return e;
    }
    return std::nullopt;
  }
  std::optional<v1::Event> ToEvent(const RecordMirrorFailed& o) {
    const v1::IdentityNamespaceState* entry =
        projections::FindIdentityNamespace(state_, o.namespace_name);
    if (entry != nullptr && entry->has_failure() && entry->failure().kind() == o.kind &&
        entry->failure().message() == o.message) {
      return std::nullopt;
    }
    v1::Event e;
    e.mutable_mirror_failed()->set_namespace_(o.namespace_name);
    e.mutable_mirror_failed()->set_kind(o.kind);
    e.mutable_mirror_failed()->set_message(o.message);
    return e;
  }

  void AppendLocked(const v1::Event& event) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    const int64_t version = static_cast<int64_t>(events_.size());
    projections::EvolveIdentity(
        state_, event, {version + 1, version, absl::FromUnixSeconds(1'800'000'000 + version)});
    events_.push_back(event);
  }

  absl::Mutex mu_;
  v1::IdentityState state_ ABSL_GUARDED_BY(mu_);
  std::vector<v1::Event> events_ ABSL_GUARDED_BY(mu_);
  std::vector<std::pair<std::string, size_t>> calls_ ABSL_GUARDED_BY(mu_);
};

}  // namespace credledger::kubebridge
