// MirrorReconcilerFixture: the test API server (namespaces ops, team-a, team-b, team-c), a
// source Secret ops/cloud-src and identity "cloud" (allowed in team-a and team-b) held in a
// FakeIdentityLog, for tests of MirrorReconciler (docs/mirrors.md, "How a change
// propagates"). Bound objects are TerraformClusters created on the cluster they are bound in.
#pragma once

#include <algorithm>
#include <string>
#include <vector>

#include "absl/strings/escaping.h"
#include "common/fingerprint_key.h"
#include "kubebridge/client/json_util.h"
#include "kubebridge/credentials/agent_objects.h"
#include "kubebridge/mirrors/mirror_objects.h"
#include "kubebridge/mirrors/mirror_reconciler.h"
#include "projections/identity_state.h"
#include "test/kubebridge/api_server_fixture.h"
#include "test/kubebridge/mirrors/fake_identity_log.h"
#include "test/kubebridge/mirrors/mirror_test_objects.h"

namespace credledger::kubebridge {

inline constexpr char kUser[] = "svc-admin-7Qx";
inline constexpr char kPassword[] = "pa55-Wq9-zzT";
inline constexpr char kRotatedPassword[] = "r0tated-Lk2-Vv";

class MirrorReconcilerFixture : public ApiServerFixture {
 protected:
  void SetUp() override {
    kubeapi::ApiServerOptions options = ServerOptions();
    options.namespaces = {"ops", "team-a", "team-b", "team-c"};
    StartServer(std::move(options));
    ASSERT_OK(client_->Create(SecretResource("ops"), SourceSecret(kPassword)));
    v1::Event created;
    created.mutable_identity_created()->set_name("cloud");
    *created.mutable_identity_created()->mutable_spec() = Spec({"team-a", "team-b"});
    log_.Append(created);
  }

  static nlohmann::json SourceSecret(const std::string& password) {
    return {{"apiVersion", "v1"},
            {"kind", "Secret"},
            {"metadata", {{"name", "cloud-src"}, {"namespace", "ops"}}},
            {"data",
             {{"user", absl::Base64Escape(kUser)}, {"password", absl::Base64Escape(password)}}}};
  }
  static v1::IdentitySpec Spec(const std::vector<std::string>& list) {
    v1::IdentitySpec spec;
    spec.mutable_secret_ref()->set_namespace_("ops");
    spec.mutable_secret_ref()->set_name("cloud-src");
    for (const std::string& ns : list) spec.mutable_allowed_namespaces()->add_list(ns);
    return spec;
  }
  void SetSpec(const v1::IdentitySpec& spec) {
    v1::Event e;
    *e.mutable_identity_updated()->mutable_spec() = spec;
    log_.Append(e);
  }
  // Binds `owner` in `ns`, replacing a binding of the same object's older uid; nothing is
  // created in the cluster.
  void BindOwner(const std::string& ns, const v1::OwnerReference& owner) {
    v1::Event e;
    v1::IdentityBound* bound = e.mutable_identity_bound();
    bound->set_namespace_(ns);
    *bound->mutable_owner() = owner;
    v1::IdentityState state = log_.state();
    if (const v1::IdentityNamespaceState* entry = projections::FindIdentityNamespace(state, ns)) {
      for (const v1::IdentityBinding& b : entry->bindings()) {
        if (b.owner().name() == owner.name() && b.owner().uid() != owner.uid()) {
          bound->set_replaced_uid(b.owner().uid());
        }
      }
    }
    log_.Append(e);
  }
  // Binds the TerraformCluster `name` in `ns` of the cluster `on` (default: the fixture's),
  // created there first when it does not exist; returns it as bound.
  v1::OwnerReference Bind(const std::string& ns, const std::string& name,
                          KubeClient* on = nullptr) {
    KubeClient& cluster = on != nullptr ? *on : *client_;
    absl::StatusOr<nlohmann::json> live = cluster.Get(TerraformClusters(ns, name));
    absl::StatusOr<v1::OwnerReference> owner =
        live.ok() ? Owner(name, StringAt(*live, {"metadata", "uid"}))
                  : CreateOwner(cluster, ns, name);
    EXPECT_TRUE(owner.ok()) << owner.status();
    if (!owner.ok()) return v1::OwnerReference();
    BindOwner(ns, *owner);
    return *owner;
  }
  void Unbind(const std::string& ns, const v1::OwnerReference& owner) {
    v1::Event e;
    e.mutable_identity_unbound()->set_namespace_(ns);
    *e.mutable_identity_unbound()->mutable_owner() = owner;
    log_.Append(e);
  }

  absl::StatusOr<MirrorReconcileResult> Pass(NamespaceLookup* lookup = nullptr) {
    MirrorReconciler reconciler(*client_, log_, lookup, key_);
    return reconciler.Reconcile(log_.state(), nullptr);
  }
  absl::StatusOr<nlohmann::json> Mirror(const std::string& ns) {
    return client_->Get(SecretResource(ns, "captf-creds-cloud"));
  }
  // The source's digest as it is now, under `key` (default: the fixture's).
  SourceDigest Digest(const common::FingerprintKey* key = nullptr) {
    absl::StatusOr<nlohmann::json> source = client_->Get(SecretResource("ops", "cloud-src"));
    EXPECT_TRUE(source.ok()) << source.status();
    if (!source.ok()) return {};
    absl::StatusOr<SourceDigest> digest = SourceSecretDigest(*source, key == nullptr ? key_ : *key);
    EXPECT_TRUE(digest.ok()) << digest.status();
    return digest.ok() ? *digest : SourceDigest{};
  }
  // The plain hash of the source's data: the mirrors' captf.io/source-hash annotation.
  std::string SourceHash() { return Digest().hash; }
  // The source fingerprint the log records.
  std::string SourceFingerprint() { return Digest().fingerprint; }
  void RotateSource() {
    ASSERT_OK_AND_ASSIGN(nlohmann::json source, client_->Get(SecretResource("ops", "cloud-src")));
    source["data"]["password"] = absl::Base64Escape(kRotatedPassword);
    ASSERT_OK(client_->Update(SecretResource("ops"), source));
  }
  // The events appended since the first `from`.
  std::vector<v1::Event> EventsSince(size_t from) {
    std::vector<v1::Event> all = log_.events();
    return {all.begin() + static_cast<std::ptrdiff_t>(std::min(from, all.size())), all.end()};
  }
  // Creates the identity's two standard mirrors: c1_ in team-a, c2_ in team-b.
  void CreateTwoMirrors() {
    c1_ = Bind("team-a", "c1");
    c2_ = Bind("team-b", "c2");
    ASSERT_OK_AND_ASSIGN(MirrorReconcileResult result, Pass());
    ASSERT_EQ(result.created, 2);
  }

  v1::OwnerReference c1_;
  v1::OwnerReference c2_;
  FakeIdentityLog log_;
  const common::FingerprintKey key_ = *common::FingerprintKey::Generate();
};

}  // namespace credledger::kubebridge
