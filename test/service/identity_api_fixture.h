// IdentityApi on a real SqliteEventStore in a temp dir, with an IdentityProjector and a
// ClusterProjector following it (clusters are registered through a ClusterCommandBus) and a
// fake SecretAccessReviewer that records every review and answers as told; shared by the API
// tests and the CLI tests (which serve the same api over gRPC on 127.0.0.1:0).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "common/clock.h"
#include "credledger/v1/api.pb.h"
#include "gtest/gtest.h"
#include "projections/cluster_projector.h"
#include "projections/identity_projector.h"
#include "service/api/authorization_policy.h"
#include "service/api/identity_api.h"
#include "service/bus/cluster_command_bus.h"
#include "service/bus/identity_command_bus.h"
#include "service/grpc/auth/call_authorizer.h"
#include "store/sqlite_event_store.h"
#include "test/support/status_matchers.h"
#include "test/support/temp_dir.h"

namespace credledger::service {

// Records the reviews it is asked for; answers `allowed`.
class FakeReviewer final : public SecretAccessReviewer {
 public:
  absl::StatusOr<bool> Review(const v1::AccessReview& review) override {
    absl::MutexLock lock(&mu_);
    reviews_.push_back(review);
    return allowed_;
  }
  void set_allowed(bool allowed) {
    absl::MutexLock lock(&mu_);
    allowed_ = allowed;
  }
  std::vector<v1::AccessReview> reviews() const {
    absl::MutexLock lock(&mu_);
    return reviews_;
  }

 private:
  mutable absl::Mutex mu_;
  bool allowed_ ABSL_GUARDED_BY(mu_) = true;
  std::vector<v1::AccessReview> reviews_ ABSL_GUARDED_BY(mu_);
};

// A policy that maps caller "alice" to Kubernetes user "alice@example.com" in two groups and
// lets every caller call every IdentityService RPC.
inline constexpr char kAlicePolicy[] = R"(identities:
  - name: alice
    rpcs: ["IdentityService/*"]
    allow_declared: true
    kubernetes:
      user: alice@example.com
      groups: [platform-admins, oncall]
  - name: "*"
    rpcs: ["IdentityService/*"]
)";

// Owner uids: Kubernetes object uids, lowercase RFC 4122 UUIDs.
inline constexpr char kOwnerUid1[] = "3b241101-e2bb-4255-8caf-4136c566a961";
inline constexpr char kOwnerUid2[] = "3b241101-e2bb-4255-8caf-4136c566a962";
inline constexpr char kOwnerUid3[] = "3b241101-e2bb-4255-8caf-4136c566a963";

class IdentityApiFixture : public ::testing::Test {
 protected:
  void SetUp() override {
    store::SqliteEventStoreOptions options;
    options.path = dir_.path() / "events.db";
    options.clock = &clock_;
    ASSERT_OK_AND_ASSIGN(store_, store::SqliteEventStore::Open(options));
    bus_ = std::make_unique<IdentityCommandBus>(store_.get());
    ASSERT_OK_AND_ASSIGN(projector_, projections::IdentityProjector::Start(store_.get(), {}));
    cluster_bus_ = std::make_unique<ClusterCommandBus>(store_.get());
    ASSERT_OK_AND_ASSIGN(clusters_, projections::ClusterProjector::Start(store_.get(), {}));
    ASSERT_OK_AND_ASSIGN(policy_, AuthorizationPolicy::Parse(kAlicePolicy));
    api_ = MakeApi(&reviewer_);
  }

  // An api with `reviewer` that sees the fixture's clusters (none when `with_clusters` is
  // false).
  std::unique_ptr<IdentityApi> MakeApi(SecretAccessReviewer* reviewer, bool with_clusters = true) {
    return std::make_unique<IdentityApi>(bus_.get(), projector_.get(), &policy_, reviewer, &clock_,
                                         IdentityApi::Options{},
                                         with_clusters ? clusters_.get() : nullptr);
  }

  // Runs `command` for cluster `name` and waits until the cluster projector has folded it.
  void RunClusterCommand(const std::string& name, const ClusterCommand& command) {
    ASSERT_OK_AND_ASSIGN(
        ClusterCommandResult result,
        cluster_bus_->Execute(command, {name, clock_.Now(), "alice",
                                        "cluster-" + std::to_string(++cluster_requests_)}));
    ASSERT_TRUE(clusters_->WaitForSeq(result.state.seq(), absl::Seconds(10)));
  }

  // A spec for Secret creds/<secret> allowing the namespaces `list`.
  static v1::IdentitySpec Spec(const std::string& secret, std::vector<std::string> list) {
    v1::IdentitySpec spec;
    spec.mutable_secret_ref()->set_namespace_("creds");
    spec.mutable_secret_ref()->set_name(secret);
    for (const std::string& ns : list) spec.mutable_allowed_namespaces()->add_list(ns);
    return spec;
  }

  static v1::CreateIdentityRequest Create(const std::string& name, const v1::IdentitySpec& spec,
                                          const std::string& request_id) {
    v1::CreateIdentityRequest request;
    request.set_request_id(request_id);
    request.set_name(name);
    *request.mutable_spec() = spec;
    return request;
  }

  static v1::UpdateIdentityRequest Update(const std::string& name, const v1::IdentitySpec& spec,
                                          const std::string& request_id) {
    v1::UpdateIdentityRequest request;
    request.set_request_id(request_id);
    request.set_name(name);
    *request.mutable_spec() = spec;
    return request;
  }

  static v1::OwnerReference Owner(const std::string& name, const std::string& uid) {
    v1::OwnerReference owner;
    owner.set_api_version("infrastructure.cluster.x-k8s.io/v1beta1");
    owner.set_kind("TerraformCluster");
    owner.set_name(name);
    owner.set_uid(uid);
    return owner;
  }

  static v1::BindIdentityRequest Bind(const std::string& identity, const std::string& ns,
                                      const v1::OwnerReference& owner,
                                      const std::string& request_id) {
    v1::BindIdentityRequest request;
    request.set_request_id(request_id);
    request.set_identity(identity);
    request.set_namespace_(ns);
    *request.mutable_owner() = owner;
    return request;
  }

  // Creates identity `name` for Secret creds/<name> allowing `list`, as alice.
  void CreateAs(const std::string& name, std::vector<std::string> list) {
    ASSERT_OK(api_->CreateIdentity(Create(name, Spec(name, list), "create-" + name), "alice"));
  }

  testing::TempDir dir_;
  common::FakeClock clock_;
  std::unique_ptr<store::SqliteEventStore> store_;
  std::unique_ptr<IdentityCommandBus> bus_;
  std::unique_ptr<projections::IdentityProjector> projector_;
  std::unique_ptr<ClusterCommandBus> cluster_bus_;
  std::unique_ptr<projections::ClusterProjector> clusters_;
  int cluster_requests_ = 0;
  AuthorizationPolicy policy_ = AuthorizationPolicy::AllowAll();
  CallAuthorizer authorizer_{&policy_};
  FakeReviewer reviewer_;
  std::unique_ptr<IdentityApi> api_;
};

}  // namespace credledger::service
