// The planner's rules for bound objects that are gone, namespaces held back from re-creation,
// and mirrors the log records by uid (docs/mirrors.md, "Bindings", "How a change propagates"
// and "Conflicts and safety"), without a server.
#include <map>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "kubebridge/mirrors/mirror_objects.h"
#include "test/kubebridge/mirrors/mirror_test_objects.h"
#include "test/kubebridge/mirrors/plan_mirrors_fixture.h"

namespace credledger::kubebridge {
namespace mirror_plan_owners_test {

using ::testing::ElementsAre;
using Kind = MirrorAction::Kind;

class PlanOwnersTest : public PlanMirrorsFixture {
 protected:
  // An entry for `ns` bound by c1_ and c2_, c2_ marked gone.
  v1::IdentityNamespaceState* OneOfTwoGone(const std::string& ns) {
    v1::IdentityNamespaceState* entry = Entry(ns, {c1_, c2_});
    entry->mutable_bindings(1)->set_gone(true);
    return entry;
  }
  // An entry for `ns` bound by c1_ only, marked gone.
  v1::IdentityNamespaceState* AllGone(const std::string& ns) {
    v1::IdentityNamespaceState* entry = Entry(ns, {c1_});
    entry->mutable_bindings(0)->set_gone(true);
    return entry;
  }

  const v1::OwnerReference c2_ = Owner("c2", "u2");
};

TEST_F(PlanOwnersTest, AGoneBindingGetsNoOwnerReference) {
  OneOfTwoGone("a");
  MirrorAction action = PlanOne({});
  EXPECT_EQ(action.kind, Kind::kCreate);
  ASSERT_EQ(action.owners.size(), 1u);
  EXPECT_EQ(action.owners[0].uid(), "u1");
  EXPECT_EQ(action.object, DesiredMirror("cloud", "a", kPlanSourceData, "h1", {c1_}));
}

TEST_F(PlanOwnersTest, AReferenceToAGoneOwnerIsRemovedFromTheLiveMirror) {
  Record(OneOfTwoGone("a"), "m1", "f1", {c1_, c2_});
  MirrorAction action = PlanOne({{"a", Live("a", "m1", "h1", {c1_, c2_})}});
  EXPECT_EQ(action.kind, Kind::kUpdate);
  EXPECT_THAT(action.changes, ElementsAre("ownerReferences"));
  EXPECT_EQ(action.object["metadata"]["ownerReferences"],
            nlohmann::json::array({OwnerJson("c1", "u1")}));
}

TEST_F(PlanOwnersTest, ANamespaceWhoseBindingsAreAllGoneWantsNoMirror) {
  AllGone("a");
  EXPECT_EQ(PlanOne({}).kind, Kind::kNone);
}

TEST_F(PlanOwnersTest, OurMirrorWhereEveryBoundObjectIsGoneIsDeletedForThatReason) {
  Record(AllGone("a"), "m1", "f1", {c1_});
  MirrorAction action = PlanOne({{"a", Live("a", "m1", "h1", {c1_})}});
  EXPECT_EQ(action.kind, Kind::kDelete);
  EXPECT_EQ(action.uid, "m1");
  EXPECT_EQ(action.deletion_reason, v1::MIRROR_DELETION_REASON_BOUND_OBJECTS_GONE);
}

TEST_F(PlanOwnersTest, AHeldBackNamespaceWritesNothingAndStillReportsItsMirrorGone) {
  Record(Entry("a", {c1_}), "old", "f1", {c1_});
  MirrorAction held = PlanOne({}, {"a"});
  EXPECT_EQ(held.kind, Kind::kNone);
  EXPECT_TRUE(held.held_back);
  EXPECT_TRUE(held.mirror_gone);
  EXPECT_TRUE(held.object.is_null());

  MirrorAction other = PlanOne({}, {"b"});
  EXPECT_EQ(other.kind, Kind::kCreate);
  EXPECT_FALSE(other.held_back);
}

TEST_F(PlanOwnersTest, AHeldBackNamespaceNeitherUpdatesNorDeletes) {
  Record(Entry("a", {c1_}), "m1", "f0", {c1_});
  EXPECT_EQ(PlanOne({{"a", Live("a", "m1", "h0", {c1_})}}, {"a"}).kind, Kind::kNone);
  state_.mutable_spec()->mutable_allowed_namespaces()->clear_list();
  EXPECT_EQ(PlanOne({{"a", Live("a", "m1", "h0", {c1_})}}, {"a"}).kind, Kind::kNone);
  EXPECT_EQ(PlanOne({{"a", Live("a", "m1", "h0", {c1_})}}).kind, Kind::kDelete);
}

// Regression: a mirror whose captf.io/managed label someone removed was taken for a foreign
// Secret: recorded as deleted externally, reported as a conflict, never rewritten with a
// rotated source and never deleted when its namespace was disallowed.
TEST_F(PlanOwnersTest, TheMirrorTheLogRecordsByUidStaysOursWhateverItsLabels) {
  v1::IdentityNamespaceState* entry = Entry("a", {c1_});
  Record(entry, "m1", "f0", {c1_});
  nlohmann::json unlabelled = Live("a", "m1", "h0", {c1_});
  unlabelled["data"] = {{"password", "b2xk"}};  // the source rotated since
  unlabelled["metadata"]["labels"].erase(kManagedLabel);
  unlabelled["metadata"]["annotations"].erase(kIdentityAnnotation);

  MirrorAction rewrite = PlanOne({{"a", unlabelled}});
  EXPECT_EQ(rewrite.kind, Kind::kUpdate);
  EXPECT_FALSE(rewrite.mirror_gone);
  EXPECT_THAT(rewrite.changes, ElementsAre("data", "labels", "annotations"));
  EXPECT_TRUE(IsMirrorOf(rewrite.object, "cloud"));
  EXPECT_EQ(rewrite.uid, "m1");

  state_.mutable_spec()->mutable_allowed_namespaces()->clear_list();
  MirrorAction revoke = PlanOne({{"a", unlabelled}});
  EXPECT_EQ(revoke.kind, Kind::kDelete);
  EXPECT_EQ(revoke.uid, "m1");
  EXPECT_EQ(revoke.deletion_reason, v1::MIRROR_DELETION_REASON_NAMESPACE_NOT_ALLOWED);
}

TEST_F(PlanOwnersTest, AnUnlabelledSecretWithAnotherUidThanTheRecordIsNeverOurs) {
  Record(Entry("a", {c1_}), "m1", "f1", {c1_});
  MirrorAction action = PlanOne({{"a", Foreign("a")}});
  EXPECT_EQ(action.kind, Kind::kRecordFailure);
  EXPECT_EQ(action.failure_kind, v1::MIRROR_FAILURE_KIND_CONFLICT);
  EXPECT_TRUE(action.mirror_gone);

  state_.mutable_spec()->mutable_allowed_namespaces()->clear_list();
  EXPECT_EQ(PlanOne({{"a", Foreign("a")}}).kind, Kind::kNone);
}

}  // namespace mirror_plan_owners_test
}  // namespace credledger::kubebridge
