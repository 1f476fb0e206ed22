// IdentityApi without gRPC, on a real SQLite log: the access review on create and on
// widening updates (as the policy's Kubernetes subject, or the actor itself), a denied or
// impossible review appending nothing, input errors naming the field and appending nothing,
// spec normalization, request-id replay, reads, and ListMirrors with its filters.
#include "service/api/identity_api.h"

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "kubebridge/model/mirror_outcomes.h"
#include "test/service/identity_api_fixture.h"

namespace credledger::service {
namespace identity_api_test {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::SizeIs;
using testing::StatusIs;

// Source fingerprints (the API treats them as opaque values of that shape).
const std::string kFingerprintA = "hmac-sha256:0123456789abcdef:" + std::string(64, 'a');
const std::string kFingerprintB = "hmac-sha256:0123456789abcdef:" + std::string(64, 'b');

class IdentityApiTest : public IdentityApiFixture {
 protected:
  // Records bridge outcomes for `identity` through the bus, as the mirror bridge does.
  void Outcomes(const std::string& identity, std::vector<kubebridge::MirrorOutcome> outcomes) {
    IdentityCommandContext context;
    context.identity = identity;
    context.now = clock_.Now();
    context.actor = "credledger";
    context.request_id = "credledger:test/" + std::to_string(outcome_requests_++);
    ASSERT_OK(bus_->Execute(ApplyMirrorOutcomes{std::move(outcomes)}, context));
  }

  static kubebridge::RecordMirrorWritten Written(const std::string& identity, const std::string& ns,
                                                 const std::string& fingerprint) {
    kubebridge::RecordMirrorWritten written;
    written.namespace_name = ns;
    written.secret.set_name("captf-creds-" + identity);
    written.secret.set_uid("uid-" + identity + "-" + ns);
    written.source_fingerprint = fingerprint;
    written.kind = v1::MIRROR_WRITE_KIND_CREATED;
    return written;
  }

