// Given-events / when-command / then-events tests of the identity decider for bound objects the
// bridge found gone (docs/mirrors.md, "Bound objects that are gone"; docs/events.md,
// "BoundObjectGone"): recorded once per binding, never for an owner unbound or replaced.
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "service/decide/identity_decider.h"
#include "test/service/decide/identity_decider_fixture.h"

namespace credledger::service {
namespace identity_decider_test {

Event Gone(const std::string& ns, const v1::OwnerReference& owner,
           v1::BoundObjectAbsence absence = v1::BOUND_OBJECT_ABSENCE_NOT_FOUND) {
  Event e;
  e.mutable_bound_object_gone()->set_namespace_(ns);
  *e.mutable_bound_object_gone()->mutable_owner() = owner;
  e.mutable_bound_object_gone()->set_absence(absence);
  return e;
}

kubebridge::RecordBoundObjectGone GoneOutcome(
    const std::string& ns, const v1::OwnerReference& owner,
    v1::BoundObjectAbsence absence = v1::BOUND_OBJECT_ABSENCE_NOT_FOUND) {
  return {ns, owner, absence};
}

TEST_F(IdentityDeciderTest, AGoneObjectIsRecordedOnceAndItsBindingMarked) {
  GivenCreated();
  const v1::OwnerReference c1 = Owner("c1", kUid1);
  Given({Bound("team-a", c1)});
  Then(WhenOutcomes({GoneOutcome("team-a", c1, v1::BOUND_OBJECT_ABSENCE_OTHER_UID)}),
       {Gone("team-a", c1, v1::BOUND_OBJECT_ABSENCE_OTHER_UID)});
  EXPECT_TRUE(projections::FindIdentityNamespace(state_, "team-a")->bindings(0).gone());
  // The same finding again, in another pass or twice in one batch: nothing.
  Then(WhenOutcomes({GoneOutcome("team-a", c1), GoneOutcome("team-a", c1)}), {});
}

TEST_F(IdentityDeciderTest, TwoGoneObjectsInOneBatchAreBothRecorded) {
  GivenCreated();
  const v1::OwnerReference c1 = Owner("c1", kUid1);
  const v1::OwnerReference c2 = Owner("c2", kUid2);
  Given({Bound("team-a", c1), Bound("team-a", c2)});
  Then(WhenOutcomes({GoneOutcome("team-a", c1), GoneOutcome("team-a", c2), GoneOutcome("team-a", c1)}),
       {Gone("team-a", c1), Gone("team-a", c2)});
}

TEST_F(IdentityDeciderTest, AGoneOutcomeForAnOwnerUnboundOrReplacedSinceRecordsNothing) {
  GivenCreated();
  const v1::OwnerReference old_c1 = Owner("c1", kOldUid);
  Given({Bound("team-a", old_c1), Bound("team-a", Owner("c1", kNewUid), kOldUid)});
  Then(WhenOutcomes({GoneOutcome("team-a", old_c1)}), {});
  Then(WhenOutcomes({GoneOutcome("team-b", Owner("c2", kUid2))}), {});
  Given({Unbound("team-a", Owner("c1", kNewUid))});
  Then(WhenOutcomes({GoneOutcome("team-a", Owner("c1", kNewUid))}), {});
}

TEST_F(IdentityDeciderTest, BindingTheGoneObjectsNewUidReplacesTheGoneBinding) {
  GivenCreated();
  const v1::OwnerReference old_c1 = Owner("c1", kOldUid);
  Given({Bound("team-a", old_c1), Gone("team-a", old_c1)});
  Then(When(BindIdentity{"team-a", Owner("c1", kNewUid)}),
       {Bound("team-a", Owner("c1", kNewUid), kOldUid)});
  EXPECT_FALSE(projections::FindIdentityNamespace(state_, "team-a")->bindings(0).gone());
  // Binding the gone uid again changes nothing: a uid never comes back.
  Given({Gone("team-a", Owner("c1", kNewUid))});
  Then(When(BindIdentity{"team-a", Owner("c1", kNewUid)}), {});
  EXPECT_TRUE(projections::FindIdentityNamespace(state_, "team-a")->bindings(0).gone());
}

TEST_F(IdentityDeciderTest, AGoneOutcomeWithAMalformedOwnerIsInvalidArgumentNamingTheField) {
  GivenCreated();
  Given({Bound("team-a", Owner("c1", kUid1))});
  EXPECT_THAT(WhenOutcomes({GoneOutcome("team-a", Owner("c1", ""))}),
              Refused(absl::StatusCode::kInvalidArgument, "outcomes[0].owner.uid: required"));
  EXPECT_THAT(WhenOutcomes({GoneOutcome("team-a", Owner("c1", "not-a-uid"))}),
              Refused(absl::StatusCode::kInvalidArgument, "outcomes[0].owner.uid"));
  EXPECT_THAT(WhenOutcomes({GoneOutcome("Team_A", Owner("c1", kUid1))}),
              Refused(absl::StatusCode::kInvalidArgument, "outcomes[0].namespace"));
}

TEST_F(IdentityDeciderTest, AnIdentityWhoseBindingsAreAllGoneStillCannotBeDeleted) {
  GivenCreated();
  const v1::OwnerReference c1 = Owner("c1", kUid1);
  Given({Bound("team-a", c1), Gone("team-a", c1)});
  EXPECT_THAT(When(DeleteIdentity{}), Refused(absl::StatusCode::kFailedPrecondition, "bound in team-a"));
}

}  // namespace identity_decider_test
}  // namespace credledger::service
