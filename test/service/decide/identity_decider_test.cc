// Given-events / when-command / then-events tests of the identity decider
// (docs/mirrors.md, "Bindings" and "Conditions"; docs/design.md, "Deciders").
//
// The given events are folded with projections::EvolveIdentity, the command is decided with
// DecideIdentity, and the emitted events are compared field by field with the expected ones.
// Emitted events are then folded too, so a test can go on with a further command.
#include "service/decide/identity_decider.h"

#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "projections/identity_state.h"
#include "test/service/decide/identity_decider_fixture.h"
#include "test/support/event_matchers.h"
#include "test/support/status_matchers.h"
#include "test/support/version1_events.h"

namespace credledger::service {
namespace identity_decider_test {

using ::credledger::testing::AsVersion1;

// --- CreateIdentity ---

TEST_F(IdentityDeciderTest, CreateRecordsNameSpecAndReview) {
  const v1::IdentitySpec spec = ListSpec({"team-a"});
  Then(When(CreateIdentity{spec, Review()}), {Created(spec)});
  EXPECT_EQ(state_.phase(), v1::IdentityState::PHASE_ACTIVE);
}

TEST_F(IdentityDeciderTest, CreateAgainWithTheSameSpecEmitsNothing) {
  GivenCreated();
  Then(When(CreateIdentity{ListSpec({"team-a", "team-b", "team-c"}), Review()}), {});
}

TEST_F(IdentityDeciderTest, CreateWithAnotherSpecWhileActiveIsRefusedPointingAtUpdate) {
  GivenCreated();
  EXPECT_THAT(When(CreateIdentity{ListSpec({"team-a"}), Review()}),
              Refused(absl::StatusCode::kFailedPrecondition,
                      "use UpdateIdentity (`credledger identity update`) to change it"));
}

TEST_F(IdentityDeciderTest, CreateAfterDeleteStartsANewIncarnation) {
  GivenCreated();
  Given({Deleted()});
  const v1::IdentitySpec spec = ListSpec({"team-z"});
  Then(When(CreateIdentity{spec, Review()}), {Created(spec)});
  EXPECT_EQ(state_.phase(), v1::IdentityState::PHASE_ACTIVE);
}

TEST_F(IdentityDeciderTest, CreateWithEmptyAllowedNamespacesIsRefusedWithTheSelectorHint) {
  v1::IdentitySpec spec = ListSpec({});
  spec.mutable_allowed_namespaces();  // present but empty: `{}`
  EXPECT_THAT(When(CreateIdentity{spec, Review()}),
              Refused(absl::StatusCode::kInvalidArgument, "selector: {}"));
}

TEST_F(IdentityDeciderTest, CreateWithAnInvalidSecretRefIsInvalidArgumentNamingTheField) {
  v1::IdentitySpec spec = ListSpec({"team-a"}, "Not_A_Name");
  EXPECT_THAT(When(CreateIdentity{spec, Review("Not_A_Name")}),
              Refused(absl::StatusCode::kInvalidArgument, "spec.secret_ref.name"));
}

TEST_F(IdentityDeciderTest, CreateWithoutAnAccessReviewIsRefused) {
  EXPECT_THAT(When(CreateIdentity{ListSpec({"team-a"}), v1::AccessReview()}),
              Refused(absl::StatusCode::kFailedPrecondition,
                      "access review missing or for another Secret"));
}

TEST_F(IdentityDeciderTest, CreateWithADeniedAccessReviewIsRefusedNamingTheUser) {
  EXPECT_THAT(When(CreateIdentity{ListSpec({"team-a"}), Review(kSourceName, false)}),
              Refused(absl::StatusCode::kFailedPrecondition, "user \"alice\""));
}

TEST_F(IdentityDeciderTest, CreateWithAReviewOfAnotherSecretIsRefused) {
  EXPECT_THAT(When(CreateIdentity{ListSpec({"team-a"}), Review("other-secret")}),
              Refused(absl::StatusCode::kFailedPrecondition,
                      "access review missing or for another Secret"));
}

// --- UpdateIdentity ---

TEST_F(IdentityDeciderTest, UpdateOfAnIdentityNeverCreatedOrDeletedIsNotFound) {
  EXPECT_THAT(When(UpdateIdentity{ListSpec({"team-a"}), Review()}),
              Refused(absl::StatusCode::kNotFound, "not found"));
  GivenCreated();
  Given({Deleted()});
  EXPECT_THAT(When(UpdateIdentity{ListSpec({"team-a"}), Review()}),
              Refused(absl::StatusCode::kNotFound, "not found"));
}

TEST_F(IdentityDeciderTest, UpdateWithTheSameSpecEmitsNothing) {
  GivenCreated();
  Then(When(UpdateIdentity{ListSpec({"team-a", "team-b", "team-c"}), std::nullopt}), {});
}

// Regression: moving an identity to another cluster left its mirrors in the old cluster,
// unfollowed, while the next pass recorded them as deleted externally.
TEST_F(IdentityDeciderTest, TheClusterCannotChangeWhileMirrorsExist) {
  GivenCreated();
  const v1::OwnerReference c1 = Owner("c1", kUid1);
  Given({Bound("team-a", c1),
         Written("team-a", Mirror("m-1"), Fingerprint('1'), {c1}, v1::MIRROR_WRITE_KIND_CREATED)});
  v1::IdentitySpec moved = ListSpec({"team-a", "team-b", "team-c"});
  moved.set_cluster("edge");
  EXPECT_THAT(When(UpdateIdentity{moved, std::nullopt}),
              Refused(absl::StatusCode::kFailedPrecondition,
                      "still has mirrors in the home cluster (namespaces team-a)"));
  // Once the mirror is gone (unbound), the cluster may change.
  Given({Unbound("team-a", c1),
         MirrorDeleted("team-a", Mirror("m-1"), v1::MIRROR_DELETION_REASON_UNBOUND)});
  Event updated;
  *updated.mutable_identity_updated()->mutable_spec() = moved;
  Then(When(UpdateIdentity{moved, std::nullopt}), {updated});
}

TEST_F(IdentityDeciderTest, UpdateWithAnInvalidSpecIsInvalidArgument) {
  GivenCreated();
  EXPECT_THAT(When(UpdateIdentity{ListSpec({"Team_A"}), Review()}),
              Refused(absl::StatusCode::kInvalidArgument, "spec.allowed_namespaces.list[0]"));
}

TEST_F(IdentityDeciderTest, WideningTheListNeedsAnAccessReview) {
  GivenCreated();
  const v1::IdentitySpec wider = ListSpec({"team-a", "team-b", "team-c", "team-d"});
  EXPECT_THAT(When(UpdateIdentity{wider, std::nullopt}),
              Refused(absl::StatusCode::kFailedPrecondition,
                      "access review missing or for another Secret"));
  const v1::AccessReview review = Review();
  Then(When(UpdateIdentity{wider, review}), {Updated(wider, &review)});
}

TEST_F(IdentityDeciderTest, AddingASelectorThatAllowsEveryNamespaceNeedsAnAccessReview) {
  GivenCreated();
  v1::IdentitySpec every = ListSpec({"team-a", "team-b", "team-c"});
  every.mutable_allowed_namespaces()->mutable_selector();  // selector: {}
  EXPECT_THAT(When(UpdateIdentity{every, std::nullopt}),
              Refused(absl::StatusCode::kFailedPrecondition, "access review"));
}

TEST_F(IdentityDeciderTest, NarrowingTheListNeedsNoAccessReview) {
  GivenCreated();
  const v1::IdentitySpec narrower = ListSpec({"team-a"});
  Then(When(UpdateIdentity{narrower, std::nullopt}), {Updated(narrower)});
}

TEST_F(IdentityDeciderTest, PointingAtAnotherSecretNeedsAReviewOfThatSecret) {
  GivenCreated();
  const v1::IdentitySpec moved = ListSpec({"team-a", "team-b", "team-c"}, "aws-source-2");
  EXPECT_THAT(When(UpdateIdentity{moved, std::nullopt}),
              Refused(absl::StatusCode::kFailedPrecondition, "aws-source-2"));
  EXPECT_THAT(When(UpdateIdentity{moved, Review(kSourceName)}),
              Refused(absl::StatusCode::kFailedPrecondition,
                      "access review missing or for another Secret"));
  EXPECT_THAT(When(UpdateIdentity{moved, Review("aws-source-2", false)}),
              Refused(absl::StatusCode::kFailedPrecondition, "denied"));
  const v1::AccessReview review = Review("aws-source-2");
  Then(When(UpdateIdentity{moved, review}), {Updated(moved, &review)});
}

// --- DeleteIdentity ---

TEST_F(IdentityDeciderTest, DeleteOfAnUnusedIdentityRecordsItOnce) {
  GivenCreated();
  Then(When(DeleteIdentity{}), {Deleted()});
  EXPECT_THAT(When(DeleteIdentity{}), Refused(absl::StatusCode::kNotFound, "not found"));
}

TEST_F(IdentityDeciderTest, DeleteWhileBoundOrMirroredIsRefusedNamingTheNamespaces) {
  GivenCreated();
  const v1::OwnerReference c1 = Owner("c1", kUid1);
  const v1::OwnerReference c3 = Owner("c3", kUid3);
  Given({Bound("team-b", Owner("c2", kUid2)), Bound("team-a", c1), Bound("team-c", c3),
         Written("team-c", Mirror("m-3"), Fingerprint('1'), {c3}, v1::MIRROR_WRITE_KIND_CREATED),
         Unbound("team-c", c3)});
  EXPECT_THAT(When(DeleteIdentity{}),
              Refused(absl::StatusCode::kFailedPrecondition,
                      "is still used: bound in team-a, team-b; mirrors in team-c"));
}

TEST_F(IdentityDeciderTest, DeleteIsRefusedWhileAMirrorRemainsAfterTheLastUnbind) {
  GivenCreated();
  const v1::OwnerReference c1 = Owner("c1", kUid1);
  Given({Bound("team-a", c1),
         Written("team-a", Mirror("m-1"), Fingerprint('1'), {c1}, v1::MIRROR_WRITE_KIND_CREATED),
         Unbound("team-a", c1)});
  EXPECT_THAT(When(DeleteIdentity{}),
              Refused(absl::StatusCode::kFailedPrecondition, "mirrors in team-a"));
  Given({MirrorDeleted("team-a", Mirror("m-1"), v1::MIRROR_DELETION_REASON_UNBOUND)});
  Then(When(DeleteIdentity{}), {Deleted()});
}

// --- BindIdentity ---

TEST_F(IdentityDeciderTest, BindRecordsTheBindingOnceAndOtherObjectsBeside) {
  GivenCreated();
  const v1::OwnerReference c1 = Owner("c1", kUid1);
  Then(When(BindIdentity{"team-a", c1}), {Bound("team-a", c1)});
  Then(When(BindIdentity{"team-a", c1}), {});
  const v1::OwnerReference c2 = Owner("c2", kUid2);
  Then(When(BindIdentity{"team-a", c2}), {Bound("team-a", c2)});
  ASSERT_NE(projections::FindIdentityNamespace(state_, "team-a"), nullptr);
  EXPECT_EQ(projections::FindIdentityNamespace(state_, "team-a")->bindings_size(), 2);
}

TEST_F(IdentityDeciderTest, BindOfANewerIncarnationOfTheSameObjectReplacesTheOldUid) {
  GivenCreated();
  Given({Bound("team-a", Owner("c1", kOldUid))});
  const v1::OwnerReference newer = Owner("c1", kNewUid);
  Then(When(BindIdentity{"team-a", newer}), {Bound("team-a", newer, kOldUid)});
  const v1::IdentityNamespaceState* ns = projections::FindIdentityNamespace(state_, "team-a");
  ASSERT_NE(ns, nullptr);
  ASSERT_EQ(ns->bindings_size(), 1);
  EXPECT_EQ(ns->bindings(0).owner().uid(), kNewUid);
}

TEST_F(IdentityDeciderTest, BindOfADeletedIdentityIsNotFound) {
  GivenCreated();
  Given({Deleted()});
  EXPECT_THAT(When(BindIdentity{"team-a", Owner("c1", kUid1)}),
              Refused(absl::StatusCode::kNotFound, "not found"));
}

TEST_F(IdentityDeciderTest, BindAcceptsTheCoreGroupAndGroupVersions) {
  GivenCreated();
  v1::OwnerReference pod = Owner("runner.1", kUid1);
  pod.set_api_version("v1");
  pod.set_kind("Pod");
  Then(When(BindIdentity{"team-a", pod}), {Bound("team-a", pod)});
}

TEST_F(IdentityDeciderTest, BindWithAMalformedNamespaceOrOwnerIsInvalidArgumentNamingTheField) {
  GivenCreated();
  struct Case {
    std::string ns;
    std::string api_version, kind, name, uid;
    std::string field;
  };
  const std::string ok_api = "infrastructure.captf.io/v1alpha1";
  const std::vector<Case> cases = {
      {"Team_A", ok_api, "TerraformCluster", "c1", kUid1, "namespace"},
      {"", ok_api, "TerraformCluster", "c1", kUid1, "namespace"},
      {"team-a", "", "TerraformCluster", "c1", kUid1, "owner.api_version"},
      {"team-a", "v2", "TerraformCluster", "c1", kUid1, "owner.api_version"},
      {"team-a", "Infra.io/v1", "TerraformCluster", "c1", kUid1, "owner.api_version"},
      {"team-a", "infra.io/", "TerraformCluster", "c1", kUid1, "owner.api_version"},
      {"team-a", "infra.io/v1/x", "TerraformCluster", "c1", kUid1, "owner.api_version"},
      {"team-a", ok_api, "", "c1", kUid1, "owner.kind"},
      {"team-a", ok_api, "Terraform-Cluster", "c1", kUid1, "owner.kind"},
      {"team-a", ok_api, std::string(64, 'K'), "c1", kUid1, "owner.kind"},
      {"team-a", ok_api, "TerraformCluster", "", kUid1, "owner.name"},
      {"team-a", ok_api, "TerraformCluster", "C1", kUid1, "owner.name"},
      {"team-a", ok_api, "TerraformCluster", std::string(254, 'c'), kUid1, "owner.name"},
      {"team-a", ok_api, "TerraformCluster", "c1", "", "owner.uid"},
      {"team-a", ok_api, "TerraformCluster", "c1", "uid 1", "owner.uid"},
      {"team-a", ok_api, "TerraformCluster", "c1", "not-a-uid", "owner.uid"},
      {"team-a", ok_api, "TerraformCluster", "c1", "0F8FAD5B-D9CB-469F-A165-70867728950E",
       "owner.uid"},
  };
  for (const Case& c : cases) {
    v1::OwnerReference owner;
    owner.set_api_version(c.api_version);
    owner.set_kind(c.kind);
    owner.set_name(c.name);
    owner.set_uid(c.uid);
    EXPECT_THAT(When(BindIdentity{c.ns, owner}),
                Refused(absl::StatusCode::kInvalidArgument, c.field))
        << owner.ShortDebugString() << " in " << c.ns;
  }
}

// --- UnbindIdentity ---

TEST_F(IdentityDeciderTest, UnbindWithoutUidRecordsTheBoundOwner) {
  GivenCreated();
  const v1::OwnerReference c1 = Owner("c1", kUid1);
  Given({Bound("team-a", c1)});
  Then(When(UnbindIdentity{"team-a", Owner("c1", "")}), {Unbound("team-a", c1)});
  EXPECT_EQ(projections::FindIdentityNamespace(state_, "team-a"), nullptr);
}

TEST_F(IdentityDeciderTest, UnbindOfAnObjectNotBoundEmitsNothing) {
  GivenCreated();
  Given({Bound("team-a", Owner("c1", kUid1))});
  Then(When(UnbindIdentity{"team-b", Owner("c1", kUid1)}), {});
  Then(When(UnbindIdentity{"team-a", Owner("c2", "")}), {});
}

TEST_F(IdentityDeciderTest, UnbindWithAnotherUidThanTheBoundOneIsRefused) {
  GivenCreated();
  Given({Bound("team-a", Owner("c1", kNewUid))});
  EXPECT_THAT(When(UnbindIdentity{"team-a", Owner("c1", kOldUid)}),
              Refused(absl::StatusCode::kFailedPrecondition,
                      absl::StrCat("bound with uid ", kNewUid, ", not ", kOldUid)));
  Then(When(UnbindIdentity{"team-a", Owner("c1", kNewUid)}),
       {Unbound("team-a", Owner("c1", kNewUid))});
}

TEST_F(IdentityDeciderTest, UnbindOfADeletedIdentityIsNotFound) {
  EXPECT_THAT(When(UnbindIdentity{"team-a", Owner("c1", "")}),
              Refused(absl::StatusCode::kNotFound, "not found"));
}

// --- ApplyMirrorOutcomes ---

TEST_F(IdentityDeciderTest, OutcomesForAnIdentityNotActiveAreNotFound) {
  EXPECT_THAT(WhenOutcomes({SourceOutcome(Fingerprint('1'))}),
              Refused(absl::StatusCode::kNotFound, "not found"));
  GivenCreated();
  Given({Deleted()});
  EXPECT_THAT(WhenOutcomes({SourceOutcome(Fingerprint('1'))}),
              Refused(absl::StatusCode::kNotFound, "not found"));
}

TEST_F(IdentityDeciderTest, ASourceObservationIsRecordedOnlyWhenItChanged) {
  GivenCreated();
  Then(WhenOutcomes({SourceOutcome(Fingerprint('1'))}),
       {SourceObserved(true, Fingerprint('1'), {"AWS_KEY"}, "41")});
  // Same hash and keys; a new resourceVersion alone (a label change) is not recorded.
  Then(WhenOutcomes({SourceOutcome(Fingerprint('1'), {"AWS_KEY"}, "42")}), {});
  Then(WhenOutcomes({SourceOutcome(Fingerprint('2'), {"AWS_KEY"}, "43")}),
       {SourceObserved(true, Fingerprint('2'), {"AWS_KEY"}, "43")});
  Then(WhenOutcomes({SourceOutcome(Fingerprint('2'), {"AWS_KEY", "AWS_SECRET"}, "44")}),
       {SourceObserved(true, Fingerprint('2'), {"AWS_KEY", "AWS_SECRET"}, "44")});
  Then(WhenOutcomes({kubebridge::RecordSourceObserved{false, "", {}, ""}}),
       {SourceObserved(false, "", {}, "")});
  Then(WhenOutcomes({kubebridge::RecordSourceObserved{false, "", {}, ""}}), {});
}

TEST_F(IdentityDeciderTest, AFirstObservationOfAMissingSourceIsRecorded) {
  GivenCreated();
  Then(WhenOutcomes({kubebridge::RecordSourceObserved{false, "", {}, ""}}),
       {SourceObserved(false, "", {}, "")});
}

TEST_F(IdentityDeciderTest, MalformedSourceObservationsAreInvalidArgument) {
  GivenCreated();
  // The bridge records fingerprints only: a plain hash, another shape or uppercase is refused.
  for (const std::string& malformed : {PlainHash('1'), Fingerprint('A'), Fingerprint('1').substr(1),
                                       Fingerprint('1', "abc"), Fingerprint('1') + "0"}) {
    EXPECT_THAT(WhenOutcomes({SourceOutcome(malformed)}),
                Refused(absl::StatusCode::kInvalidArgument,
                        "outcomes[0].source_fingerprint: not a fingerprint"))
        << malformed;
    EXPECT_THAT(
        WhenOutcomes({WrittenOutcome("team-a", malformed, {}, v1::MIRROR_WRITE_KIND_CREATED)}),
        Refused(absl::StatusCode::kInvalidArgument,
                "outcomes[0].source_fingerprint: not a fingerprint"))
        << malformed;
  }
  EXPECT_THAT(WhenOutcomes({kubebridge::RecordSourceObserved{false, Fingerprint('1'), {}, ""}}),
              Refused(absl::StatusCode::kInvalidArgument, "outcomes[0]"));
}

TEST_F(IdentityDeciderTest, NamespaceLabelsAreRecordedOnlyForKnownNamespacesWhenTheyChanged) {
  GivenCreated();
  const std::vector<v1::Label> labels = {Label("team", "a")};
  // No binding or mirror in team-a yet: nothing to explain.
  Then(WhenOutcomes({kubebridge::RecordNamespaceLabels{"team-a", true, labels}}), {});
  Given({Bound("team-a", Owner("c1", kUid1))});
  Then(WhenOutcomes({kubebridge::RecordNamespaceLabels{"team-a", true, labels}}),
       {LabelsObserved("team-a", true, labels)});
  Then(WhenOutcomes({kubebridge::RecordNamespaceLabels{"team-a", true, labels}}), {});
  const std::vector<v1::Label> relabelled = {Label("team", "b")};
  Then(WhenOutcomes({kubebridge::RecordNamespaceLabels{"team-a", true, relabelled}}),
       {LabelsObserved("team-a", true, relabelled)});
  Then(WhenOutcomes({kubebridge::RecordNamespaceLabels{"team-a", false, {}}}),
       {LabelsObserved("team-a", false, {})});
}

TEST_F(IdentityDeciderTest, AFirstObservationOfNoLabelsIsRecorded) {
  GivenCreated();
  Given({Bound("team-a", Owner("c1", kUid1))});
  Then(WhenOutcomes({kubebridge::RecordNamespaceLabels{"team-a", true, {}}}),
       {LabelsObserved("team-a", true, {})});
}

TEST_F(IdentityDeciderTest, OutcomesWithAMalformedNamespaceAreInvalidArgument) {
  GivenCreated();
  const std::vector<kubebridge::MirrorOutcome> malformed = {
      kubebridge::RecordNamespaceLabels{"Team_A", true, {}},
      WrittenOutcome("Team_A", Fingerprint('1'), {}, v1::MIRROR_WRITE_KIND_CREATED),
      kubebridge::RecordMirrorDeleted{"", Mirror("m-1"), v1::MIRROR_DELETION_REASON_UNBOUND},
      kubebridge::RecordMirrorDeletedExternally{"team.a", Mirror("m-1")},
      kubebridge::RecordMirrorFailed{"-team", v1::MIRROR_FAILURE_KIND_CONFLICT, "x"},
  };
  for (const kubebridge::MirrorOutcome& o : malformed) {
    EXPECT_THAT(WhenOutcomes({o}),
                Refused(absl::StatusCode::kInvalidArgument, "outcomes[0].namespace"));
  }
  EXPECT_THAT(WhenOutcomes({WrittenOutcome("team-a", "", {}, v1::MIRROR_WRITE_KIND_CREATED)}),
              Refused(absl::StatusCode::kInvalidArgument, "outcomes[0].source_fingerprint"));
}

TEST_F(IdentityDeciderTest, AMirrorWriteIsAlwaysRecordedButAnAdoptionOnlyWhenItDiffers) {
  GivenCreated();
  const v1::OwnerReference c1 = Owner("c1", kUid1);
  Given({Bound("team-a", c1)});
  Then(WhenOutcomes(
           {WrittenOutcome("team-a", Fingerprint('1'), {c1}, v1::MIRROR_WRITE_KIND_CREATED)}),
       {Written("team-a", Mirror("m-1"), Fingerprint('1'), {c1}, v1::MIRROR_WRITE_KIND_CREATED)});
  kubebridge::RecordMirrorWritten updated =
      WrittenOutcome("team-a", Fingerprint('1'), {c1}, v1::MIRROR_WRITE_KIND_UPDATED);
  updated.changed = {"labels"};
  Then(WhenOutcomes({updated}), {Written("team-a", Mirror("m-1"), Fingerprint('1'), {c1},
                                         v1::MIRROR_WRITE_KIND_UPDATED, {"labels"})});
  // After a restart the bridge finds the mirror as the log holds it.
  Then(WhenOutcomes(
           {WrittenOutcome("team-a", Fingerprint('1'), {c1}, v1::MIRROR_WRITE_KIND_ADOPTED)}),
       {});
  // Found with another owner set (an object bound while the bridge was down).
  const v1::OwnerReference c2 = Owner("c2", kUid2);
  Given({Bound("team-a", c2)});
  Then(WhenOutcomes(
           {WrittenOutcome("team-a", Fingerprint('1'), {c1, c2}, v1::MIRROR_WRITE_KIND_ADOPTED)}),
       {Written("team-a", Mirror("m-1"), Fingerprint('1'), {c1, c2},
                v1::MIRROR_WRITE_KIND_ADOPTED)});
  // Found with another source hash.
  Then(WhenOutcomes(
           {WrittenOutcome("team-a", Fingerprint('2'), {c1, c2}, v1::MIRROR_WRITE_KIND_ADOPTED)}),
       {Written("team-a", Mirror("m-1"), Fingerprint('2'), {c1, c2},
                v1::MIRROR_WRITE_KIND_ADOPTED)});
}

TEST_F(IdentityDeciderTest, AnAdoptionAfterAFailureIsRecordedToClearTheFailure) {
  GivenCreated();
  const v1::OwnerReference c1 = Owner("c1", kUid1);
  Given({Bound("team-a", c1),
         Written("team-a", Mirror("m-1"), Fingerprint('1'), {c1}, v1::MIRROR_WRITE_KIND_CREATED),
         Failed("team-a", v1::MIRROR_FAILURE_KIND_WRITE_FAILED, "the API server refused")});
  Then(WhenOutcomes(
           {WrittenOutcome("team-a", Fingerprint('1'), {c1}, v1::MIRROR_WRITE_KIND_ADOPTED)}),
       {Written("team-a", Mirror("m-1"), Fingerprint('1'), {c1}, v1::MIRROR_WRITE_KIND_ADOPTED)});
  EXPECT_FALSE(projections::FindIdentityNamespace(state_, "team-a")->has_failure());
}

TEST_F(IdentityDeciderTest, AMirrorDeletionIsRecorded) {
  GivenCreated();
  const v1::OwnerReference c1 = Owner("c1", kUid1);
  Given({Bound("team-a", c1),
         Written("team-a", Mirror("m-1"), Fingerprint('1'), {c1}, v1::MIRROR_WRITE_KIND_CREATED),
         Unbound("team-a", c1)});
  Then(WhenOutcomes({kubebridge::RecordMirrorDeleted{"team-a", Mirror("m-1"),
                                                     v1::MIRROR_DELETION_REASON_UNBOUND}}),
       {MirrorDeleted("team-a", Mirror("m-1"), v1::MIRROR_DELETION_REASON_UNBOUND)});
  EXPECT_EQ(projections::FindIdentityNamespace(state_, "team-a"), nullptr);
}

TEST_F(IdentityDeciderTest, AnExternalDeletionIsRecordedOnlyForTheMirrorTheLogHolds) {
  GivenCreated();
  const v1::OwnerReference c1 = Owner("c1", kUid1);
  Given({Bound("team-a", c1)});
  // No mirror recorded in team-a (or anywhere in team-b).
  Then(WhenOutcomes({kubebridge::RecordMirrorDeletedExternally{"team-a", Mirror("m-1")},
                     kubebridge::RecordMirrorDeletedExternally{"team-b", Mirror("m-1")}}),
       {});
  Given({Written("team-a", Mirror("m-1"), Fingerprint('1'), {c1}, v1::MIRROR_WRITE_KIND_CREATED)});
  // Another Secret than the recorded one.
  Then(WhenOutcomes({kubebridge::RecordMirrorDeletedExternally{"team-a", Mirror("m-0")}}), {});
  Then(WhenOutcomes({kubebridge::RecordMirrorDeletedExternally{"team-a", Mirror("m-1")}}),
       {DeletedExternally("team-a", Mirror("m-1"))});
  EXPECT_FALSE(projections::FindIdentityNamespace(state_, "team-a")->has_mirror());
}

TEST_F(IdentityDeciderTest, AFailureIsRecordedOnlyWhenItDiffersFromTheCurrentOne) {
  GivenCreated();
  const v1::OwnerReference c1 = Owner("c1", kUid1);
  Given({Bound("team-a", c1)});
  const kubebridge::RecordMirrorFailed conflict{"team-a", v1::MIRROR_FAILURE_KIND_CONFLICT,
                                                "Secret team-a/captf-creds-aws is in the way"};
  Then(WhenOutcomes({conflict}), {Failed("team-a", v1::MIRROR_FAILURE_KIND_CONFLICT,
                                         "Secret team-a/captf-creds-aws is in the way")});
  Then(WhenOutcomes({conflict}), {});
  kubebridge::RecordMirrorFailed other_message = conflict;
  other_message.message = "Secret team-a/captf-creds-aws is still in the way";
  Then(WhenOutcomes({other_message}),
       {Failed("team-a", v1::MIRROR_FAILURE_KIND_CONFLICT, other_message.message)});
  kubebridge::RecordMirrorFailed other_kind = other_message;
  other_kind.kind = v1::MIRROR_FAILURE_KIND_WRITE_FAILED;
  Then(WhenOutcomes({other_kind}),
       {Failed("team-a", v1::MIRROR_FAILURE_KIND_WRITE_FAILED, other_message.message)});
  // A write clears the failure, so the same failure afterwards is news again.
  Given({Written("team-a", Mirror("m-1"), Fingerprint('1'), {c1}, v1::MIRROR_WRITE_KIND_CREATED)});
  Then(WhenOutcomes({other_kind}),
       {Failed("team-a", v1::MIRROR_FAILURE_KIND_WRITE_FAILED, other_message.message)});
}

TEST_F(IdentityDeciderTest, ABatchIsDecidedOutcomeAfterOutcome) {
  GivenCreated();
  const v1::OwnerReference c1 = Owner("c1", kUid1);
  Given({Bound("team-a", c1)});
  const kubebridge::RecordMirrorFailed failed{"team-a", v1::MIRROR_FAILURE_KIND_WRITE_FAILED,
                                              "the API server refused"};
  // The second of each pair sees the first: the repeated source, labels, adoption and
  // failure are not recorded again.
  Then(
      WhenOutcomes({SourceOutcome(Fingerprint('1')), SourceOutcome(Fingerprint('1')),
                    kubebridge::RecordNamespaceLabels{"team-a", true, {Label("a", "b")}},
                    kubebridge::RecordNamespaceLabels{"team-a", true, {Label("a", "b")}},
                    WrittenOutcome("team-a", Fingerprint('1'), {c1}, v1::MIRROR_WRITE_KIND_ADOPTED),
                    WrittenOutcome("team-a", Fingerprint('1'), {c1}, v1::MIRROR_WRITE_KIND_ADOPTED),
                    failed, failed}),
      {SourceObserved(true, Fingerprint('1'), {"AWS_KEY"}, "41"),
       LabelsObserved("team-a", true, {Label("a", "b")}),
       Written("team-a", Mirror("m-1"), Fingerprint('1'), {c1}, v1::MIRROR_WRITE_KIND_ADOPTED),
       Failed("team-a", v1::MIRROR_FAILURE_KIND_WRITE_FAILED, "the API server refused")});
}

TEST_F(IdentityDeciderTest, ASourceObservationThenAMirrorWriteInOneBatchMirrorsTheNamespace) {
  GivenCreated();
  const v1::OwnerReference c1 = Owner("c1", kUid1);
  Given({Bound("team-a", c1)});
  Then(WhenOutcomes(
           {SourceOutcome(Fingerprint('2')),
            WrittenOutcome("team-a", Fingerprint('2'), {c1}, v1::MIRROR_WRITE_KIND_CREATED)}),
       {SourceObserved(true, Fingerprint('2'), {"AWS_KEY"}, "41"),
        Written("team-a", Mirror("m-1"), Fingerprint('2'), {c1}, v1::MIRROR_WRITE_KIND_CREATED)});
  const v1::IdentityNamespaceState* ns = projections::FindIdentityNamespace(state_, "team-a");
  ASSERT_NE(ns, nullptr);
  EXPECT_EQ(ns->credentials_mirrored().status(), "True");
  EXPECT_EQ(ns->credentials_mirrored().reason(), projections::kReasonMirrored);
}

TEST_F(IdentityDeciderTest, AMirrorDeletedEarlierInABatchIsNotDeletedExternallyAgain) {
  GivenCreated();
  const v1::OwnerReference c1 = Owner("c1", kUid1);
  Given({Bound("team-a", c1),
         Written("team-a", Mirror("m-1"), Fingerprint('1'), {c1}, v1::MIRROR_WRITE_KIND_CREATED)});
  constexpr v1::MirrorDeletionReason kNotAllowed = v1::MIRROR_DELETION_REASON_NAMESPACE_NOT_ALLOWED;
  Then(WhenOutcomes({kubebridge::RecordMirrorDeleted{"team-a", Mirror("m-1"), kNotAllowed},
                     kubebridge::RecordMirrorDeletedExternally{"team-a", Mirror("m-1")}}),
       {MirrorDeleted("team-a", Mirror("m-1"), kNotAllowed)});
}

TEST_F(IdentityDeciderTest, AMalformedOutcomeRefusesTheWholeBatchNamingItsIndex) {
  GivenCreated();
  EXPECT_THAT(WhenOutcomes({SourceOutcome(Fingerprint('1')),
                            WrittenOutcome("team-a", "nothex", {}, v1::MIRROR_WRITE_KIND_CREATED)}),
              Refused(absl::StatusCode::kInvalidArgument, "outcomes[1].source_fingerprint"));
}

// After an upgrade the log's last observation and mirror record carry plain hashes (version
// 1). A plain hash never equals a fingerprint: the first pass records the source once and
// adopts the mirror once, and the next pass records nothing.
TEST_F(IdentityDeciderTest, APlainHashOfAVersion1EventCountsAsOtherDataOnce) {
  GivenCreated();
  const v1::OwnerReference c1 = Owner("c1", kUid1);
  Given({Bound("team-a", c1),
         AsVersion1(SourceObserved(true, Fingerprint('1'), {"AWS_KEY"}, "41"), PlainHash('1')),
         AsVersion1(Written("team-a", Mirror("m-1"), Fingerprint('1'), {c1},
                            v1::MIRROR_WRITE_KIND_CREATED),
                    PlainHash('1'))});
  const std::vector<kubebridge::MirrorOutcome> pass = {
      SourceOutcome(Fingerprint('1')),
      WrittenOutcome("team-a", Fingerprint('1'), {c1}, v1::MIRROR_WRITE_KIND_ADOPTED)};
  Then(WhenOutcomes(pass),
       {SourceObserved(true, Fingerprint('1'), {"AWS_KEY"}, "41"),
        Written("team-a", Mirror("m-1"), Fingerprint('1'), {c1}, v1::MIRROR_WRITE_KIND_ADOPTED)});
  Then(WhenOutcomes(pass), {});
}

// A rotated fingerprint key names itself: the same data under another key is recorded again
// (once), so the log shows from when the new key applies.
TEST_F(IdentityDeciderTest, AFingerprintUnderAnotherKeyCountsAsOtherData) {
  GivenCreated();
  const v1::OwnerReference c1 = Owner("c1", kUid1);
  Given({Bound("team-a", c1), SourceObserved(true, Fingerprint('1'), {"AWS_KEY"}, "41"),
         Written("team-a", Mirror("m-1"), Fingerprint('1'), {c1}, v1::MIRROR_WRITE_KIND_CREATED)});
  const std::string rotated = Fingerprint('1', "fedcba9876543210");
  const std::vector<kubebridge::MirrorOutcome> pass = {
      SourceOutcome(rotated),
      WrittenOutcome("team-a", rotated, {c1}, v1::MIRROR_WRITE_KIND_ADOPTED)};
  Then(WhenOutcomes(pass),
       {SourceObserved(true, rotated, {"AWS_KEY"}, "41"),
        Written("team-a", Mirror("m-1"), rotated, {c1}, v1::MIRROR_WRITE_KIND_ADOPTED)});
  Then(WhenOutcomes(pass), {});
}

TEST_F(IdentityDeciderTest, AnEmptyBatchEmitsNothing) {
  GivenCreated();
  Then(WhenOutcomes({}), {});
}

}  // namespace identity_decider_test
}  // namespace credledger::service
