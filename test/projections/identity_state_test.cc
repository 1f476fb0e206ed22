// Tests of the identity fold (docs/mirrors.md, "The mirror", "How a change propagates",
// "Revocation", "Conflicts and safety" and "Conditions"): given the events of an identity
// stream, the state and the per-namespace IdentityAllowed and CredentialsMirrored conditions.
#include "projections/identity_state.h"

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "projections/proto_time.h"
#include "store/event_codec.h"
#include "test/projections/identity_state_fixture.h"
#include "test/support/version1_events.h"

namespace credledger::projections {
namespace identity_state_test {

using ::credledger::testing::AsVersion1;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::Not;

TEST(IdentityStreamTest, IsIdentitySlashName) { EXPECT_EQ(IdentityStream("aws"), "identity/aws"); }

TEST_F(IdentityStateTest, IdentityCreatedStartsAnActiveIncarnation) {
  Apply(Created(Spec({"team-a"})));
  EXPECT_EQ(state_.name(), "aws");
  EXPECT_EQ(state_.phase(), v1::IdentityState::PHASE_ACTIVE);
  EXPECT_THAT(state_.spec().allowed_namespaces().list(), ElementsAre("team-a"));
  EXPECT_EQ(state_.access_review().user(), "alice");
  EXPECT_EQ(state_.incarnation_version(), 0);
  EXPECT_EQ(state_.stream_version(), 0);
  EXPECT_EQ(state_.seq(), 10);
  EXPECT_EQ(FromProto(state_.created_at()), kT0 + absl::Seconds(1));
  EXPECT_EQ(FromProto(state_.updated_at()), kT0 + absl::Seconds(1));
  EXPECT_FALSE(state_.source().observed());
  EXPECT_THAT(state_.namespaces(), IsEmpty());
}

TEST_F(IdentityStateTest, IdentityCreatedAgainStartsFromNothing) {
  Apply(Created(Spec({"team-a"})));
  Apply(Source(kHash1));
  Apply(Bound("team-a", Owner("TerraformCluster", "c1", "u1")));
  Apply(Written("team-a", kHash1));
  Apply(Deleted());
  Apply(Created(Spec({"team-b"}), "aws"));
  EXPECT_EQ(state_.phase(), v1::IdentityState::PHASE_ACTIVE);
  EXPECT_EQ(state_.incarnation_version(), 5);
  EXPECT_EQ(state_.stream_version(), 5);
  EXPECT_EQ(FromProto(state_.created_at()), kT0 + absl::Seconds(6));
  EXPECT_FALSE(state_.has_source());
  EXPECT_THAT(state_.namespaces(), IsEmpty());
  EXPECT_THAT(state_.spec().allowed_namespaces().list(), ElementsAre("team-b"));
}

TEST_F(IdentityStateTest, IdentityUpdatedReplacesTheSpecAndTheReviewOnlyWhenOneRan) {
  Apply(Created(Spec({"team-a"})));
  Apply(Updated(Spec({"team-a", "team-b"}), Review("bob")));
  EXPECT_THAT(state_.spec().allowed_namespaces().list(), ElementsAre("team-a", "team-b"));
  EXPECT_EQ(state_.access_review().user(), "bob");
  Apply(Updated(Spec({"team-b"})));
  EXPECT_THAT(state_.spec().allowed_namespaces().list(), ElementsAre("team-b"));
  EXPECT_EQ(state_.access_review().user(), "bob");
  EXPECT_EQ(FromProto(state_.created_at()), kT0 + absl::Seconds(1));
  EXPECT_EQ(FromProto(state_.updated_at()), kT0 + absl::Seconds(3));
}

TEST_F(IdentityStateTest, PointingAtAnotherSecretForgetsWhatWasObservedOfTheOldOne) {
  Apply(Created(Spec({"team-a"})));
  Apply(Source(kHash1));
  Apply(Bound("team-a", Owner("TerraformCluster", "c1", "u1")));
  Apply(Written("team-a", kHash1));
  ASSERT_EQ(Of(Ns("team-a").credentials_mirrored()), "True/Mirrored");

  Apply(Updated(Spec({"team-a", "team-b"})));  // same Secret: the observation stands
  EXPECT_TRUE(state_.source().observed());
  EXPECT_EQ(Of(Ns("team-a").credentials_mirrored()), "True/Mirrored");

  Apply(Updated(Spec({"team-a", "team-b"}, "gcp-creds"), Review("bob")));
  EXPECT_FALSE(state_.source().observed());
  EXPECT_EQ(Of(Ns("team-a").credentials_mirrored()), "Unknown/MirrorPending");
  EXPECT_EQ(Ns("team-a").credentials_mirrored().message(),
            "waiting for the source Secret capi-system/gcp-creds to be read");
}

TEST_F(IdentityStateTest, IdentityDeletedKeepsTheRestForHistory) {
  Apply(Created(Spec({"team-a"})));
  Apply(Source(kHash1));
  Apply(Deleted());
  EXPECT_EQ(state_.phase(), v1::IdentityState::PHASE_DELETED);
  EXPECT_EQ(state_.name(), "aws");
  EXPECT_EQ(state_.source().source_fingerprint(), kHash1);
  EXPECT_THAT(state_.spec().allowed_namespaces().list(), ElementsAre("team-a"));
  EXPECT_EQ(state_.stream_version(), 2);
}

TEST_F(IdentityStateTest, NamespacesAndBindingsAreKeptInOrder) {
  Apply(Created(Spec({"team-a", "team-b", "team-c"})));
  Apply(Bound("team-c", Owner("TerraformCluster", "c1", "u1")));
  Apply(Bound("team-a", Owner("TerraformMachine", "m1", "u2")));
  Apply(Bound("team-a", Owner("TerraformCluster", "c2", "u3")));
  Apply(Bound("team-a", Owner("TerraformCluster", "c1", "u4")));
  Apply(Bound("team-a", Owner("TerraformCluster", "c0", "u5", "a.example/v1")));
  Apply(Bound("team-b", Owner("TerraformCluster", "c1", "u6")));
  EXPECT_THAT(Namespaces(), ElementsAre("team-a", "team-b", "team-c"));
  std::vector<std::string> order;
  for (const auto& b : Ns("team-a").bindings()) {
    order.push_back(
        absl::StrCat(b.owner().api_version(), " ", b.owner().kind(), " ", b.owner().name()));
  }
  EXPECT_THAT(order, ElementsAre("a.example/v1 TerraformCluster c0",
                                 absl::StrCat(kApi, " TerraformCluster c1"),
                                 absl::StrCat(kApi, " TerraformCluster c2"),
                                 absl::StrCat(kApi, " TerraformMachine m1")));
  EXPECT_EQ(FromProto(Ns("team-a").bindings(1).bound_at()), kT0 + absl::Seconds(5));
  EXPECT_EQ(FindIdentityNamespace(state_, "team-d"), nullptr);
  EXPECT_EQ(FindIdentityNamespace(state_, "team"), nullptr);
}

TEST_F(IdentityStateTest, BindingTheSameObjectAgainReplacesItsOlderUid) {
  Apply(Created(Spec({"team-a"})));
  Apply(Bound("team-a", Owner("TerraformCluster", "c1", "old-uid")));
  Apply(Bound("team-a", Owner("TerraformCluster", "c2", "u2")));
  Apply(Bound("team-a", Owner("TerraformCluster", "c1", "new-uid"), "old-uid"));
  ASSERT_EQ(Ns("team-a").bindings_size(), 2);
  EXPECT_EQ(Ns("team-a").bindings(0).owner().uid(), "new-uid");
  EXPECT_EQ(FromProto(Ns("team-a").bindings(0).bound_at()), kT0 + absl::Seconds(4));
  EXPECT_EQ(Ns("team-a").bindings(1).owner().uid(), "u2");
}

TEST_F(IdentityStateTest, UnbindRemovesTheBindingOfThatObjectWhateverItsUid) {
  Apply(Created(Spec({"team-a"})));
  Apply(Bound("team-a", Owner("TerraformCluster", "c1", "u1")));
  Apply(Bound("team-a", Owner("TerraformCluster", "c2", "u2")));
  Apply(Unbound("team-a", Owner("TerraformCluster", "c1", "")));
  ASSERT_EQ(Ns("team-a").bindings_size(), 1);
  EXPECT_EQ(Ns("team-a").bindings(0).owner().name(), "c2");
}

TEST_F(IdentityStateTest, TheLastUnbindDropsTheNamespaceOnlyOnceItsMirrorIsGone) {
  Apply(Created(Spec({"team-a", "team-b"})));
  Apply(Source(kHash1));
  Apply(Bound("team-a", Owner("TerraformCluster", "c1", "u1")));
  Apply(Bound("team-b", Owner("TerraformCluster", "c1", "u2")));
  Apply(Written("team-a", kHash1));

  Apply(Unbound("team-b", Owner("TerraformCluster", "c1", "u2")));  // no mirror there
  EXPECT_THAT(Namespaces(), ElementsAre("team-a"));

  Apply(Unbound("team-a", Owner("TerraformCluster", "c1", "u1")));
  EXPECT_THAT(Namespaces(), ElementsAre("team-a"));
  EXPECT_THAT(Ns("team-a").bindings(), IsEmpty());
  EXPECT_TRUE(Ns("team-a").has_mirror());

  Apply(MirrorDeleted("team-a", v1::MIRROR_DELETION_REASON_UNBOUND));
  EXPECT_THAT(Namespaces(), IsEmpty());
}

TEST_F(IdentityStateTest, SourceSecretObservedRecordsHashKeysAndTime) {
  Apply(Created(Spec({"team-a"})));
  Apply(Source(kHash1, {"AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY"}));
  EXPECT_TRUE(state_.source().observed());
  EXPECT_TRUE(state_.source().found());
  EXPECT_EQ(state_.source().source_fingerprint(), kHash1);
  EXPECT_THAT(state_.source().keys(), ElementsAre("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY"));
  EXPECT_EQ(FromProto(state_.source().observed_at()), kT0 + absl::Seconds(2));

  Apply(Source("", {}));  // gone
  EXPECT_TRUE(state_.source().observed());
  EXPECT_FALSE(state_.source().found());
  EXPECT_THAT(state_.source().keys(), IsEmpty());
}

TEST_F(IdentityStateTest, NamespaceLabelsAreKeptForBoundNamespacesOnly) {
  Apply(Created(ProdSelectorSpec()));
  Apply(Bound("team-a", Owner("TerraformCluster", "c1", "u1")));
  Apply(Labels("team-a", {{"env", "prod"}}));
  Apply(Labels("team-z", {{"env", "prod"}}));
  EXPECT_TRUE(Ns("team-a").labels_observed());
  EXPECT_TRUE(Ns("team-a").namespace_found());
  ASSERT_EQ(Ns("team-a").labels_size(), 1);
  EXPECT_EQ(Ns("team-a").labels(0).value(), "prod");
  EXPECT_THAT(Namespaces(), ElementsAre("team-a"));
  EXPECT_EQ(state_.stream_version(), 3);

  Apply(Labels("team-a", {}, /*found=*/false));
  EXPECT_TRUE(Ns("team-a").labels_observed());
  EXPECT_FALSE(Ns("team-a").namespace_found());
  EXPECT_THAT(Ns("team-a").labels(), IsEmpty());
}

TEST_F(IdentityStateTest, MirrorWrittenRecordsTheMirror) {
  Apply(Created(Spec({"team-a"})));
  Apply(Source(kHash1));
  Apply(Bound("team-a", Owner("TerraformCluster", "c1", "u1")));
  Apply(Written("team-a", kHash1, {Owner("TerraformCluster", "c1", "u1")}));
  const v1::MirrorRecord& m = Ns("team-a").mirror();
  EXPECT_EQ(m.secret().name(), "captf-creds-aws");
  EXPECT_EQ(m.secret().uid(), "mirror-uid-team-a");
  EXPECT_EQ(m.source_fingerprint(), kHash1);
  ASSERT_EQ(m.owners_size(), 1);
  EXPECT_EQ(m.owners(0).uid(), "u1");
  EXPECT_EQ(FromProto(m.written_at()), kT0 + absl::Seconds(4));
  EXPECT_EQ(Of(Ns("team-a").identity_allowed()), "True/NamespaceAllowed");
  EXPECT_EQ(Of(Ns("team-a").credentials_mirrored()), "True/Mirrored");
  EXPECT_EQ(Ns("team-a").credentials_mirrored().message(),
            "mirror captf-creds-aws holds the source's current data (source 3f2a9c01d4e5)");
}

TEST_F(IdentityStateTest, AMirrorDeletedOutsideCredledgerIsForgottenAndPendingAgain) {
  Apply(Created(Spec({"team-a"})));
  Apply(Source(kHash1));
  Apply(Bound("team-a", Owner("TerraformCluster", "c1", "u1")));
  Apply(Written("team-a", kHash1));
  Apply(DeletedExternally("team-a"));
  EXPECT_FALSE(Ns("team-a").has_mirror());
  EXPECT_EQ(Of(Ns("team-a").credentials_mirrored()), "Unknown/MirrorPending");
  EXPECT_EQ(Ns("team-a").credentials_mirrored().message(),
            "waiting for mirror captf-creds-aws to be written (source 3f2a9c01d4e5)");
}

TEST_F(IdentityStateTest, AFailureShowsUntilTheNextWriteClearsIt) {
  Apply(Created(Spec({"team-a"})));
  Apply(Source(kHash1));
  Apply(Bound("team-a", Owner("TerraformCluster", "c1", "u1")));
  Apply(Failed("team-a", v1::MIRROR_FAILURE_KIND_CONFLICT,
               "Secret team-a/captf-creds-aws exists and is not a mirror of identity aws; "
               "rename or remove it"));
  const v1::IdentityNamespaceState& ns = Ns("team-a");
  EXPECT_EQ(ns.failure().kind(), v1::MIRROR_FAILURE_KIND_CONFLICT);
  EXPECT_EQ(FromProto(ns.failure().at()), kT0 + absl::Seconds(4));
  EXPECT_EQ(Of(ns.credentials_mirrored()), "False/MirrorFailed");
  EXPECT_EQ(ns.credentials_mirrored().message(),
            "Secret team-a/captf-creds-aws exists and is not a mirror of identity aws; rename "
            "or remove it");

  Apply(Written("team-a", kHash1));
  EXPECT_FALSE(Ns("team-a").has_failure());
  EXPECT_EQ(Of(Ns("team-a").credentials_mirrored()), "True/Mirrored");
}

TEST_F(IdentityStateTest, AFailureAfterAWriteWinsOverTheMirror) {
  Apply(Created(Spec({"team-a"})));
  Apply(Source(kHash1));
  Apply(Bound("team-a", Owner("TerraformCluster", "c1", "u1")));
  Apply(Written("team-a", kHash1));
  Apply(Failed("team-a", v1::MIRROR_FAILURE_KIND_WRITE_FAILED, "secrets is forbidden"));
  EXPECT_EQ(Of(Ns("team-a").credentials_mirrored()), "False/MirrorFailed");
}

TEST_F(IdentityStateTest, AFailureInANamespaceWithoutBindingOrMirrorIsNotKept) {
  Apply(Created(Spec({"team-a"})));
  Apply(Failed("team-a", v1::MIRROR_FAILURE_KIND_WRITE_FAILED, "secrets is forbidden"));
  EXPECT_THAT(state_.namespaces(), IsEmpty());
}

TEST_F(IdentityStateTest, AMissingSourceIsNeverMirrored) {
  Apply(Created(Spec({"team-a"})));
  Apply(Source(kHash1));
  Apply(Bound("team-a", Owner("TerraformCluster", "c1", "u1")));
  Apply(Written("team-a", kHash1));
  Apply(Source(""));
  EXPECT_EQ(Of(Ns("team-a").credentials_mirrored()), "Unknown/MirrorPending");
  EXPECT_EQ(Ns("team-a").credentials_mirrored().message(),
            "the source Secret capi-system/aws-creds does not exist");
}

// Regression: a SOURCE_NOT_FOUND failure stayed after the source came back with the data it
// had, because nothing is written then and only MirrorWritten cleared a failure.
TEST_F(IdentityStateTest, TheSourceFoundAgainEndsSourceNotFoundFailuresOnly) {
  Apply(Created(Spec({"team-a", "team-b", "team-c"})));
  Apply(Source(kHash1));
  Apply(Bound("team-a", Owner("TerraformCluster", "c1", "u1")));
  Apply(Bound("team-b", Owner("TerraformCluster", "c1", "u2")));
  Apply(Bound("team-c", Owner("TerraformCluster", "c1", "u3")));
  Apply(Written("team-a", kHash1));
  Apply(Source(""));
  Apply(Failed("team-a", v1::MIRROR_FAILURE_KIND_SOURCE_NOT_FOUND, "source missing"));
  Apply(Failed("team-b", v1::MIRROR_FAILURE_KIND_SOURCE_NOT_FOUND, "source missing"));
  Apply(Failed("team-c", v1::MIRROR_FAILURE_KIND_CONFLICT, "rename or remove it"));
  ASSERT_EQ(Of(Ns("team-a").credentials_mirrored()), "False/MirrorFailed");
  ASSERT_EQ(Of(Ns("team-b").credentials_mirrored()), "False/MirrorFailed");

  Apply(Source(""));  // still missing
  EXPECT_EQ(Ns("team-a").failure().kind(), v1::MIRROR_FAILURE_KIND_SOURCE_NOT_FOUND);

  Apply(Source(kHash1));  // back, with the data the mirror holds
  EXPECT_FALSE(Ns("team-a").has_failure());
  EXPECT_EQ(Of(Ns("team-a").credentials_mirrored()), "True/Mirrored");
  EXPECT_FALSE(Ns("team-b").has_failure());
  EXPECT_EQ(Of(Ns("team-b").credentials_mirrored()), "Unknown/MirrorPending");
  EXPECT_EQ(Ns("team-c").failure().kind(), v1::MIRROR_FAILURE_KIND_CONFLICT);
  EXPECT_EQ(Of(Ns("team-c").credentials_mirrored()), "False/MirrorFailed");
}

TEST_F(IdentityStateTest, NarrowingTheListRevokesOnlyTheNamespaceLeftOut) {
  Apply(Created(Spec({"team-a", "team-b"})));
  Apply(Source(kHash1));
  Apply(Bound("team-a", Owner("TerraformCluster", "c1", "u1")));
  Apply(Bound("team-b", Owner("TerraformCluster", "c1", "u2")));
  Apply(Written("team-a", kHash1));
  Apply(Written("team-b", kHash1));
  const v1::Condition team_a_before = Ns("team-a").credentials_mirrored();

  Apply(Updated(Spec({"team-a"})));
  EXPECT_EQ(Of(Ns("team-b").identity_allowed()), "False/NamespaceNotAllowed");
  EXPECT_EQ(Ns("team-b").identity_allowed().message(),
            "namespace team-b is not in allowedNamespaces.list and there is no selector");
  EXPECT_EQ(Of(Ns("team-b").credentials_mirrored()), "False/NamespaceNotAllowed");
  EXPECT_EQ(Ns("team-b").credentials_mirrored().message(),
            "namespace team-b is not allowed: mirror captf-creds-aws is to be removed");
  EXPECT_EQ(FromProto(Ns("team-b").credentials_mirrored().last_transition_time()),
            kT0 + absl::Seconds(7));
  EXPECT_EQ(Ns("team-a").credentials_mirrored().SerializeAsString(),
            team_a_before.SerializeAsString());

  Apply(MirrorDeleted("team-b", v1::MIRROR_DELETION_REASON_NAMESPACE_NOT_ALLOWED));
  EXPECT_THAT(Namespaces(), ElementsAre("team-a", "team-b"));  // still bound there
  EXPECT_EQ(Ns("team-b").credentials_mirrored().message(),
            "namespace team-b is not allowed: it holds no mirror");

  Apply(Updated(Spec({"team-a", "team-b"}), Review("alice")));  // allowed again
  EXPECT_EQ(Of(Ns("team-b").identity_allowed()), "True/NamespaceAllowed");
  EXPECT_EQ(Of(Ns("team-b").credentials_mirrored()), "Unknown/MirrorPending");
}

TEST_F(IdentityStateTest, RelabellingANamespaceGrantsAndRevokesThroughTheSelector) {
  Apply(Created(ProdSelectorSpec()));
  Apply(Source(kHash1));
  Apply(Bound("team-b", Owner("TerraformCluster", "c1", "u1")));
  EXPECT_EQ(Of(Ns("team-b").identity_allowed()), "Unknown/NamespaceLabelsUnknown");
  EXPECT_EQ(Of(Ns("team-b").credentials_mirrored()), "Unknown/MirrorPending");
  EXPECT_EQ(Ns("team-b").credentials_mirrored().message(),
            "waiting for the labels of namespace team-b");

  Apply(Labels("team-b", {{"env", "prod"}}));
  EXPECT_EQ(Of(Ns("team-b").identity_allowed()), "True/NamespaceAllowed");
  Apply(Written("team-b", kHash1));
  EXPECT_EQ(Of(Ns("team-b").credentials_mirrored()), "True/Mirrored");

  Apply(Labels("team-b", {{"env", "dev"}}));
  EXPECT_EQ(Of(Ns("team-b").identity_allowed()), "False/NamespaceNotAllowed");
  EXPECT_EQ(Of(Ns("team-b").credentials_mirrored()), "False/NamespaceNotAllowed");
}

TEST_F(IdentityStateTest, ARotatedSourceIsPendingUntilTheMirrorHoldsTheNewHash) {
  Apply(Created(Spec({"team-a", "team-b"})));
  Apply(Source(kHash1));
  Apply(Bound("team-a", Owner("TerraformCluster", "c1", "u1")));
  Apply(Bound("team-b", Owner("TerraformCluster", "c1", "u2")));
  Apply(Written("team-a", kHash1));
  Apply(Written("team-b", kHash1));

  Apply(Source(kHash2));
  for (const char* ns : {"team-a", "team-b"}) {
    EXPECT_EQ(Of(Ns(ns).credentials_mirrored()), "Unknown/MirrorPending") << ns;
    EXPECT_EQ(Ns(ns).credentials_mirrored().message(),
              "mirror captf-creds-aws holds source 3f2a9c01d4e5; waiting for it to be "
              "rewritten with source 9a8b7c6d5e4f")
        << ns;
  }
  Apply(Written("team-a", kHash2));
  EXPECT_EQ(Of(Ns("team-a").credentials_mirrored()), "True/Mirrored");
  EXPECT_EQ(Of(Ns("team-b").credentials_mirrored()), "Unknown/MirrorPending");
  Apply(Written("team-b", kHash2));
  EXPECT_EQ(Of(Ns("team-b").credentials_mirrored()), "True/Mirrored");
}

// A log written with plain hashes (version 1) folds as it did: a mirror whose plain hash is
// the source's is current. A plain hash never equals a fingerprint, even of the same data:
// the first observation under fingerprints leaves the mirror pending until it is recorded
// again (docs/mirrors.md, "Logs with plain source hashes").
TEST_F(IdentityStateTest, APlainHashIsCurrentAgainstAPlainHashOnlyAndShownShort) {
  Apply(Created(Spec({"team-a"})));
  Apply(AsVersion1(Source(kHash1), kPlainHash1));
  Apply(Bound("team-a", Owner("TerraformCluster", "c1", "u1")));
  Apply(AsVersion1(Written("team-a", kHash1), kPlainHash1));
  EXPECT_EQ(state_.source().source_hash(), kPlainHash1);
  EXPECT_EQ(Ns("team-a").mirror().source_hash(), kPlainHash1);
  EXPECT_EQ(Of(Ns("team-a").credentials_mirrored()), "True/Mirrored");
  EXPECT_EQ(Ns("team-a").credentials_mirrored().message(),
            "mirror captf-creds-aws holds the source's current data (source 3f2a9c01d4e5)");

  Apply(Source(kHash1));
  EXPECT_EQ(state_.source().source_hash(), "");
  EXPECT_EQ(Of(Ns("team-a").credentials_mirrored()), "Unknown/MirrorPending");
  Apply(Written("team-a", kHash1));
  EXPECT_EQ(Ns("team-a").mirror().source_hash(), "");
  EXPECT_EQ(Of(Ns("team-a").credentials_mirrored()), "True/Mirrored");
}

TEST_F(IdentityStateTest, ConditionMessagesShowOnlyHashPrefixes) {
  Apply(Created(Spec({"team-a"})));
  Apply(Source(kHash1));
  Apply(Bound("team-a", Owner("TerraformCluster", "c1", "u1")));
  std::vector<std::string> messages;
  auto collect = [&] {
    messages.push_back(Ns("team-a").identity_allowed().message());
    messages.push_back(Ns("team-a").credentials_mirrored().message());
  };
  collect();
  Apply(Written("team-a", kHash1));
  collect();
  Apply(Source(kHash2));
  collect();
  for (const std::string& m : messages) {
    EXPECT_THAT(m, Not(HasSubstr(std::string(kHash1).substr(0, 13)))) << m;
    EXPECT_THAT(m, Not(HasSubstr(std::string(kHash2).substr(0, 13)))) << m;
  }
  EXPECT_THAT(messages[5], HasSubstr("9a8b7c6d5e4f"));
}

TEST_F(IdentityStateTest, TransitionTimesMoveOnlyWhenTheStatusChanges) {
  Apply(Created(Spec({"team-a"})));
  Apply(Bound("team-a", Owner("TerraformCluster", "c1", "u1")));  // t0+2s
  const absl::Time bound_at = kT0 + absl::Seconds(2);
  EXPECT_EQ(FromProto(Ns("team-a").identity_allowed().last_transition_time()), bound_at);
  EXPECT_EQ(FromProto(Ns("team-a").credentials_mirrored().last_transition_time()), bound_at);

  Apply(Source(kHash1));  // still Unknown, another message
  EXPECT_THAT(Ns("team-a").credentials_mirrored().message(), HasSubstr("waiting for mirror"));
  EXPECT_EQ(FromProto(Ns("team-a").credentials_mirrored().last_transition_time()), bound_at);

  Apply(Written("team-a", kHash1));  // Unknown -> True at t0+4s
  EXPECT_EQ(FromProto(Ns("team-a").credentials_mirrored().last_transition_time()),
            kT0 + absl::Seconds(4));
  Apply(Bound("team-a", Owner("TerraformCluster", "c2", "u2")));  // no status change
  EXPECT_EQ(FromProto(Ns("team-a").credentials_mirrored().last_transition_time()),
            kT0 + absl::Seconds(4));
  EXPECT_EQ(FromProto(Ns("team-a").identity_allowed().last_transition_time()), bound_at);
}

TEST_F(IdentityStateTest, EventsOfOtherStreamsChangeNothing) {
  Apply(Created(Spec({"team-a"})));
  Apply(Bound("team-a", Owner("TerraformCluster", "c1", "u1")));
  const std::string before = store::SerializeDeterministic(state_);
  Event other;
  other.mutable_target_registered()->set_name("edge-1");
  Apply(other);
  Apply(Event());
  EXPECT_EQ(store::SerializeDeterministic(state_), before);
}

}  // namespace identity_state_test
}  // namespace credledger::projections
