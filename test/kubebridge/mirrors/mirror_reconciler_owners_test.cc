// MirrorReconciler and the objects bound to an identity, against the test API server
// (docs/mirrors.md, "Bindings", "How a change propagates" and "Kubernetes permissions"): an
// owner reference is only ever written to an object that exists with the bound uid; a gone
// object is recorded once; a namespace whose bound objects are all gone loses its mirror; a
// held-back namespace writes nothing; a mirror the log records by uid stays the identity's.
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/escaping.h"
#include "gmock/gmock.h"
#include "kubebridge/client/json_util.h"
#include "kubebridge/credentials/agent_objects.h"
#include "kubebridge/mirrors/mirror_reconciler.h"
#include "projections/identity_state.h"
#include "test/kubebridge/mirrors/mirror_reconciler_fixture.h"
#include "test/kubebridge/mirrors/mirror_test_objects.h"

namespace credledger::kubebridge {
namespace mirror_reconciler_owners_test {

using ::credledger::testing::StatusIs;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

// A RecreationPacer that holds back a fixed set and remembers what it was told.
class FixedPacer final : public RecreationPacer {
 public:
  std::set<std::string> HeldBack(const std::string&,
                                 const std::vector<std::string>& deleted_externally) override {
    told.insert(told.end(), deleted_externally.begin(), deleted_externally.end());
    return held;
  }
  std::set<std::string> held;
  std::vector<std::string> told;
};

class MirrorOwnersTest : public MirrorReconcilerFixture {
 protected:
  // The BoundObjectGone events of the log.
  std::vector<v1::BoundObjectGone> GoneEvents() {
    std::vector<v1::BoundObjectGone> out;
    for (const v1::Event& e : log_.events()) {
      if (e.has_bound_object_gone()) out.push_back(e.bound_object_gone());
    }
    return out;
  }
  const v1::IdentityNamespaceState* Entry(const std::string& ns) {
    state_ = log_.state();
    return projections::FindIdentityNamespace(state_, ns);
  }

