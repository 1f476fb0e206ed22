// Given-events / when-command / then-events fixture of the identity decider tests
// (docs/design.md, "Deciders"): builders of identity events and outcomes, the fold of given
// events with projections::EvolveIdentity, and the comparison of emitted events.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "projections/identity_state.h"
#include "service/decide/identity_decider.h"
#include "test/support/event_matchers.h"
#include "test/support/status_matchers.h"

namespace credledger::service {
namespace identity_decider_test {

using ::credledger::testing::StatusIs;
using ::testing::AllOf;
using ::testing::HasSubstr;
using v1::Event;

inline constexpr char kIdentity[] = "aws";
inline constexpr char kSourceNamespace[] = "captf-system";
inline constexpr char kSourceName[] = "aws-source";
inline const absl::Time kT0 = absl::FromUnixSeconds(1767225600);
// Owner uids: Kubernetes object uids, lowercase RFC 4122 UUIDs.
inline constexpr char kUid1[] = "0f8fad5b-d9cb-469f-a165-708677289501";
inline constexpr char kUid2[] = "0f8fad5b-d9cb-469f-a165-708677289502";
inline constexpr char kUid3[] = "0f8fad5b-d9cb-469f-a165-708677289503";
inline constexpr char kOldUid[] = "7c9e6679-7425-40de-944b-e07fc1f90ae7";
inline constexpr char kNewUid[] = "7c9e6679-7425-40de-944b-e07fc1f90ae8";

// A source fingerprint under the key with id `key_id` (the decider treats it as an opaque
// value of that shape).
inline std::string Fingerprint(char digit, const std::string& key_id = "0123456789abcdef") {
  return absl::StrCat("hmac-sha256:", key_id, ":", std::string(64, digit));
}
// A plain source hash, as version 1 events carry it.
inline std::string PlainHash(char digit) { return std::string(64, digit); }

inline v1::SourceSecretRef Source(const std::string& name = kSourceName) {
  v1::SourceSecretRef ref;
  ref.set_namespace_(kSourceNamespace);
  ref.set_name(name);
  return ref;
}

// A spec for Secret `source` allowing the namespaces in `list`.
inline v1::IdentitySpec ListSpec(const std::vector<std::string>& list,
                          const std::string& source = kSourceName) {
  v1::IdentitySpec spec;
  *spec.mutable_secret_ref() = Source(source);
  for (const std::string& ns : list) spec.mutable_allowed_namespaces()->add_list(ns);
  return spec;
}

inline v1::AccessReview Review(const std::string& source = kSourceName, bool allowed = true) {
  v1::AccessReview review;
  review.set_user("alice");
  review.add_groups("platform");
  *review.mutable_secret() = Source(source);
  review.set_allowed(allowed);
  return review;
}

inline v1::OwnerReference Owner(const std::string& name, const std::string& uid) {
  v1::OwnerReference owner;
  owner.set_api_version("infrastructure.captf.io/v1alpha1");
  owner.set_kind("TerraformCluster");
  owner.set_name(name);
  owner.set_uid(uid);
  return owner;
}

inline v1::SecretRef Mirror(const std::string& uid) {
  v1::SecretRef secret;
  secret.set_name("captf-creds-aws");
  secret.set_uid(uid);
  return secret;
}

inline v1::Label Label(const std::string& key, const std::string& value) {
  v1::Label label;
  label.set_key(key);
  label.set_value(value);
  return label;
}

// --- Events ---

inline Event Created(const v1::IdentitySpec& spec, const v1::AccessReview& review = Review()) {
  Event e;
  e.mutable_identity_created()->set_name(kIdentity);
  *e.mutable_identity_created()->mutable_spec() = spec;
  *e.mutable_identity_created()->mutable_access_review() = review;
  return e;
}
inline Event Updated(const v1::IdentitySpec& spec, const v1::AccessReview* review = nullptr) {
  Event e;
  *e.mutable_identity_updated()->mutable_spec() = spec;
  if (review != nullptr) *e.mutable_identity_updated()->mutable_access_review() = *review;
  return e;
}
inline Event Deleted() {
  Event e;
  e.mutable_identity_deleted();
  return e;
}
inline Event Bound(const std::string& ns, const v1::OwnerReference& owner,
            const std::string& replaced_uid = "") {
  Event e;
  e.mutable_identity_bound()->set_namespace_(ns);
  *e.mutable_identity_bound()->mutable_owner() = owner;
  e.mutable_identity_bound()->set_replaced_uid(replaced_uid);
  return e;
}
inline Event Unbound(const std::string& ns, const v1::OwnerReference& owner) {
  Event e;
  e.mutable_identity_unbound()->set_namespace_(ns);
  *e.mutable_identity_unbound()->mutable_owner() = owner;
  return e;
}
inline Event SourceObserved(bool found, const std::string& hash, const std::vector<std::string>& keys,
                     const std::string& resource_version) {
  Event e;
  auto* s = e.mutable_source_secret_observed();
  s->set_found(found);
  s->set_source_fingerprint(hash);
  for (const std::string& k : keys) s->add_keys(k);
  s->set_resource_version(resource_version);
  return e;
}
inline Event LabelsObserved(const std::string& ns, bool found, const std::vector<v1::Label>& labels) {
  Event e;
  auto* n = e.mutable_namespace_labels_observed();
  n->set_namespace_(ns);
  n->set_found(found);
  for (const v1::Label& l : labels) *n->add_labels() = l;
  return e;
}
inline Event Written(const std::string& ns, const v1::SecretRef& secret, const std::string& hash,
              const std::vector<v1::OwnerReference>& owners, v1::MirrorWriteKind kind,
              const std::vector<std::string>& changed = {}) {
  Event e;
  auto* w = e.mutable_mirror_written();
  w->set_namespace_(ns);
  *w->mutable_secret() = secret;
  w->set_source_fingerprint(hash);
  for (const v1::OwnerReference& o : owners) *w->add_owners() = o;
  w->set_kind(kind);
  for (const std::string& c : changed) w->add_changed(c);
  return e;
}
inline Event MirrorDeleted(const std::string& ns, const v1::SecretRef& secret,
                    v1::MirrorDeletionReason reason) {
  Event e;
  e.mutable_mirror_deleted()->set_namespace_(ns);
  *e.mutable_mirror_deleted()->mutable_secret() = secret;
  e.mutable_mirror_deleted()->set_reason(reason);
  return e;
}
inline Event DeletedExternally(const std::string& ns, const v1::SecretRef& secret) {
  Event e;
  e.mutable_mirror_deleted_externally()->set_namespace_(ns);
  *e.mutable_mirror_deleted_externally()->mutable_secret() = secret;
  return e;
}
inline Event Failed(const std::string& ns, v1::MirrorFailureKind kind, const std::string& message) {
  Event e;
  e.mutable_mirror_failed()->set_namespace_(ns);
  e.mutable_mirror_failed()->set_kind(kind);
  e.mutable_mirror_failed()->set_message(message);
  return e;
}

// --- Outcomes ---

inline kubebridge::RecordSourceObserved SourceOutcome(const std::string& hash,
                                               std::vector<std::string> keys = {"AWS_KEY"},
                                               const std::string& resource_version = "41") {
  return {true, hash, std::move(keys), resource_version};
}
inline kubebridge::RecordMirrorWritten WrittenOutcome(const std::string& ns, const std::string& hash,
                                               std::vector<v1::OwnerReference> owners,
                                               v1::MirrorWriteKind kind) {
  return {ns, Mirror("m-1"), hash, std::move(owners), kind, {}};
}

using ::credledger::testing::EqualsEvent;

class IdentityDeciderTest : public ::testing::Test {
 protected:
  // Given: folds `events` as the stream's history, each recorded at now_.
  void Given(const std::vector<Event>& events) {
    for (const Event& e : events) {
      ++seq_;
      projections::EvolveIdentity(state_, e, {seq_, seq_ - 1, now_});
    }
  }

