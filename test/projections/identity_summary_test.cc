// Tests of the one-line summaries of identity events (docs/mirrors.md, "History"): what each
// kind says, and that hashes appear only as their first 12 hex characters.
#include "projections/identity_summary.h"

#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace credledger::projections {
namespace identity_summary_test {

using ::testing::HasSubstr;
using ::testing::Not;
using v1::Event;

constexpr char kHash[] = "3f2a9c01d4e5b6a7c8d9e0f1a2b3c4d5e6f708192a3b4c5d6e7f8091a2b3c4d5";

v1::OwnerReference Owner() {
  v1::OwnerReference o;
  o.set_api_version("infrastructure.cluster.x-k8s.io/v1beta1");
  o.set_kind("TerraformCluster");
  o.set_name("demo");
  o.set_uid("uid-2");
  return o;
}

v1::IdentitySpec Spec() {
  v1::IdentitySpec spec;
  spec.mutable_secret_ref()->set_namespace_("capi-system");
  spec.mutable_secret_ref()->set_name("aws-creds");
  spec.mutable_allowed_namespaces()->add_list("team-a");
  spec.mutable_allowed_namespaces()->add_list("team-b");
  v1::LabelSelector* sel = spec.mutable_allowed_namespaces()->mutable_selector();
  v1::Label* l = sel->add_match_labels();
  l->set_key("env");
  l->set_value("prod");
  v1::LabelSelectorRequirement* in = sel->add_match_expressions();
  in->set_key("tier");
  in->set_operator_("In");
  in->add_values("gold");
  in->add_values("silver");
  v1::LabelSelectorRequirement* notin = sel->add_match_expressions();
  notin->set_key("zone");
  notin->set_operator_("NotIn");
  notin->add_values("x");
  sel->add_match_expressions()->set_key("gpu");
  sel->mutable_match_expressions(2)->set_operator_("Exists");
  sel->add_match_expressions()->set_key("legacy");
  sel->mutable_match_expressions(3)->set_operator_("DoesNotExist");
  return spec;
}

v1::AccessReview Review(bool allowed) {
  v1::AccessReview r;
  r.set_user("alice");
  r.add_groups("platform");
  r.add_groups("ops");
  r.mutable_secret()->set_namespace_("capi-system");
  r.mutable_secret()->set_name("aws-creds");
  r.set_allowed(allowed);
  return r;
}

struct SummaryCase {
  std::string name;
  Event event;
  std::string summary;
};

std::vector<SummaryCase> Cases() {
  std::vector<SummaryCase> cases;
  auto add = [&](std::string name, std::string summary) -> Event& {
    cases.push_back({std::move(name), Event(), std::move(summary)});
    return cases.back().event;
  };
  const std::string spec_words =
      "source Secret capi-system/aws-creds, allows list team-a, team-b; or selector env=prod, "
      "tier in (gold, silver), zone notin (x), gpu, !legacy";
  {
    Event& e = add("Created", "identity aws created: " + spec_words +
                                  "; access review: user alice (groups platform, ops) may get "
                                  "Secret capi-system/aws-creds");
    e.mutable_identity_created()->set_name("aws");
    *e.mutable_identity_created()->mutable_spec() = Spec();
    *e.mutable_identity_created()->mutable_access_review() = Review(true);
  }
  {
    Event& e = add("CreatedAllowingNothing",
                   "identity aws created: source Secret capi-system/aws-creds, allows no "
                   "namespace; access review: user alice (groups platform, ops) may get Secret "
                   "capi-system/aws-creds");
    e.mutable_identity_created()->set_name("aws");
    *e.mutable_identity_created()->mutable_spec()->mutable_secret_ref() = Spec().secret_ref();
    *e.mutable_identity_created()->mutable_access_review() = Review(true);
  }
  {
    Event& e = add("UpdatedWithReview",
                   "identity updated: " + spec_words +
                       "; access review: user alice (groups platform, ops) may not get Secret "
                       "capi-system/aws-creds");
    *e.mutable_identity_updated()->mutable_spec() = Spec();
    *e.mutable_identity_updated()->mutable_access_review() = Review(false);
  }
  {
    Event& e = add("UpdatedToEverySelector",
                   "identity updated: source Secret capi-system/aws-creds, allows selector {}");
    *e.mutable_identity_updated()->mutable_spec()->mutable_secret_ref() = Spec().secret_ref();
    e.mutable_identity_updated()->mutable_spec()->mutable_allowed_namespaces()->mutable_selector();
  }
  {
    Event& e = add("UpdatedToARegisteredCluster",
                   "identity updated: source Secret capi-system/aws-creds, allows selector {}, "
                   "mirrors in cluster edge-1");
    *e.mutable_identity_updated()->mutable_spec()->mutable_secret_ref() = Spec().secret_ref();
    e.mutable_identity_updated()->mutable_spec()->mutable_allowed_namespaces()->mutable_selector();
    e.mutable_identity_updated()->mutable_spec()->set_cluster("edge-1");
  }
  add("Deleted", "identity deleted").mutable_identity_deleted();
  {
    Event& e = add("Bound",
                   "TerraformCluster demo (infrastructure.cluster.x-k8s.io/v1beta1, uid uid-2) "
                   "bound in namespace team-a, replacing uid uid-1");
    e.mutable_identity_bound()->set_namespace_("team-a");
    *e.mutable_identity_bound()->mutable_owner() = Owner();
    e.mutable_identity_bound()->set_replaced_uid("uid-1");
  }
  {
    Event& e = add("Unbound",
                   "TerraformCluster demo (infrastructure.cluster.x-k8s.io/v1beta1, uid uid-2) "
                   "unbound in namespace team-a");
    e.mutable_identity_unbound()->set_namespace_("team-a");
    *e.mutable_identity_unbound()->mutable_owner() = Owner();
  }
  {
    Event& e = add("SourceFound",
                   "source Secret observed: 2 keys (AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY), "
                   "source 3f2a9c01d4e5");
    e.mutable_source_secret_observed()->set_found(true);
    e.mutable_source_secret_observed()->set_source_hash(kHash);
    e.mutable_source_secret_observed()->add_keys("AWS_ACCESS_KEY_ID");
    e.mutable_source_secret_observed()->add_keys("AWS_SECRET_ACCESS_KEY");
    e.mutable_source_secret_observed()->set_resource_version("4711");
  }
  add("SourceMissing", "source Secret observed: not found").mutable_source_secret_observed();
  {
    Event& e = add("Labels", "labels of namespace team-a observed: env=prod, team=a");
    v1::NamespaceLabelsObserved* o = e.mutable_namespace_labels_observed();
    o->set_namespace_("team-a");
    o->set_found(true);
    o->add_labels()->set_key("env");
    o->mutable_labels(0)->set_value("prod");
    o->add_labels()->set_key("team");
    o->mutable_labels(1)->set_value("a");
  }
  {
    Event& e = add("NoLabels", "labels of namespace team-a observed: none");
    e.mutable_namespace_labels_observed()->set_namespace_("team-a");
    e.mutable_namespace_labels_observed()->set_found(true);
  }
  {
    Event& e = add("NamespaceMissing", "namespace team-a observed: not found");
    e.mutable_namespace_labels_observed()->set_namespace_("team-a");
  }
  {
    Event& e = add("WrittenCreated",
                   "mirror captf-creds-aws written in team-a (created, source 3f2a9c01d4e5, 1 "
                   "owner reference)");
    v1::MirrorWritten* w = e.mutable_mirror_written();
    w->set_namespace_("team-a");
    w->mutable_secret()->set_name("captf-creds-aws");
    w->set_source_hash(kHash);
    *w->add_owners() = Owner();
    w->set_kind(v1::MIRROR_WRITE_KIND_CREATED);
  }
  {
    Event& e = add("WrittenUpdated",
                   "mirror captf-creds-aws written in team-a (updated data, ownerReferences, "
                   "source 3f2a9c01d4e5, 2 owner references)");
    v1::MirrorWritten* w = e.mutable_mirror_written();
    w->set_namespace_("team-a");
    w->mutable_secret()->set_name("captf-creds-aws");
    w->set_source_hash(kHash);
    *w->add_owners() = Owner();
    *w->add_owners() = Owner();
    w->set_kind(v1::MIRROR_WRITE_KIND_UPDATED);
    w->add_changed("data");
    w->add_changed("ownerReferences");
  }
  {
    Event& e = add("WrittenAdopted",
                   "mirror captf-creds-aws written in team-a (adopted as found, source "
                   "3f2a9c01d4e5, 0 owner references)");
    v1::MirrorWritten* w = e.mutable_mirror_written();
    w->set_namespace_("team-a");
    w->mutable_secret()->set_name("captf-creds-aws");
    w->set_source_hash(kHash);
    w->set_kind(v1::MIRROR_WRITE_KIND_ADOPTED);
  }
  {
    Event& e = add("DeletedNotAllowed",
                   "mirror captf-creds-aws deleted from team-b (namespace no longer allowed)");
    e.mutable_mirror_deleted()->set_namespace_("team-b");
    e.mutable_mirror_deleted()->mutable_secret()->set_name("captf-creds-aws");
    e.mutable_mirror_deleted()->set_reason(v1::MIRROR_DELETION_REASON_NAMESPACE_NOT_ALLOWED);
  }
  {
    Event& e =
        add("DeletedUnbound", "mirror captf-creds-aws deleted from team-b (last binding removed)");
    e.mutable_mirror_deleted()->set_namespace_("team-b");
    e.mutable_mirror_deleted()->mutable_secret()->set_name("captf-creds-aws");
    e.mutable_mirror_deleted()->set_reason(v1::MIRROR_DELETION_REASON_UNBOUND);
  }
  {
    Event& e = add("DeletedBoundObjectsGone",
                   "mirror captf-creds-aws deleted from team-b (every bound object gone)");
    e.mutable_mirror_deleted()->set_namespace_("team-b");
    e.mutable_mirror_deleted()->mutable_secret()->set_name("captf-creds-aws");
    e.mutable_mirror_deleted()->set_reason(v1::MIRROR_DELETION_REASON_BOUND_OBJECTS_GONE);
  }
  {
    Event& e = add("BoundObjectGone",
                   "Job plan (batch/v1, uid 6f0c2a8e-5d1b-4c3a-9e7f-0a1b2c3d4e5f) bound in "
                   "namespace team-b is gone (another object holds its name)");
    e.mutable_bound_object_gone()->set_namespace_("team-b");
    v1::OwnerReference* owner = e.mutable_bound_object_gone()->mutable_owner();
    owner->set_api_version("batch/v1");
    owner->set_kind("Job");
    owner->set_name("plan");
    owner->set_uid("6f0c2a8e-5d1b-4c3a-9e7f-0a1b2c3d4e5f");
    e.mutable_bound_object_gone()->set_absence(v1::BOUND_OBJECT_ABSENCE_OTHER_UID);
  }
  {
    Event& e =
        add("DeletedExternally", "mirror captf-creds-aws in team-b deleted outside credledger");
    e.mutable_mirror_deleted_externally()->set_namespace_("team-b");
    e.mutable_mirror_deleted_externally()->mutable_secret()->set_name("captf-creds-aws");
  }
  {
    Event& e = add("FailedConflict",
                   "mirror in team-b failed (conflict): Secret team-b/captf-creds-aws is not a "
                   "mirror of identity aws; rename or remove it");
    e.mutable_mirror_failed()->set_namespace_("team-b");
    e.mutable_mirror_failed()->set_kind(v1::MIRROR_FAILURE_KIND_CONFLICT);
    e.mutable_mirror_failed()->set_message(
        "Secret team-b/captf-creds-aws is not a mirror of identity aws; rename or remove it");
  }
  {
    Event& e = add("FailedSourceMissing",
                   "mirror in team-b failed (source not found): no Secret capi-system/aws-creds");
    e.mutable_mirror_failed()->set_namespace_("team-b");
    e.mutable_mirror_failed()->set_kind(v1::MIRROR_FAILURE_KIND_SOURCE_NOT_FOUND);
    e.mutable_mirror_failed()->set_message("no Secret capi-system/aws-creds");
  }
  {
    Event& e = add("FailedCollision",
                   "mirror in capi-system failed (would overwrite the source): same name");
    e.mutable_mirror_failed()->set_namespace_("capi-system");
    e.mutable_mirror_failed()->set_kind(v1::MIRROR_FAILURE_KIND_SOURCE_COLLISION);
    e.mutable_mirror_failed()->set_message("same name");
  }
  {
    Event& e = add("FailedWrite", "mirror in team-b failed (write failed): secrets is forbidden");
    e.mutable_mirror_failed()->set_namespace_("team-b");
    e.mutable_mirror_failed()->set_kind(v1::MIRROR_FAILURE_KIND_WRITE_FAILED);
    e.mutable_mirror_failed()->set_message("secrets is forbidden");
  }
  return cases;
}

class SummarizeIdentityEventTest : public ::testing::TestWithParam<SummaryCase> {};

TEST_P(SummarizeIdentityEventTest, SaysWhatHappenedInOneSentence) {
  EXPECT_EQ(SummarizeIdentityEvent(GetParam().event), GetParam().summary);
}

INSTANTIATE_TEST_SUITE_P(EveryKind, SummarizeIdentityEventTest, ::testing::ValuesIn(Cases()),
                         [](const auto& info) { return info.param.name; });

TEST(SummarizeIdentityEventHashTest, HashesAppearOnlyAsTheirFirstTwelveHexCharacters) {
  int with_hash = 0;
  for (const SummaryCase& c : Cases()) {
    const std::string summary = SummarizeIdentityEvent(c.event);
    EXPECT_THAT(summary, Not(HasSubstr(std::string(kHash).substr(0, 13)))) << c.name;
    if (summary.find(std::string(kHash).substr(0, 12)) != std::string::npos) ++with_hash;
  }
  EXPECT_EQ(with_hash, 4);  // the found source and the three mirror writes
}

}  // namespace identity_summary_test
}  // namespace credledger::projections