  v1::IdentityState state_;
};

TEST_F(MirrorOwnersTest, AnOwnerDeletedWhileBoundIsRecordedOnceAndLosesItsReference) {
  CreateTwoMirrors();
  const v1::OwnerReference c3 = Bind("team-a", "c3");
  ASSERT_OK_AND_ASSIGN(MirrorReconcileResult both, Pass());
  ASSERT_EQ(both.updated, 1);
  ASSERT_OK(client_->Delete(TerraformClusters("team-a", "c3")));
  RotateSource();

  ASSERT_OK_AND_ASSIGN(nlohmann::json before, Mirror("team-a"));
  ASSERT_OK_AND_ASSIGN(MirrorReconcileResult found, Pass());
  EXPECT_EQ(found.bound_objects_gone, 1);
  EXPECT_EQ(found.updated, 1);  // team-b; team-a waits for the next pass
  ASSERT_OK_AND_ASSIGN(nlohmann::json unwritten, Mirror("team-a"));
  EXPECT_EQ(unwritten["metadata"]["resourceVersion"], before["metadata"]["resourceVersion"]);
  ASSERT_EQ(GoneEvents().size(), 1u);
  EXPECT_EQ(GoneEvents()[0].namespace_(), "team-a");
  EXPECT_EQ(GoneEvents()[0].owner().uid(), c3.uid());
  EXPECT_EQ(GoneEvents()[0].absence(), v1::BOUND_OBJECT_ABSENCE_NOT_FOUND);

  ASSERT_OK_AND_ASSIGN(MirrorReconcileResult next, Pass());
  EXPECT_EQ(next.updated, 1);
  ASSERT_OK_AND_ASSIGN(nlohmann::json after, Mirror("team-a"));
  EXPECT_EQ(after["metadata"]["ownerReferences"], nlohmann::json::array({OwnerJson(c1_)}));
  EXPECT_EQ(after["data"]["password"], absl::Base64Escape(kRotatedPassword));
  EXPECT_EQ(Entry("team-a")->credentials_mirrored().reason(), projections::kReasonMirrored);

  const size_t events = log_.events().size();
  ASSERT_OK_AND_ASSIGN(MirrorReconcileResult steady, Pass());
  EXPECT_EQ(steady.updated + steady.bound_objects_gone, 0);
  EXPECT_EQ(log_.events().size(), events);
}

TEST_F(MirrorOwnersTest, BindingTheUidOfAnObjectThatIsGoneWritesNoMirror) {
  ASSERT_OK_AND_ASSIGN(const v1::OwnerReference c1, CreateOwner(*client_, "team-a", "c1"));
  ASSERT_OK(client_->Delete(TerraformClusters("team-a", "c1")));
  BindOwner("team-a", c1);
  BindOwner("team-b", Owner("c2", "5a0f3c1e-8b2d-4e6f-9a7b-1c2d3e4f5a61"));  // never existed
  v1::OwnerReference job;
  job.set_api_version("batch/v2");  // a version the server does not serve
  job.set_kind("Job");
  job.set_name("plan");
  job.set_uid("6f0c2a8e-5d1b-4c3a-9e7f-0a1b2c3d4e5f");
  BindOwner("team-b", job);

  ASSERT_OK_AND_ASSIGN(MirrorReconcileResult result, Pass());
  EXPECT_EQ(result.created, 0);
  EXPECT_EQ(result.bound_objects_gone, 3);
  EXPECT_THAT(Mirror("team-a"), StatusIs(absl::StatusCode::kNotFound));
  EXPECT_THAT(Mirror("team-b"), StatusIs(absl::StatusCode::kNotFound));
  std::vector<v1::BoundObjectAbsence> absences;
  for (const v1::BoundObjectGone& g : GoneEvents()) absences.push_back(g.absence());
  EXPECT_THAT(absences, ElementsAre(v1::BOUND_OBJECT_ABSENCE_NOT_FOUND,
                                    v1::BOUND_OBJECT_ABSENCE_KIND_NOT_SERVED,
                                    v1::BOUND_OBJECT_ABSENCE_NOT_FOUND));
  const v1::Condition& mirrored = Entry("team-a")->credentials_mirrored();
  EXPECT_EQ(mirrored.status(), "False");
  EXPECT_EQ(mirrored.reason(), projections::kReasonBoundObjectGone);
  EXPECT_THAT(mirrored.message(), HasSubstr("namespace team-a"));
  EXPECT_THAT(mirrored.message(), HasSubstr("TerraformCluster c1"));
  EXPECT_THAT(mirrored.message(), HasSubstr(c1.uid()));

  // Nothing is wanted there any more: the next pass writes and records nothing.
  const size_t events = log_.events().size();
  const int64_t version = server_->resource_version();
  ASSERT_OK_AND_ASSIGN(MirrorReconcileResult again, Pass());
  EXPECT_EQ(again.created + again.bound_objects_gone + again.failed, 0);
  EXPECT_EQ(log_.events().size(), events);
  EXPECT_EQ(server_->resource_version(), version);
}

TEST_F(MirrorOwnersTest, AMirrorWhoseBoundObjectsAreAllGoneIsDeletedAndNotRecreated) {
  CreateTwoMirrors();
  ASSERT_OK(client_->Delete(TerraformClusters("team-a", "c1")));
  RotateSource();  // a write is due: the owners are checked
  ASSERT_OK(Pass());
  ASSERT_EQ(GoneEvents().size(), 1u);
  ASSERT_OK_AND_ASSIGN(MirrorReconcileResult result, Pass());
  EXPECT_EQ(result.deleted, 1);
  EXPECT_THAT(Mirror("team-a"), StatusIs(absl::StatusCode::kNotFound));
  const v1::Event deleted = log_.events().back();
  EXPECT_EQ(deleted.mirror_deleted().namespace_(), "team-a") << deleted.DebugString();
  EXPECT_EQ(deleted.mirror_deleted().reason(), v1::MIRROR_DELETION_REASON_BOUND_OBJECTS_GONE);
  EXPECT_EQ(Entry("team-a")->credentials_mirrored().reason(), projections::kReasonBoundObjectGone);

  const size_t events = log_.events().size();
  ASSERT_OK_AND_ASSIGN(MirrorReconcileResult after, Pass());
  EXPECT_EQ(after.created + after.deleted, 0);
  EXPECT_EQ(log_.events().size(), events);
  EXPECT_THAT(Mirror("team-a"), StatusIs(absl::StatusCode::kNotFound));

  // Binding the object's successor brings the mirror back.
  const v1::OwnerReference successor = Bind("team-a", "c1");
  ASSERT_OK_AND_ASSIGN(MirrorReconcileResult back, Pass());
  EXPECT_EQ(back.created, 1);
  ASSERT_OK_AND_ASSIGN(nlohmann::json mirror, Mirror("team-a"));
  EXPECT_EQ(mirror["metadata"]["ownerReferences"], nlohmann::json::array({OwnerJson(successor)}));
}

TEST_F(MirrorOwnersTest, SteadyStateReadsNoOwner) {
  CreateTwoMirrors();
  kubeapi::Fault owners;
  owners.path_prefix = "/apis/infrastructure.cluster.x-k8s.io";
  owners.status_code = 500;
  server_->faults().Add(owners);
  ASSERT_OK_AND_ASSIGN(MirrorReconcileResult result, Pass());
  EXPECT_EQ(result.updated + result.created + result.failed, 0);
  EXPECT_EQ(server_->faults().fired(), 0);
}

TEST_F(MirrorOwnersTest, AnOwnerTheBridgeMayNotReadFailsTheWriteNamingTheMissingRight) {
  // The mirrors' cluster is reached as a ServiceAccount that may handle Secrets but not read
  // TerraformClusters.
  const std::string rbac = "rbac.authorization.k8s.io";
  ASSERT_OK(client_->Create({rbac, "v1", "clusterroles", "", ""},
                            {{"apiVersion", "rbac.authorization.k8s.io/v1"},
                             {"kind", "ClusterRole"},
                             {"metadata", {{"name", "mirrors"}}},
                             {"rules",
                              {{{"apiGroups", {""}},
                                {"resources", {"secrets"}},
                                {"verbs", {"get", "list", "create", "update", "delete"}}}}}}));
  ASSERT_OK(client_->Create(
      {rbac, "v1", "clusterrolebindings", "", ""},
      {{"apiVersion", "rbac.authorization.k8s.io/v1"},
       {"kind", "ClusterRoleBinding"},
       {"metadata", {{"name", "mirrors"}}},
       {"roleRef", {{"apiGroup", rbac}, {"kind", "ClusterRole"}, {"name", "mirrors"}}},
       {"subjects", {{{"kind", "ServiceAccount"}, {"name", "bridge"}, {"namespace", "ops"}}}}}));
  std::unique_ptr<KubeClient> bridge = ServiceAccountClient("ops", "bridge");
  ASSERT_NE(bridge, nullptr);
  const v1::OwnerReference c1 = Bind("team-a", "c1");

  MirrorReconciler reconciler(*client_, log_, nullptr, key_);
  absl::StatusOr<MirrorReconcileResult> result =
      reconciler.Reconcile(log_.state(), nullptr, bridge.get());
  EXPECT_THAT(result, StatusIs(absl::StatusCode::kPermissionDenied));
  EXPECT_THAT(Mirror("team-a"), StatusIs(absl::StatusCode::kNotFound));
  EXPECT_TRUE(GoneEvents().empty());
  const v1::MirrorFailure& failure = Entry("team-a")->failure();
  EXPECT_EQ(failure.kind(), v1::MIRROR_FAILURE_KIND_WRITE_FAILED);
  EXPECT_THAT(failure.message(), HasSubstr("TerraformCluster \"c1\""));
  EXPECT_THAT(failure.message(), HasSubstr(c1.uid()));
  EXPECT_THAT(failure.message(),
              HasSubstr("needs `get` on terraformclusters.infrastructure.cluster.x-k8s.io"));
  bridge->Stop();
}

TEST_F(MirrorOwnersTest, AHeldBackNamespaceRecordsItsMirrorGoneAndWritesNothing) {
  CreateTwoMirrors();
  ASSERT_OK(client_->Delete(SecretResource("team-a", "captf-creds-cloud")));
  FixedPacer pacer;
  pacer.held = {"team-a"};
  MirrorReconciler reconciler(*client_, log_, nullptr, key_, &pacer);
  const int64_t version = server_->resource_version();
  ASSERT_OK_AND_ASSIGN(MirrorReconcileResult held, reconciler.Reconcile(log_.state(), nullptr));
  EXPECT_THAT(pacer.told, ElementsAre("team-a"));
  EXPECT_EQ(held.deleted_externally, 1);
  EXPECT_EQ(held.held_back, 1);
  EXPECT_EQ(held.created, 0);
  EXPECT_EQ(server_->resource_version(), version);
  EXPECT_TRUE(log_.events().back().has_mirror_deleted_externally());

  pacer.held.clear();
  ASSERT_OK_AND_ASSIGN(MirrorReconcileResult released, reconciler.Reconcile(log_.state(), nullptr));
  EXPECT_THAT(pacer.told, ElementsAre("team-a"));  // recorded gone once
  EXPECT_EQ(released.created, 1);
  EXPECT_OK(Mirror("team-a"));
}

// Regression: removing the captf.io/managed label from a mirror made credledger record it as
// deleted externally and report a conflict; the copy then kept the old credential and stayed
// when its namespace was disallowed, unrecorded.
TEST_F(MirrorOwnersTest, AMirrorWhoseLabelWasRemovedIsRewrittenAndDeletedAsOurs) {
  CreateTwoMirrors();
  ASSERT_OK_AND_ASSIGN(nlohmann::json live, Mirror("team-a"));
  live["metadata"]["labels"].erase(kManagedLabel);
  ASSERT_OK(client_->Update(SecretResource("team-a"), live));
  RotateSource();
  ASSERT_OK_AND_ASSIGN(MirrorReconcileResult rotated, Pass());
  EXPECT_EQ(rotated.updated, 2);
  EXPECT_EQ(rotated.failed + rotated.deleted_externally, 0);
  ASSERT_OK_AND_ASSIGN(nlohmann::json rewritten, Mirror("team-a"));
  EXPECT_TRUE(IsMirrorOf(rewritten, "cloud"));
  EXPECT_EQ(rewritten["metadata"]["uid"], live["metadata"]["uid"]);
  EXPECT_EQ(rewritten["data"]["password"], absl::Base64Escape(kRotatedPassword));

  ASSERT_OK_AND_ASSIGN(nlohmann::json again, Mirror("team-a"));
  again["metadata"]["labels"].erase(kManagedLabel);
  ASSERT_OK(client_->Update(SecretResource("team-a"), again));
  SetSpec(Spec({"team-b"}));
  ASSERT_OK_AND_ASSIGN(MirrorReconcileResult revoked, Pass());
  EXPECT_EQ(revoked.deleted, 1);
  EXPECT_THAT(Mirror("team-a"), StatusIs(absl::StatusCode::kNotFound));
  EXPECT_EQ(log_.events().back().mirror_deleted().secret().uid(), live["metadata"]["uid"]);
  EXPECT_FALSE(Entry("team-a")->has_mirror());
}

}  // namespace mirror_reconciler_owners_test
}  // namespace credledger::kubebridge