  // Given: the identity created allowing team-a, team-b and team-c.
  void GivenCreated() { Given({Created(ListSpec({"team-a", "team-b", "team-c"}))}); }

  // When: decides `command` against the folded state at now_.
  absl::StatusOr<std::vector<Event>> When(const IdentityCommand& command) {
    return DecideIdentity(command, state_, {kIdentity, now_, "alice", "req-1"});
  }
  absl::StatusOr<std::vector<Event>> WhenOutcomes(std::vector<kubebridge::MirrorOutcome> o) {
    return When(ApplyMirrorOutcomes{std::move(o)});
  }

  // Then: the decision emitted exactly `expected`; the emitted events are folded.
  void Then(const absl::StatusOr<std::vector<Event>>& decided,
            const std::vector<Event>& expected) {
    ASSERT_OK(decided);
    ASSERT_EQ(decided->size(), expected.size()) << Dump(*decided);
    for (size_t i = 0; i < expected.size(); ++i) {
      EXPECT_THAT((*decided)[i], EqualsEvent(expected[i])) << "event " << i;
    }
    Given(*decided);
  }

  static std::string Dump(const std::vector<Event>& events) {
    std::string out = "emitted:";
    for (const Event& e : events) absl::StrAppend(&out, "\n  ", e.ShortDebugString());
    return out;
  }

  absl::Time now_ = kT0;
  int64_t seq_ = 0;
  v1::IdentityState state_;
};

// An error of the decider, naming the identity and containing `text`.
inline auto Refused(absl::StatusCode code, const std::string& text) {
  return StatusIs(code, AllOf(HasSubstr("identity \"aws\""), HasSubstr(text)));
}

}  // namespace identity_decider_test
}  // namespace credledger::service