  int outcome_requests_ = 0;
};

TEST_F(IdentityApiTest, CreateReviewsAsThePolicysKubernetesSubjectAndRecordsTheReview) {
  ASSERT_OK_AND_ASSIGN(v1::IdentityChangeResponse response,
                       api_->CreateIdentity(Create("aws", Spec("aws", {"team-a"}), "r1"), "alice"));
  const std::vector<v1::AccessReview> reviews = reviewer_.reviews();
  ASSERT_THAT(reviews, SizeIs(1));
  const v1::AccessReview& asked = reviews[0];
  EXPECT_EQ(asked.user(), "alice@example.com");
  EXPECT_THAT(asked.groups(), ElementsAre("platform-admins", "oncall"));
  EXPECT_EQ(asked.secret().namespace_(), "creds");
  EXPECT_EQ(asked.secret().name(), "aws");

  EXPECT_FALSE(response.replayed());
  EXPECT_EQ(response.seq(), store_->HeadSeq());
  EXPECT_EQ(response.identity().phase(), v1::IdentityState::PHASE_ACTIVE);
  const v1::AccessReview& recorded = response.identity().access_review();
  EXPECT_EQ(recorded.user(), "alice@example.com");
  EXPECT_THAT(recorded.groups(), ElementsAre("platform-admins", "oncall"));
  EXPECT_EQ(recorded.secret().name(), "aws");
  EXPECT_TRUE(recorded.allowed());

  ASSERT_OK_AND_ASSIGN(v1::GetIdentityResponse got, api_->GetIdentity([] {
    v1::GetIdentityRequest r;
    r.set_name("aws");
    return r;
  }()));
  EXPECT_TRUE(got.identity().access_review().allowed());
  EXPECT_EQ(got.identity().spec().secret_ref().name(), "aws");
}

TEST_F(IdentityApiTest, WithoutAKubernetesUserInThePolicyTheActorIsTheUser) {
  // "bob" gets the "*" entry, which names no Kubernetes user; an empty actor is anonymous.
  ASSERT_OK(api_->CreateIdentity(Create("one", Spec("one", {}), "r1"), "bob"));
  ASSERT_OK(api_->CreateIdentity(Create("two", Spec("two", {}), "r2"), ""));
  ASSERT_THAT(reviewer_.reviews(), SizeIs(2));
  EXPECT_EQ(reviewer_.reviews()[0].user(), "bob");
  EXPECT_THAT(reviewer_.reviews()[0].groups(), IsEmpty());
  EXPECT_EQ(reviewer_.reviews()[1].user(), "anonymous");
}

TEST_F(IdentityApiTest, ADeniedReviewIsPermissionDeniedNamingUserGroupsAndSecret) {
  reviewer_.set_allowed(false);
  const int64_t head = store_->HeadSeq();
  EXPECT_THAT(api_->CreateIdentity(Create("aws", Spec("aws", {"team-a"}), "r1"), "alice"),
              StatusIs(absl::StatusCode::kPermissionDenied,
                       ::testing::AllOf(HasSubstr("user \"alice@example.com\""),
                                        HasSubstr("platform-admins"), HasSubstr("oncall"),
                                        HasSubstr("Secret \"creds/aws\""))));
  EXPECT_EQ(store_->HeadSeq(), head);
  EXPECT_FALSE(projector_->GetIdentity("aws").has_value());
}

TEST_F(IdentityApiTest, WithoutAReviewerChangesThatNeedAReviewFailAndOthersWork) {
  CreateAs("aws", {"team-a", "team-b"});
  std::unique_ptr<IdentityApi> offline = MakeApi(nullptr);
  const int64_t head = store_->HeadSeq();
  EXPECT_THAT(offline->CreateIdentity(Create("gcp", Spec("gcp", {}), "r2"), "alice"),
              StatusIs(absl::StatusCode::kFailedPrecondition,
                       HasSubstr("require a cluster connection (--kubeconfig or in-cluster)")));
  v1::UpdateIdentityRequest widen;
  widen.set_request_id("r3");
  widen.set_name("aws");
  *widen.mutable_spec() = Spec("aws", {"team-a", "team-b", "team-c"});
  EXPECT_THAT(offline->UpdateIdentity(widen, "alice"),
              StatusIs(absl::StatusCode::kFailedPrecondition));
  EXPECT_EQ(store_->HeadSeq(), head);

  v1::UpdateIdentityRequest narrow = widen;
  narrow.set_request_id("r4");
  *narrow.mutable_spec() = Spec("aws", {"team-a"});
  ASSERT_OK_AND_ASSIGN(v1::IdentityChangeResponse narrowed,
                       offline->UpdateIdentity(narrow, "alice"));
  EXPECT_THAT(narrowed.identity().spec().allowed_namespaces().list(), ElementsAre("team-a"));
}

TEST_F(IdentityApiTest, NarrowingRunsNoReviewWhileWideningAndAnotherSecretDo) {
  CreateAs("aws", {"team-a", "team-b"});
  ASSERT_THAT(reviewer_.reviews(), SizeIs(1));
  auto update = [&](const v1::IdentitySpec& spec, const std::string& request_id) {
    v1::UpdateIdentityRequest request;
    request.set_request_id(request_id);
    request.set_name("aws");
    *request.mutable_spec() = spec;
    return api_->UpdateIdentity(request, "alice");
  };

  ASSERT_OK(update(Spec("aws", {"team-a"}), "narrow"));
  EXPECT_THAT(reviewer_.reviews(), SizeIs(1));

  ASSERT_OK(update(Spec("aws", {"team-a", "team-c"}), "widen"));
  ASSERT_THAT(reviewer_.reviews(), SizeIs(2));
  EXPECT_EQ(reviewer_.reviews()[1].secret().name(), "aws");

  v1::IdentitySpec selector = Spec("aws", {"team-a", "team-c"});
  selector.mutable_allowed_namespaces()->mutable_selector();
  ASSERT_OK(update(selector, "select-all"));
  EXPECT_THAT(reviewer_.reviews(), SizeIs(3));

  ASSERT_OK_AND_ASSIGN(v1::IdentityChangeResponse moved,
                       update(Spec("aws-rotated", {"team-a"}), "other-secret"));
  ASSERT_THAT(reviewer_.reviews(), SizeIs(4));
  EXPECT_EQ(reviewer_.reviews()[3].secret().name(), "aws-rotated");
  EXPECT_EQ(moved.identity().access_review().secret().name(), "aws-rotated");

  // A denied widening appends nothing.
  reviewer_.set_allowed(false);
  const int64_t head = store_->HeadSeq();
  EXPECT_THAT(update(Spec("aws-rotated", {"team-a", "team-z"}), "denied"),
              StatusIs(absl::StatusCode::kPermissionDenied, HasSubstr("creds/aws-rotated")));
  EXPECT_EQ(store_->HeadSeq(), head);
}

TEST_F(IdentityApiTest, BadInputNamesTheFieldAndAppendsNothingWithoutAReview) {
  CreateAs("aws", {"team-a"});
  const int64_t head = store_->HeadSeq();
  const size_t reviews = reviewer_.reviews().size();
  struct Case {
    std::function<absl::Status()> call;
    std::string message;
  };
  auto create = [&](std::function<void(v1::CreateIdentityRequest&)> mutate,
                    const std::string& actor = "alice") {
    return [=, this] {
      v1::CreateIdentityRequest request = Create("gcp", Spec("gcp", {"team-a"}), "bad");
      mutate(request);
      return api_->CreateIdentity(request, actor).status();
    };
  };
  auto bind = [&](std::function<void(v1::BindIdentityRequest&)> mutate) {
    return [=, this] {
      v1::BindIdentityRequest request = Bind("aws", "team-a", Owner("c1", kOwnerUid1), "bad");
      mutate(request);
      return api_->BindIdentity(request, "alice").status();
    };
  };
  const std::vector<Case> cases = {
      {create([](auto& r) { r.set_name("Not_A_Name"); }), "name:"},
      {create([](auto& r) { r.set_request_id(""); }), "request_id"},
      {create([](auto&) {}, std::string("bad actor")), "credledger-actor"},
      {create([](auto& r) { r.mutable_spec()->mutable_secret_ref()->set_name(""); }),
       "spec.secret_ref.name"},
      {create([](auto& r) { r.mutable_spec()->mutable_allowed_namespaces()->clear_list(); }),
       "selector: {}"},
      {create([](auto& r) {
         auto* e = r.mutable_spec()
                       ->mutable_allowed_namespaces()
                       ->mutable_selector()
                       ->add_match_expressions();
         e->set_key("tier");
         e->set_operator_("Within");
         e->add_values("a");
       }),
       "spec.allowed_namespaces.selector.match_expressions[0].operator"},
      {create([](auto& r) { r.mutable_spec()->set_cluster("Edge_1"); }), "spec.cluster:"},
      {bind([](auto& r) { r.set_identity("Bad"); }), "identity:"},
      {bind([](auto& r) { r.set_namespace_("Team_A"); }), "namespace:"},
      {bind([](auto& r) { r.mutable_owner()->set_api_version("a/b/c"); }), "owner.api_version"},
      {bind([](auto& r) { r.mutable_owner()->set_kind("Terraform-Cluster"); }), "owner.kind"},
      {bind([](auto& r) { r.mutable_owner()->set_name("UPPER"); }), "owner.name"},
      {bind([](auto& r) { r.mutable_owner()->set_uid(""); }), "owner.uid: required"},
      // Regression: any printable token was accepted and written into the mirror's
      // ownerReferences; Kubernetes uids are lowercase RFC 4122 UUIDs.
      {bind([](auto& r) { r.mutable_owner()->set_uid("not-a-uid"); }),
       "owner.uid: \"not-a-uid\" is not a lowercase RFC 4122 UUID"},
      {[this] {
         v1::UnbindIdentityRequest request;
         request.set_request_id("bad");
         request.set_identity("aws");
         request.set_namespace_("team-a");
         *request.mutable_owner() = Owner("c1", "");
         request.mutable_owner()->set_kind("");
         return api_->UnbindIdentity(request, "alice").status();
       },
       "owner.kind"},
      {[this] {
         v1::UnbindIdentityRequest request;
         request.set_request_id("bad");
         request.set_identity("aws");
         request.set_namespace_("team-a");
         *request.mutable_owner() = Owner("c1", "uid-1");
         return api_->UnbindIdentity(request, "alice").status();
       },
       "owner.uid: \"uid-1\" is not a lowercase RFC 4122 UUID"},
  };
  for (size_t i = 0; i < cases.size(); ++i) {
    EXPECT_THAT(cases[i].call(),
                StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr(cases[i].message)))
        << "case " << i;
  }
  EXPECT_EQ(store_->HeadSeq(), head);
  EXPECT_EQ(reviewer_.reviews().size(), reviews);
}

TEST_F(IdentityApiTest, ASpecMayNameOnlyARegisteredActiveCluster) {
  auto create = [&](const std::string& name, const std::string& cluster,
                    IdentityApi& api) -> absl::StatusOr<v1::IdentityChangeResponse> {
    v1::IdentitySpec spec = Spec(name, {"team-a"});
    spec.set_cluster(cluster);
    return api.CreateIdentity(Create(name, spec, "create-" + name), "alice");
  };
  const int64_t head = store_->HeadSeq();
  EXPECT_THAT(create("aws", "edge-1", *api_),
              StatusIs(absl::StatusCode::kFailedPrecondition,
                       HasSubstr("spec.cluster: cluster \"edge-1\" is not registered")));
  EXPECT_EQ(store_->HeadSeq(), head);
  EXPECT_THAT(reviewer_.reviews(), IsEmpty());

  v1::ClusterSpec in_cluster;
  in_cluster.set_connection_mode(v1::CLUSTER_CONNECTION_MODE_IN_CLUSTER);
  RunClusterCommand("edge-1", RegisterCluster{in_cluster});
  ASSERT_OK_AND_ASSIGN(v1::IdentityChangeResponse created, create("aws", "edge-1", *api_));
  EXPECT_EQ(created.identity().spec().cluster(), "edge-1");

  // An api without a cluster projector knows no cluster.
  EXPECT_THAT(create("gcp", "edge-1", *MakeApi(&reviewer_, /*with_clusters=*/false)),
              StatusIs(absl::StatusCode::kFailedPrecondition, HasSubstr("spec.cluster")));

  // Once deregistered, an update may no longer name it.
  RunClusterCommand("edge-2", RegisterCluster{in_cluster});
  RunClusterCommand("edge-2", DeregisterCluster{});
  v1::UpdateIdentityRequest update;
  update.set_request_id("move");
  update.set_name("aws");
  *update.mutable_spec() = created.identity().spec();
  update.mutable_spec()->set_cluster("edge-2");
  EXPECT_THAT(api_->UpdateIdentity(update, "alice"),
              StatusIs(absl::StatusCode::kFailedPrecondition,
                       HasSubstr("cluster \"edge-2\" is not registered")));
  update.mutable_spec()->clear_cluster();  // back to the home cluster
  ASSERT_OK_AND_ASSIGN(v1::IdentityChangeResponse home, api_->UpdateIdentity(update, "alice"));
  EXPECT_EQ(home.identity().spec().cluster(), "");
}

TEST_F(IdentityApiTest, TheOrderOfListAndMatchLabelsCarriesNoMeaning) {
  v1::IdentitySpec spec = Spec("aws", {"team-b", "team-a"});
  v1::LabelSelector* selector = spec.mutable_allowed_namespaces()->mutable_selector();
  v1::Label* env = selector->add_match_labels();
  env->set_key("env");
  env->set_value("prod");
  v1::Label* app = selector->add_match_labels();
  app->set_key("app");
  app->set_value("x");
  ASSERT_OK_AND_ASSIGN(v1::IdentityChangeResponse created,
                       api_->CreateIdentity(Create("aws", spec, "r1"), "alice"));
  const v1::AllowedNamespaces& stored = created.identity().spec().allowed_namespaces();
  EXPECT_THAT(stored.list(), ElementsAre("team-a", "team-b"));
  ASSERT_THAT(stored.selector().match_labels(), SizeIs(2));
  EXPECT_EQ(stored.selector().match_labels(0).key(), "app");

  // The same spec in the stored order is the same spec: nothing appended.
  v1::IdentitySpec same = created.identity().spec();
  ASSERT_OK_AND_ASSIGN(v1::IdentityChangeResponse again,
                       api_->CreateIdentity(Create("aws", same, "r2"), "alice"));
  EXPECT_EQ(again.seq(), 0);
  EXPECT_FALSE(again.replayed());
}

TEST_F(IdentityApiTest, ARetriedRequestIdGetsTheOriginalAnswerAndAppendsNothing) {
  ASSERT_OK_AND_ASSIGN(v1::IdentityChangeResponse first,
                       api_->CreateIdentity(Create("aws", Spec("aws", {"team-a"}), "r1"), "alice"));
  ASSERT_OK_AND_ASSIGN(
      v1::IdentityChangeResponse bound,
      api_->BindIdentity(Bind("aws", "team-a", Owner("c1", kOwnerUid1), "bind-1"), "alice"));
  const int64_t head = store_->HeadSeq();

  ASSERT_OK_AND_ASSIGN(v1::IdentityChangeResponse retried_create,
                       api_->CreateIdentity(Create("aws", Spec("aws", {"team-a"}), "r1"), "alice"));
  EXPECT_TRUE(retried_create.replayed());
  EXPECT_EQ(retried_create.seq(), first.seq());
  ASSERT_OK_AND_ASSIGN(
      v1::IdentityChangeResponse retried_bind,
      api_->BindIdentity(Bind("aws", "team-a", Owner("c1", kOwnerUid1), "bind-1"), "alice"));
  EXPECT_TRUE(retried_bind.replayed());
  EXPECT_EQ(retried_bind.seq(), bound.seq());
  EXPECT_EQ(store_->HeadSeq(), head);
  // The answer shows the identity as it is now, with the binding.
  ASSERT_THAT(retried_bind.identity().namespaces(), SizeIs(1));
  EXPECT_EQ(retried_bind.identity().namespaces(0).bindings(0).owner().uid(), kOwnerUid1);
}

// A request id retried with a request that differs in any field is refused instead of
// answered as a replay of the first (docs/api.md, "Request ids and idempotency").
TEST_F(IdentityApiTest, ARequestIdReusedWithAnotherSpecOrOwnerIsFailedPrecondition) {
  ASSERT_OK(api_->CreateIdentity(Create("aws", Spec("aws", {"team-a"}), "r1"), "alice"));
  ASSERT_OK(api_->BindIdentity(Bind("aws", "team-a", Owner("c1", kOwnerUid1), "bind-1"), "alice"));
  const int64_t head = store_->HeadSeq();

  EXPECT_THAT(api_->CreateIdentity(Create("aws", Spec("aws", {"team-b"}), "r1"), "alice"),
              StatusIs(absl::StatusCode::kFailedPrecondition,
                       HasSubstr("request_id \"r1\" was already used for a CreateIdentity")));
  EXPECT_THAT(
      api_->BindIdentity(Bind("aws", "team-a", Owner("c2", kOwnerUid1), "bind-1"), "alice"),
      StatusIs(absl::StatusCode::kFailedPrecondition, HasSubstr("other fields differ")));
  EXPECT_EQ(store_->HeadSeq(), head);
}

// A retry of an answered create or update is replayed as it was decided: the access review
// is not run again, so a retry after the caller lost its access (or with lists in another
// order) still gets the answer instead of PERMISSION_DENIED.
TEST_F(IdentityApiTest, ARetryOfAnAnsweredRequestIsReplayedWithoutAnotherReview) {
  ASSERT_OK_AND_ASSIGN(
      v1::IdentityChangeResponse created,
      api_->CreateIdentity(Create("aws", Spec("aws", {"team-a", "team-b"}), "r1"), "alice"));
  ASSERT_OK_AND_ASSIGN(
      v1::IdentityChangeResponse widened,
      api_->UpdateIdentity(Update("aws", Spec("aws", {"team-a", "team-b", "team-c"}), "r2"),
                           "alice"));
  ASSERT_GT(widened.seq(), created.seq());
  const int64_t head = store_->HeadSeq();
  const size_t reviews = reviewer_.reviews().size();
  reviewer_.set_allowed(false);

  ASSERT_OK_AND_ASSIGN(
      v1::IdentityChangeResponse created_again,
      api_->CreateIdentity(Create("aws", Spec("aws", {"team-b", "team-a"}), "r1"), "alice"));
  EXPECT_TRUE(created_again.replayed());
  EXPECT_EQ(created_again.seq(), created.seq());
  ASSERT_OK_AND_ASSIGN(
      v1::IdentityChangeResponse widened_again,
      api_->UpdateIdentity(Update("aws", Spec("aws", {"team-c", "team-a", "team-b"}), "r2"),
                           "alice"));
  EXPECT_TRUE(widened_again.replayed());
  EXPECT_EQ(widened_again.seq(), widened.seq());
  EXPECT_EQ(reviewer_.reviews().size(), reviews);
  EXPECT_EQ(store_->HeadSeq(), head);

  // A new request is reviewed and refused.
  EXPECT_THAT(
      api_->UpdateIdentity(Update("aws", Spec("aws", {"team-a", "team-b", "team-d"}), "r3"),
                           "alice"),
      StatusIs(absl::StatusCode::kPermissionDenied));
}

TEST_F(IdentityApiTest, GetIsNotFoundForNeverCreatedAndDeletedIdentities) {
  v1::GetIdentityRequest get;
  get.set_name("aws");
  EXPECT_THAT(api_->GetIdentity(get), StatusIs(absl::StatusCode::kNotFound, HasSubstr("aws")));
  CreateAs("aws", {"team-a"});
  ASSERT_OK(api_->GetIdentity(get));

  v1::DeleteIdentityRequest del;
  del.set_request_id("del");
  del.set_name("aws");
  ASSERT_OK_AND_ASSIGN(v1::IdentityChangeResponse deleted, api_->DeleteIdentity(del, "alice"));
  EXPECT_EQ(deleted.identity().phase(), v1::IdentityState::PHASE_DELETED);
  EXPECT_THAT(api_->GetIdentity(get), StatusIs(absl::StatusCode::kNotFound));

  v1::ListIdentitiesRequest list;
  ASSERT_OK_AND_ASSIGN(v1::ListIdentitiesResponse active, api_->ListIdentities(list));
  EXPECT_THAT(active.identities(), IsEmpty());
  list.set_include_deleted(true);
  ASSERT_OK_AND_ASSIGN(v1::ListIdentitiesResponse all, api_->ListIdentities(list));
  ASSERT_THAT(all.identities(), SizeIs(1));
  EXPECT_EQ(all.identities(0).name(), "aws");
  EXPECT_EQ(all.seq(), store_->HeadSeq());
}

TEST_F(IdentityApiTest, ListMirrorsFiltersAndTellsWhetherEachMirrorIsCurrent) {
  CreateAs("aws", {"team-a", "team-b"});
  CreateAs("gcp", {"team-a"});
  ASSERT_OK(api_->BindIdentity(Bind("aws", "team-a", Owner("c1", kOwnerUid1), "b1"), "alice"));
  ASSERT_OK(api_->BindIdentity(Bind("aws", "team-b", Owner("c2", kOwnerUid2), "b2"), "alice"));
  ASSERT_OK(api_->BindIdentity(Bind("gcp", "team-a", Owner("c3", kOwnerUid3), "b3"), "alice"));
  // aws's source is at fingerprint A: team-a holds it, team-b still holds B. gcp's source was not
  // observed yet, so its mirror cannot be current.
  kubebridge::RecordSourceObserved source;
  source.found = true;
  source.source_fingerprint = kFingerprintA;
  source.keys = {"TOKEN"};
  Outcomes("aws", {source, Written("aws", "team-a", kFingerprintA),
                   Written("aws", "team-b", kFingerprintB)});
  Outcomes("gcp", {Written("gcp", "team-a", kFingerprintB)});
  ASSERT_TRUE(projector_->WaitForSeq(store_->HeadSeq(), absl::Seconds(10)));

  auto list = [&](const std::string& identity, const std::string& ns) {
    v1::ListMirrorsRequest request;
    request.set_identity(identity);
    request.set_namespace_(ns);
    absl::StatusOr<v1::ListMirrorsResponse> response = api_->ListMirrors(request);
    EXPECT_TRUE(response.ok()) << response.status();
    std::vector<std::string> names;
    for (const v1::MirrorView& m : response->mirrors()) {
      names.push_back(m.identity() + "/" + m.namespace_() + (m.current() ? " current" : ""));
    }
    return names;
  };
  EXPECT_THAT(list("", ""), ElementsAre("aws/team-a current", "aws/team-b", "gcp/team-a"));
  EXPECT_THAT(list("aws", ""), ElementsAre("aws/team-a current", "aws/team-b"));
  EXPECT_THAT(list("", "team-a"), ElementsAre("aws/team-a current", "gcp/team-a"));
  EXPECT_THAT(list("gcp", "team-b"), IsEmpty());

  v1::ListMirrorsRequest request;
  request.set_identity("aws");
  request.set_namespace_("team-a");
  ASSERT_OK_AND_ASSIGN(v1::ListMirrorsResponse one, api_->ListMirrors(request));
  ASSERT_THAT(one.mirrors(), SizeIs(1));
  const v1::MirrorView& view = one.mirrors(0);
  EXPECT_EQ(view.secret().name(), "captf-creds-aws");
  EXPECT_EQ(view.secret().uid(), "uid-aws-team-a");
  EXPECT_EQ(view.source_fingerprint(), kFingerprintA);
  EXPECT_EQ(view.source_hash(), "");
  EXPECT_EQ(one.seq(), store_->HeadSeq());
  // The conditions are the namespace's, as the identity reports them.
  const std::optional<v1::IdentityState> aws = projector_->GetIdentity("aws");
  ASSERT_TRUE(aws.has_value());
  const v1::IdentityNamespaceState& ns = aws->namespaces(0);
  EXPECT_EQ(view.identity_allowed().SerializeAsString(), ns.identity_allowed().SerializeAsString());
  EXPECT_EQ(view.credentials_mirrored().SerializeAsString(),
            ns.credentials_mirrored().SerializeAsString());
  EXPECT_EQ(view.identity_allowed().type(), "IdentityAllowed");
  EXPECT_EQ(view.credentials_mirrored().type(), "CredentialsMirrored");
  EXPECT_EQ(view.credentials_mirrored().reason(), "Mirrored");
}

TEST_F(IdentityApiTest, ListMirrorsRefusesBadFilters) {
  v1::ListMirrorsRequest request;
  request.set_identity("Not_Valid");
  EXPECT_THAT(api_->ListMirrors(request),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("identity")));
  request.set_identity("");
  request.set_namespace_("a.b");
  EXPECT_THAT(api_->ListMirrors(request),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("namespace")));
}

}  // namespace identity_api_test
}  // namespace credledger::service
