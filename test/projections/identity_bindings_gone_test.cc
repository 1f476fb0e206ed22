// Tests of the identity fold for bound objects that are gone (docs/mirrors.md, "Bound objects
// that are gone" and "Conditions"): BoundObjectGone marks its binding until the binding is
// removed or replaced, and a namespace whose bindings are all gone reports
// CredentialsMirrored=False/BoundObjectGone.
#include <string>
#include <utility>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "projections/identity_state.h"
#include "projections/proto_time.h"
#include "test/projections/identity_state_fixture.h"

namespace credledger::projections {
namespace identity_state_test {

Event Gone(std::string ns, v1::OwnerReference owner) {
  Event e;
  e.mutable_bound_object_gone()->set_namespace_(std::move(ns));
  *e.mutable_bound_object_gone()->mutable_owner() = std::move(owner);
  e.mutable_bound_object_gone()->set_absence(v1::BOUND_OBJECT_ABSENCE_NOT_FOUND);
  return e;
}

class IdentityBindingsGoneTest : public IdentityStateTest {
 protected:
  // Identity aws allowed in team-a, its source observed, c1 and c2 bound there and mirrored.
  void MirroredTwice() {
    Apply(Created(Spec({"team-a"})));
    Apply(Source(kHash1));
    Apply(Bound("team-a", c1_));
    Apply(Bound("team-a", c2_));
    Apply(Written("team-a", kHash1, {c1_, c2_}));
  }

  const v1::OwnerReference c1_ = Owner("TerraformCluster", "c1", "u1");
  const v1::OwnerReference c2_ = Owner("TerraformCluster", "c2", "u2");
};

TEST_F(IdentityBindingsGoneTest, OneGoneObjectIsMarkedAndTheMirrorStillCounts) {
  MirroredTwice();
  Apply(Gone("team-a", c2_));
  const v1::IdentityNamespaceState& ns = Ns("team-a");
  ASSERT_EQ(ns.bindings_size(), 2);
  EXPECT_FALSE(ns.bindings(0).gone());
  EXPECT_TRUE(ns.bindings(1).gone());
  EXPECT_EQ(FromProto(ns.bindings(1).gone_at()), kT0 + absl::Seconds(6));
  EXPECT_FALSE(BindingsAllGone(ns));
  EXPECT_EQ(Of(ns.credentials_mirrored()), "True/Mirrored");
}

TEST_F(IdentityBindingsGoneTest, EveryObjectGoneReportsBoundObjectGoneNamingEachOne) {
  MirroredTwice();
  Apply(Gone("team-a", c1_));
  Apply(Gone("team-a", c2_));
  const v1::IdentityNamespaceState& ns = Ns("team-a");
  EXPECT_TRUE(BindingsAllGone(ns));
  EXPECT_EQ(Of(ns.identity_allowed()), "True/NamespaceAllowed");
  EXPECT_EQ(Of(ns.credentials_mirrored()), "False/BoundObjectGone");
  EXPECT_EQ(ns.credentials_mirrored().message(),
            "every object bound in namespace team-a is gone: TerraformCluster c1 "
            "(infrastructure.cluster.x-k8s.io/v1beta1, uid u1), TerraformCluster c2 "
            "(infrastructure.cluster.x-k8s.io/v1beta1, uid u2); mirror captf-creds-aws is to be "
            "removed and is not written again until an existing object is bound");

  Apply(MirrorDeleted("team-a", v1::MIRROR_DELETION_REASON_BOUND_OBJECTS_GONE));
  EXPECT_EQ(Of(Ns("team-a").credentials_mirrored()), "False/BoundObjectGone");
  EXPECT_THAT(Ns("team-a").credentials_mirrored().message(),
              ::testing::EndsWith("; a mirror is not written again until an existing object is "
                                  "bound"));
}

TEST_F(IdentityBindingsGoneTest, GoneComesBeforeNotAllowedAndAFailure) {
  MirroredTwice();
  Apply(Failed("team-a", v1::MIRROR_FAILURE_KIND_WRITE_FAILED, "write refused"));
  Apply(Gone("team-a", c1_));
  Apply(Gone("team-a", c2_));
  EXPECT_EQ(Of(Ns("team-a").credentials_mirrored()), "False/BoundObjectGone");
  Apply(Updated(Spec({})));
  EXPECT_EQ(Of(Ns("team-a").identity_allowed()), "False/NamespaceNotAllowed");
  EXPECT_EQ(Of(Ns("team-a").credentials_mirrored()), "False/BoundObjectGone");
}

TEST_F(IdentityBindingsGoneTest, BindingTheObjectsNewUidClearsTheMark) {
  MirroredTwice();
  Apply(Gone("team-a", c1_));
  Apply(Bound("team-a", Owner("TerraformCluster", "c1", "u1-new"), "u1"));
  const v1::IdentityNamespaceState& ns = Ns("team-a");
  EXPECT_FALSE(ns.bindings(0).gone());
  EXPECT_FALSE(ns.bindings(0).has_gone_at());
  EXPECT_EQ(ns.bindings(0).owner().uid(), "u1-new");
}

TEST_F(IdentityBindingsGoneTest, AGoneOutcomeForAnotherUidOrAnUnboundObjectChangesNothing) {
  MirroredTwice();
  Apply(Gone("team-a", Owner("TerraformCluster", "c1", "u1-older")));
  Apply(Gone("team-b", c1_));
  EXPECT_FALSE(Ns("team-a").bindings(0).gone());
  EXPECT_EQ(FindIdentityNamespace(state_, "team-b"), nullptr);
}

TEST_F(IdentityBindingsGoneTest, UnbindingTheLastGoneObjectDropsTheNamespaceOnceItsMirrorIsGone) {
  MirroredTwice();
  Apply(Gone("team-a", c1_));
  Apply(Gone("team-a", c2_));
  Apply(MirrorDeleted("team-a", v1::MIRROR_DELETION_REASON_BOUND_OBJECTS_GONE));
  Apply(Unbound("team-a", c1_));
  EXPECT_THAT(Namespaces(), ::testing::ElementsAre("team-a"));
  Apply(Unbound("team-a", c2_));
  EXPECT_THAT(Namespaces(), ::testing::IsEmpty());
}

}  // namespace identity_state_test
}  // namespace credledger::projections
