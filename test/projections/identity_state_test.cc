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
#include "test/support/version1_events.h"

namespace credledger::projections {
namespace identity_state_test {

using ::credledger::testing::AsVersion1;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::Not;
using v1::Event;

const absl::Time kT0 = absl::FromUnixSeconds(1767225600);
constexpr char kApi[] = "infrastructure.cluster.x-k8s.io/v1beta1";
// Source hashes as the bridge records them (64 lowercase hex characters).
// Source fingerprints (the fold treats them as opaque values of that shape) and the plain
// hash a version 1 event carries.
constexpr char kHash1[] =
    "hmac-sha256:0123456789abcdef:3f2a9c01d4e5b6a7c8d9e0f1a2b3c4d5e6f708192a3b4c5d6e7f8091a2b3c4d5";
constexpr char kHash2[] =
    "hmac-sha256:0123456789abcdef:9a8b7c6d5e4f30211203f4e5d6c7b8a99a8b7c6d5e4f30211203f4e5d6c7b8a9";
constexpr char kPlainHash1[] = "3f2a9c01d4e5b6a7c8d9e0f1a2b3c4d5e6f708192a3b4c5d6e7f8091a2b3c4d5";

v1::OwnerReference Owner(std::string kind, std::string name, std::string uid,
                         std::string api_version = kApi) {
  v1::OwnerReference o;
  o.set_api_version(std::move(api_version));
  o.set_kind(std::move(kind));
  o.set_name(std::move(name));
  o.set_uid(std::move(uid));
  return o;
}

v1::IdentitySpec Spec(std::vector<std::string> list, std::string secret = "aws-creds") {
  v1::IdentitySpec spec;
  spec.mutable_secret_ref()->set_namespace_("capi-system");
  spec.mutable_secret_ref()->set_name(std::move(secret));
  for (std::string& ns : list) spec.mutable_allowed_namespaces()->add_list(std::move(ns));
  return spec;
}

v1::IdentitySpec ProdSelectorSpec() {
  v1::IdentitySpec spec = Spec({});
  v1::Label* l = spec.mutable_allowed_namespaces()->mutable_selector()->add_match_labels();
  l->set_key("env");
  l->set_value("prod");
  return spec;
}

v1::AccessReview Review(std::string user) {
  v1::AccessReview r;
  r.set_user(std::move(user));
  r.add_groups("platform");
  r.mutable_secret()->set_namespace_("capi-system");
  r.mutable_secret()->set_name("aws-creds");
  r.set_allowed(true);
  return r;
}

Event Created(v1::IdentitySpec spec, std::string name = "aws") {
  Event e;
  e.mutable_identity_created()->set_name(std::move(name));
  *e.mutable_identity_created()->mutable_spec() = std::move(spec);
  *e.mutable_identity_created()->mutable_access_review() = Review("alice");
  return e;
}

Event Updated(v1::IdentitySpec spec, std::optional<v1::AccessReview> review = std::nullopt) {
  Event e;
  *e.mutable_identity_updated()->mutable_spec() = std::move(spec);
  if (review.has_value()) *e.mutable_identity_updated()->mutable_access_review() = *review;
  return e;
}

Event Deleted() {
  Event e;
  e.mutable_identity_deleted();
  return e;
}

Event Bound(std::string ns, v1::OwnerReference owner, std::string replaced_uid = "") {
  Event e;
  e.mutable_identity_bound()->set_namespace_(std::move(ns));
  *e.mutable_identity_bound()->mutable_owner() = std::move(owner);
  e.mutable_identity_bound()->set_replaced_uid(std::move(replaced_uid));
  return e;
}

Event Unbound(std::string ns, v1::OwnerReference owner) {
  Event e;
  e.mutable_identity_unbound()->set_namespace_(std::move(ns));
  *e.mutable_identity_unbound()->mutable_owner() = std::move(owner);
  return e;
}

Event Source(std::string hash, std::vector<std::string> keys = {"AWS_ACCESS_KEY_ID"}) {
  Event e;
  v1::SourceSecretObserved* s = e.mutable_source_secret_observed();
  s->set_found(!hash.empty());
  s->set_source_fingerprint(std::move(hash));
  for (std::string& k : keys) s->add_keys(std::move(k));
  s->set_resource_version("4711");
  return e;
}

Event Labels(std::string ns, std::vector<std::pair<std::string, std::string>> labels,
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

Event Written(std::string ns, std::string hash, std::vector<v1::OwnerReference> owners = {}) {
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

Event MirrorDeleted(std::string ns, v1::MirrorDeletionReason reason) {
  Event e;
  e.mutable_mirror_deleted()->set_namespace_(std::move(ns));
  e.mutable_mirror_deleted()->mutable_secret()->set_name("captf-creds-aws");
  e.mutable_mirror_deleted()->set_reason(reason);
  return e;
}

Event DeletedExternally(std::string ns) {
  Event e;
  e.mutable_mirror_deleted_externally()->set_namespace_(std::move(ns));
  e.mutable_mirror_deleted_externally()->mutable_secret()->set_name("captf-creds-aws");
  return e;
}

Event Failed(std::string ns, v1::MirrorFailureKind kind, std::string message) {
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
