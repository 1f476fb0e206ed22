// Builders of identity stream events and a fixture that folds them one second apart, for
// tests of EvolveIdentity (docs/mirrors.md, "Bindings" and "Conditions").
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "credledger/v1/events.pb.h"
#include "credledger/v1/state.pb.h"
#include "gtest/gtest.h"
#include "projections/identity_state.h"

namespace credledger::projections {
namespace identity_state_test {

using v1::Event;

inline const absl::Time kT0 = absl::FromUnixSeconds(1767225600);
inline constexpr char kApi[] = "infrastructure.cluster.x-k8s.io/v1beta1";
// Source hashes as the bridge records them (64 lowercase hex characters).
// Source fingerprints (the fold treats them as opaque values of that shape) and the plain
// hash a version 1 event carries.
inline constexpr char kHash1[] =
    "hmac-sha256:0123456789abcdef:3f2a9c01d4e5b6a7c8d9e0f1a2b3c4d5e6f708192a3b4c5d6e7f8091a2b3c4d5";
inline constexpr char kHash2[] =
    "hmac-sha256:0123456789abcdef:9a8b7c6d5e4f30211203f4e5d6c7b8a99a8b7c6d5e4f30211203f4e5d6c7b8a9";
inline constexpr char kPlainHash1[] = "3f2a9c01d4e5b6a7c8d9e0f1a2b3c4d5e6f708192a3b4c5d6e7f8091a2b3c4d5";

inline v1::OwnerReference Owner(std::string kind, std::string name, std::string uid,
                         std::string api_version = kApi) {
  v1::OwnerReference o;
  o.set_api_version(std::move(api_version));
  o.set_kind(std::move(kind));
  o.set_name(std::move(name));
  o.set_uid(std::move(uid));
  return o;
}

inline v1::IdentitySpec Spec(std::vector<std::string> list, std::string secret = "aws-creds") {
  v1::IdentitySpec spec;
  spec.mutable_secret_ref()->set_namespace_("capi-system");
  spec.mutable_secret_ref()->set_name(std::move(secret));
  for (std::string& ns : list) spec.mutable_allowed_namespaces()->add_list(std::move(ns));
  return spec;
}

inline v1::IdentitySpec ProdSelectorSpec() {
  v1::IdentitySpec spec = Spec({});
  v1::Label* l = spec.mutable_allowed_namespaces()->mutable_selector()->add_match_labels();
  l->set_key("env");
  l->set_value("prod");
  return spec;
}

inline v1::AccessReview Review(std::string user) {
  v1::AccessReview r;
  r.set_user(std::move(user));
  r.add_groups("platform");
  r.mutable_secret()->set_namespace_("capi-system");
  r.mutable_secret()->set_name("aws-creds");
  r.set_allowed(true);
  return r;
}

inline Event Created(v1::IdentitySpec spec, std::string name = "aws") {
  Event e;
  e.mutable_identity_created()->set_name(std::move(name));
  *e.mutable_identity_created()->mutable_spec() = std::move(spec);
  *e.mutable_identity_created()->mutable_access_review() = Review("alice");
  return e;
}

inline Event Updated(v1::IdentitySpec spec, std::optional<v1::AccessReview> review = std::nullopt) {
  Event e;
  *e.mutable_identity_updated()->mutable_spec() = std::move(spec);
  if (review.has_value()) *e.mutable_identity_updated()->mutable_access_review() = *review;
  return e;
}

inline Event Deleted() {
  Event e;
  e.mutable_identity_deleted();
  return e;
}

inline Event Bound(std::string ns, v1::OwnerReference owner, std::string replaced_uid = "") {
  Event e;
  e.mutable_identity_bound()->set_namespace_(std::move(ns));
  *e.mutable_identity_bound()->mutable_owner() = std::move(owner);
  e.mutable_identity_bound()->set_replaced_uid(std::move(replaced_uid));
  return e;
}

inline Event Unbound(std::string ns, v1::OwnerReference owner) {
  Event e;
  e.mutable_identity_unbound()->set_namespace_(std::move(ns));
  *e.mutable_identity_unbound()->mutable_owner() = std::move(owner);
  return e;
}

inline Event Source(std::string hash, std::vector<std::string> keys = {"AWS_ACCESS_KEY_ID"}) {
  Event e;
  v1::SourceSecretObserved* s = e.mutable_source_secret_observed();
  s->set_found(!hash.empty());
  s->set_source_fingerprint(std::move(hash));
  for (std::string& k : keys) s->add_keys(std::move(k));
  s->set_resource_version("4711");
  return e;
}

inline Event Labels(std::string ns, std::vector<std::pair<std::string, std::string>> labels,
             bool found = true) {
  Event e;
  v1::NamespaceLabelsObserved* o = e.mutable_namespace_labels_observed();
  o->set_namespace_(std::move(ns));
  o->set_found(found);
  for (auto& [k, v] : labels) {
    v1::Label* l = o->add_labels();
    l->set_key(k);
    l->set_value(v);
  }
  return e;
}

inline Event Written(std::string ns, std::string hash, std::vector<v1::OwnerReference> owners = {}) {
  Event e;
  v1::MirrorWritten* w = e.mutable_mirror_written();
  w->set_namespace_(std::move(ns));
  w->mutable_secret()->set_name("captf-creds-aws");
  w->mutable_secret()->set_uid(absl::StrCat("mirror-uid-", w->namespace_()));
  w->set_source_fingerprint(std::move(hash));
  for (v1::OwnerReference& o : owners) *w->add_owners() = std::move(o);
  w->set_kind(v1::MIRROR_WRITE_KIND_CREATED);
  return e;
}

inline Event MirrorDeleted(std::string ns, v1::MirrorDeletionReason reason) {
  Event e;
  e.mutable_mirror_deleted()->set_namespace_(std::move(ns));
  e.mutable_mirror_deleted()->mutable_secret()->set_name("captf-creds-aws");
  e.mutable_mirror_deleted()->set_reason(reason);
  return e;
}

inline Event DeletedExternally(std::string ns) {
  Event e;
  e.mutable_mirror_deleted_externally()->set_namespace_(std::move(ns));
  e.mutable_mirror_deleted_externally()->mutable_secret()->set_name("captf-creds-aws");
  return e;
}

inline Event Failed(std::string ns, v1::MirrorFailureKind kind, std::string message) {
  Event e;
  e.mutable_mirror_failed()->set_namespace_(std::move(ns));
  e.mutable_mirror_failed()->set_kind(kind);
  e.mutable_mirror_failed()->set_message(std::move(message));
  return e;
}

// Folds events one second apart, as if each were the next event of the log.
class IdentityStateTest : public ::testing::Test {
 protected:
  void Apply(const Event& e) {
    ++seq_;
    ++version_;
    now_ += absl::Seconds(1);
    EvolveIdentity(state_, e, {seq_ * 10, version_, now_});
  }
  const v1::IdentityNamespaceState& Ns(absl::string_view ns) {
    const v1::IdentityNamespaceState* found = FindIdentityNamespace(state_, ns);
    EXPECT_NE(found, nullptr) << ns;
    static const v1::IdentityNamespaceState kNone;
    return found != nullptr ? *found : kNone;
  }
  // "<status>/<reason>" of a condition.
  static std::string Of(const v1::Condition& c) {
    return absl::StrCat(c.status(), "/", c.reason());
  }

  std::vector<std::string> Namespaces() const {
    std::vector<std::string> out;
    for (const auto& ns : state_.namespaces()) out.push_back(ns.namespace_());
    return out;
  }

  v1::IdentityState state_;
  int64_t seq_ = 0;
  int64_t version_ = -1;
  absl::Time now_ = kT0;
};

}  // namespace identity_state_test
}  // namespace credledger::projections
