// The mirror Secret builders, comparisons, source digest and the planner, without a server
// (docs/mirrors.md, "The mirror", "Source hash", "Source fingerprint", "Revocation" and
// "Conflicts and safety").
#include "kubebridge/mirrors/mirror_objects.h"

#include <map>
#include <string>

#include "absl/strings/escaping.h"
#include "absl/strings/match.h"
#include "common/fingerprint_key.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "test/kubebridge/mirrors/mirror_test_objects.h"
#include "test/kubebridge/mirrors/plan_mirrors_fixture.h"
#include "test/support/reference_sha256.h"
#include "test/support/status_matchers.h"

namespace credledger::kubebridge {
namespace mirror_objects_test {

using ::credledger::testing::StatusIs;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::Not;
using Kind = MirrorAction::Kind;

// The bytes a source's data is hashed over, from their description (docs/mirrors.md, "Source
// hash"), independently of projections/: for each key in byte order, 8-byte big-endian
// length and bytes of the key, then of the value.
std::string ReferenceSourceBytes(const std::map<std::string, std::string>& data) {
  std::string encoded;
  auto append = [&](const std::string& bytes) {
    for (int shift = 56; shift >= 0; shift -= 8) {
      encoded.push_back(static_cast<char>((bytes.size() >> shift) & 0xff));
    }
    encoded += bytes;
  };
  for (const auto& [key, value] : data) {
    append(key);
    append(value);
  }
  return encoded;
}

std::string ReferenceSourceHash(const std::map<std::string, std::string>& data) {
  return ::credledger::testing::ReferenceSha256HexPrefix(ReferenceSourceBytes(data), 64);
}

// The fingerprint key of these tests.
const common::FingerprintKey& Key() {
  static const auto* key =
      new common::FingerprintKey(*common::FingerprintKey::FromText(std::string(64, '7')));
  return *key;
}

const nlohmann::json kData = kPlanSourceData;

TEST(MirrorObjectsTest, DesiredMirrorIsAnOpaqueSecretWithOneNonControllerReferencePerOwner) {
  nlohmann::json mirror =
      DesiredMirror("cloud", "team-a", kData, "abc123", {Owner("c1", "u1"), Owner("c2", "u2")});
  nlohmann::json expected = {
      {"apiVersion", "v1"},
      {"kind", "Secret"},
      {"metadata",
       {{"name", "captf-creds-cloud"},
        {"namespace", "team-a"},
        {"labels", {{"captf.io/mirrored", "true"}, {"captf.io/managed", "true"}}},
        {"annotations", {{"captf.io/source-hash", "abc123"}, {"captf.io/identity", "cloud"}}},
        {"ownerReferences", {OwnerJson("c1", "u1"), OwnerJson("c2", "u2")}}}},
      {"type", "Opaque"},
      {"data", kData}};
  EXPECT_EQ(mirror, expected) << mirror.dump(2);
}

TEST(MirrorObjectsTest, DesiredMirrorOfEmptySourceDataHasEmptyData) {
  nlohmann::json mirror = DesiredMirror("cloud", "team-a", nullptr, "h", {});
  EXPECT_EQ(mirror["data"], nlohmann::json::object());
  EXPECT_EQ(mirror["metadata"]["ownerReferences"], nlohmann::json::array());
}

TEST(MirrorObjectsTest, IsMirrorOfNeedsBothLabelsTrueAndTheIdentityAnnotation) {
  const nlohmann::json mirror = DesiredMirror("cloud", "team-a", kData, "h", {});
  EXPECT_TRUE(IsMirrorOf(mirror, "cloud"));
  EXPECT_FALSE(IsMirrorOf(mirror, "other"));
  for (const char* label : {kMirroredLabel, kManagedLabel}) {
    nlohmann::json missing = mirror;
    missing["metadata"]["labels"].erase(label);
    EXPECT_FALSE(IsMirrorOf(missing, "cloud")) << label;
    nlohmann::json other_value = mirror;
    other_value["metadata"]["labels"][label] = "True";
    EXPECT_FALSE(IsMirrorOf(other_value, "cloud")) << label;
  }
  nlohmann::json no_annotation = mirror;
  no_annotation["metadata"].erase("annotations");
  EXPECT_FALSE(IsMirrorOf(no_annotation, "cloud"));
  EXPECT_FALSE(IsMirrorOf({{"metadata", {{"name", "captf-creds-cloud"}}}}, "cloud"));
}

class MirrorChangesTest : public ::testing::Test {
 protected:
  nlohmann::json Live() {
    nlohmann::json live = desired_;
    live["metadata"]["uid"] = "uid-1";
    live["metadata"]["resourceVersion"] = "42";
    live["metadata"]["creationTimestamp"] = "2026-01-01T00:00:00Z";
    return live;
  }
  const nlohmann::json desired_ =
      DesiredMirror("cloud", "team-a", kData, "h1", {Owner("c1", "u1"), Owner("c2", "u2")});
};

TEST_F(MirrorChangesTest, ServerFieldsAndForeignLabelsAndAnnotationsAreNoChange) {
  nlohmann::json live = Live();
  live["metadata"]["labels"]["team"] = "a";
  live["metadata"]["annotations"]["note"] = "kept";
  EXPECT_THAT(MirrorChanges(live, desired_), IsEmpty());
}

TEST_F(MirrorChangesTest, OwnerReferenceOrderIsNoChange) {
  nlohmann::json live = Live();
  live["metadata"]["ownerReferences"] = {OwnerJson("c2", "u2"), OwnerJson("c1", "u1")};
  EXPECT_THAT(MirrorChanges(live, desired_), IsEmpty());
}

TEST_F(MirrorChangesTest, MissingDataEqualsEmptyData) {
  nlohmann::json desired = DesiredMirror("cloud", "team-a", nullptr, "h1", {});
  nlohmann::json live = desired;
  live.erase("data");
  EXPECT_THAT(MirrorChanges(live, desired), IsEmpty());
}

TEST_F(MirrorChangesTest, ReportsEachDifferingPartInOrder) {
  nlohmann::json live = Live();
  live["data"]["user"] = "cm9vdA==";
  live["metadata"]["labels"]["captf.io/managed"] = "false";
  live["metadata"]["annotations"]["captf.io/source-hash"] = "h0";
  live["metadata"]["ownerReferences"] = {OwnerJson("c1", "u1")};
  EXPECT_THAT(MirrorChanges(live, desired_),
              ElementsAre("data", "labels", "annotations", "ownerReferences"));
}

TEST_F(MirrorChangesTest, OwnerReferenceDiffersInAnyField) {
  nlohmann::json controller = Live();
  controller["metadata"]["ownerReferences"][0]["controller"] = true;
  EXPECT_THAT(MirrorChanges(controller, desired_), ElementsAre("ownerReferences"));
  nlohmann::json old_uid = Live();
  old_uid["metadata"]["ownerReferences"][1]["uid"] = "u0";
  EXPECT_THAT(MirrorChanges(old_uid, desired_), ElementsAre("ownerReferences"));
  nlohmann::json extra = Live();
  extra["metadata"]["ownerReferences"].push_back(OwnerJson("c3", "u3"));
  EXPECT_THAT(MirrorChanges(extra, desired_), ElementsAre("ownerReferences"));
}

TEST_F(MirrorChangesTest, MergedForUpdateKeepsForeignMetadataAndTheResourceVersionOnly) {
  nlohmann::json live = Live();
  live["metadata"]["labels"]["team"] = "a";
  live["metadata"]["annotations"]["note"] = "kept";
  live["metadata"]["annotations"]["captf.io/source-hash"] = "h0";
  live["metadata"]["ownerReferences"].push_back(OwnerJson("hand-made", "u9"));
  nlohmann::json merged = MergedForUpdate(live, desired_);

  nlohmann::json expected = desired_;
  expected["metadata"]["resourceVersion"] = "42";
  expected["metadata"]["labels"]["team"] = "a";
  expected["metadata"]["annotations"]["note"] = "kept";
  EXPECT_EQ(merged, expected) << merged.dump(2);
  EXPECT_THAT(MirrorChanges(merged, desired_), IsEmpty());
}

// The hash for the mirror's annotation and the fingerprint for the log are over the same
// bytes; the fingerprint is the key's, and contains neither the hash nor a part of it.
TEST(SourceSecretDigestTest, HashesAndFingerprintsTheDecodedValues) {
  nlohmann::json secret = {{"metadata", {{"namespace", "ops"}, {"name", "src"}}},
                           {"data",
                            {{"user", absl::Base64Escape("admin")},
                             {"password", absl::Base64Escape(std::string("hu\0nter2", 8))},
                             {"empty", ""}}}};
  ASSERT_OK_AND_ASSIGN(SourceDigest digest, SourceSecretDigest(secret, Key()));
  const std::map<std::string, std::string> data = {
      {"user", "admin"}, {"password", std::string("hu\0nter2", 8)}, {"empty", ""}};
  EXPECT_EQ(digest.hash, ReferenceSourceHash(data));
  EXPECT_EQ(digest.fingerprint, Key().Fingerprint(ReferenceSourceBytes(data)));
  EXPECT_THAT(digest.fingerprint, Not(HasSubstr(digest.hash.substr(0, 8))));
  EXPECT_THAT(digest.keys, ElementsAre("empty", "password", "user"));
}

TEST(SourceSecretDigestTest, MissingOrNullDataHashesAsEmptyData) {
  const std::string empty_hash = ::credledger::testing::ReferenceSha256HexPrefix("", 64);
  ASSERT_OK_AND_ASSIGN(SourceDigest missing, SourceSecretDigest({{"metadata", {}}}, Key()));
  EXPECT_EQ(missing.hash, empty_hash);
  EXPECT_THAT(missing.keys, IsEmpty());
  ASSERT_OK_AND_ASSIGN(SourceDigest null_data, SourceSecretDigest({{"data", nullptr}}, Key()));
  EXPECT_EQ(null_data.hash, empty_hash);
}

TEST(SourceSecretDigestTest, MalformedBase64IsRefusedNamingTheKeyButNotTheValue) {
  // Unpadded, trailing bits set, whitespace, and characters outside the alphabet: a lax
  // decoder accepts some of these, which would hash bytes the API never meant.
  for (const char* value : {"c2VjcmV0dmFsdWU", "c2VjcmV0dmFsdWX=", "c2Vj cmV0", "c2V*cmV0"}) {
    nlohmann::json secret = {{"metadata", {{"namespace", "ops"}, {"name", "src"}}},
                             {"data", {{"ok", "YQ=="}, {"token", value}}}};
    absl::StatusOr<SourceDigest> digest = SourceSecretDigest(secret, Key());
    EXPECT_THAT(digest, StatusIs(absl::StatusCode::kDataLoss, HasSubstr("\"token\""))) << value;
    EXPECT_THAT(digest, StatusIs(absl::StatusCode::kDataLoss, HasSubstr("ops/src"))) << value;
    EXPECT_THAT(digest, StatusIs(absl::StatusCode::kDataLoss, Not(HasSubstr(value)))) << value;
  }
}

TEST(SourceSecretDigestTest, NonStringValueOrNonObjectDataIsDataLoss) {
  EXPECT_THAT(SourceSecretDigest({{"data", {{"n", 1}}}}, Key()),
              StatusIs(absl::StatusCode::kDataLoss, HasSubstr("\"n\"")));
  EXPECT_THAT(SourceSecretDigest({{"data", "YQ=="}}, Key()),
              StatusIs(absl::StatusCode::kDataLoss, HasSubstr("data is not an object")));
}

// Planner: identity "cloud" with source ops/cloud-src, allowing the listed namespaces.
using PlanMirrorsTest = PlanMirrorsFixture;

TEST_F(PlanMirrorsTest, BoundAndAllowedWithoutASecretCreatesTheDesiredMirror) {
  Entry("a", {c1_});
  MirrorAction action = PlanOne({});
  EXPECT_EQ(action.kind, Kind::kCreate);
  EXPECT_EQ(action.namespace_name, "a");
  EXPECT_FALSE(action.mirror_gone);
  EXPECT_EQ(action.object, DesiredMirror("cloud", "a", kData, "h1", {c1_}));
  ASSERT_EQ(action.owners.size(), 1u);
  EXPECT_EQ(action.owners[0].uid(), "u1");
}

TEST_F(PlanMirrorsTest, MirrorTheLogHoldsButTheClusterLacksIsRecordedGoneThenCreated) {
  Record(Entry("a", {c1_}), "old", "f1", {c1_});
  MirrorAction action = PlanOne({});
  EXPECT_EQ(action.kind, Kind::kCreate);
  EXPECT_TRUE(action.mirror_gone);
}

TEST_F(PlanMirrorsTest, MirrorAsDesiredAndAsRecordedNeedsNothing) {
  Record(Entry("a", {c1_}), "m1", "f1", {c1_});
  MirrorAction action = PlanOne({{"a", Live("a", "m1", "h1", {c1_})}});
  EXPECT_EQ(action.kind, Kind::kNone);
  EXPECT_FALSE(action.mirror_gone);
}

TEST_F(PlanMirrorsTest, MirrorAsDesiredButUnrecordedOrRecordedDifferentlyIsAdopted) {
  v1::IdentityNamespaceState* entry = Entry("a", {c1_});
  const std::map<std::string, nlohmann::json> existing = {{"a", Live("a", "m1", "h1", {c1_})}};
  MirrorAction unrecorded = PlanOne(existing);
  EXPECT_EQ(unrecorded.kind, Kind::kAdopt);
  EXPECT_EQ(unrecorded.uid, "m1");
  Record(entry, "m0", "f1", {c1_});
  EXPECT_EQ(PlanOne(existing).kind, Kind::kAdopt);
  Record(entry, "m1", "f0", {c1_});
  EXPECT_EQ(PlanOne(existing).kind, Kind::kAdopt);
  Record(entry, "m1", "f1", {});
  EXPECT_EQ(PlanOne(existing).kind, Kind::kAdopt);
}

// After an upgrade the log's record carries the plain hash of a version 1 MirrorWritten, and
// after a key rotation a fingerprint under the old key. The live mirror's annotation is the
// plain hash either way: the mirror is adopted (recorded once more), never rewritten.
TEST_F(PlanMirrorsTest, ARecordWithAPlainHashOrAnotherKeysFingerprintIsAdoptedNotRewritten) {
  v1::IdentityNamespaceState* entry = Entry("a", {c1_});
  const std::map<std::string, nlohmann::json> existing = {{"a", Live("a", "m1", "h1", {c1_})}};
  Record(entry, "m1", "", {c1_});
  entry->mutable_mirror()->set_source_hash("h1");
  MirrorAction plain = PlanOne(existing);
  EXPECT_EQ(plain.kind, Kind::kAdopt);
  EXPECT_THAT(plain.changes, IsEmpty());
  Record(entry, "m1", "f1-under-the-old-key", {c1_});
  EXPECT_EQ(PlanOne(existing).kind, Kind::kAdopt);
  Record(entry, "m1", "f1", {c1_});
  EXPECT_EQ(PlanOne(existing).kind, Kind::kNone);
}

TEST_F(PlanMirrorsTest, RotatedSourceUpdatesDataAndHashKeepingTheResourceVersion) {
  Record(Entry("a", {c1_}), "m1", "f0", {c1_});
  nlohmann::json live = Live("a", "m1", "h0", {c1_});
  live["data"] = {{"user", "b2xk"}};
  MirrorAction action = PlanOne({{"a", live}});
  EXPECT_EQ(action.kind, Kind::kUpdate);
  EXPECT_THAT(action.changes, ElementsAre("data", "annotations"));
  EXPECT_EQ(action.uid, "m1");
  EXPECT_EQ(action.object["metadata"]["resourceVersion"], "7");
  EXPECT_EQ(action.object["data"], kData);
  EXPECT_EQ(action.object["metadata"]["annotations"]["captf.io/source-hash"], "h1");
}

TEST_F(PlanMirrorsTest, ForeignSecretIsAConflictAndNeverWritten) {
  Record(Entry("a", {c1_}), "m1", "f1", {c1_});
  MirrorAction action = PlanOne({{"a", Foreign("a")}});
  EXPECT_EQ(action.kind, Kind::kRecordFailure);
  EXPECT_EQ(action.failure_kind, v1::MIRROR_FAILURE_KIND_CONFLICT);
  EXPECT_THAT(action.message, HasSubstr("\"a/captf-creds-cloud\""));
  EXPECT_THAT(action.message, HasSubstr("rename or remove"));
  EXPECT_TRUE(action.mirror_gone);  // the log's mirror was replaced by someone else's Secret
  EXPECT_TRUE(action.object.is_null());
}

TEST_F(PlanMirrorsTest, MissingSourceIsAFailureAndLeavesTheMirror) {
  Record(Entry("a", {c1_}), "m1", "f1", {c1_});
  source_ = MirrorSource{};
  MirrorAction action = PlanOne({{"a", Live("a", "m1", "h1", {c1_})}});
  EXPECT_EQ(action.kind, Kind::kRecordFailure);
  EXPECT_EQ(action.failure_kind, v1::MIRROR_FAILURE_KIND_SOURCE_NOT_FOUND);
  EXPECT_THAT(action.message, HasSubstr("\"ops/cloud-src\""));
  EXPECT_THAT(action.message, HasSubstr("the mirror is left as it is"));
  EXPECT_FALSE(action.mirror_gone);
}

// Regression: the message said the mirror was left as it is in namespaces that held none.
TEST_F(PlanMirrorsTest, MissingSourceWhereNoMirrorExistsMentionsNone) {
  Entry("a", {c1_});
  source_ = MirrorSource{};
  for (const std::map<std::string, nlohmann::json>& existing :
       {std::map<std::string, nlohmann::json>{}, {{"a", Foreign("a")}}}) {
    MirrorAction action = PlanOne(existing);
    EXPECT_EQ(action.failure_kind, v1::MIRROR_FAILURE_KIND_SOURCE_NOT_FOUND);
    EXPECT_THAT(action.message, HasSubstr("\"ops/cloud-src\""));
    EXPECT_THAT(action.message, Not(HasSubstr("left as it is")));
    EXPECT_THAT(action.message, HasSubstr("no mirror is written until it does"));
  }
}

TEST_F(PlanMirrorsTest, MirrorThatWouldBeTheSourceIsACollisionAndNeverWritten) {
  state_.mutable_spec()->mutable_secret_ref()->set_namespace_("a");
  state_.mutable_spec()->mutable_secret_ref()->set_name("captf-creds-cloud");
  Entry("a", {c1_});
  MirrorAction action = PlanOne({{"a", Foreign("a")}});
  EXPECT_EQ(action.kind, Kind::kRecordFailure);
  EXPECT_EQ(action.failure_kind, v1::MIRROR_FAILURE_KIND_SOURCE_COLLISION);
}

TEST_F(PlanMirrorsTest, SourceLabelledAsOurMirrorIsNeverDeletedWhenUnbound) {
  state_.mutable_spec()->mutable_secret_ref()->set_namespace_("a");
  state_.mutable_spec()->mutable_secret_ref()->set_name("captf-creds-cloud");
  EXPECT_EQ(PlanOne({{"a", Live("a", "s1", "h1", {})}}).kind, Kind::kNone);
}

TEST_F(PlanMirrorsTest, OurMirrorWithoutBindingsIsDeletedAsUnbound) {
  Record(Entry("a", {}), "m1", "f1", {c1_});
  MirrorAction action = PlanOne({{"a", Live("a", "m1", "h1", {c1_})}});
  EXPECT_EQ(action.kind, Kind::kDelete);
  EXPECT_EQ(action.uid, "m1");
  EXPECT_EQ(action.deletion_reason, v1::MIRROR_DELETION_REASON_UNBOUND);
}

TEST_F(PlanMirrorsTest, OurMirrorInANamespaceTheStateDoesNotKnowIsDeletedButForeignOnesAreNot) {
  std::vector<MirrorAction> plan =
      PlanMirrors(state_, {{"x", Live("x", "m9", "h1", {})}, {"y", Foreign("y")}}, source_, {});
  ASSERT_EQ(plan.size(), 2u);
  EXPECT_EQ(plan[0].namespace_name, "x");
  EXPECT_EQ(plan[0].kind, Kind::kDelete);
  EXPECT_EQ(plan[0].deletion_reason, v1::MIRROR_DELETION_REASON_UNBOUND);
  EXPECT_EQ(plan[1].namespace_name, "y");
  EXPECT_EQ(plan[1].kind, Kind::kNone);
}

TEST_F(PlanMirrorsTest, BoundButNoLongerListedLosesItsMirror) {
  Record(Entry("d", {c1_}), "m1", "f1", {c1_});
  MirrorAction action = PlanOne({{"d", Live("d", "m1", "h1", {c1_})}});
  EXPECT_EQ(action.kind, Kind::kDelete);
  EXPECT_EQ(action.deletion_reason, v1::MIRROR_DELETION_REASON_NAMESPACE_NOT_ALLOWED);
}

TEST_F(PlanMirrorsTest, NotAllowedForeignSecretIsNeitherTouchedNorAConflict) {
  Entry("d", {c1_});
  EXPECT_EQ(PlanOne({{"d", Foreign("d")}}).kind, Kind::kNone);
}

TEST_F(PlanMirrorsTest, UnknownLabelsUnderASelectorDeleteNothing) {
  v1::Label* match =
      state_.mutable_spec()->mutable_allowed_namespaces()->mutable_selector()->add_match_labels();
  match->set_key("env");
  match->set_value("dev");
  v1::IdentityNamespaceState* entry = Entry("d", {c1_});
  Record(entry, "m1", "f1", {c1_});
  const std::map<std::string, nlohmann::json> existing = {{"d", Live("d", "m1", "h1", {c1_})}};
  EXPECT_EQ(PlanOne(existing).kind, Kind::kNone);

  entry->set_labels_observed(true);
  entry->set_namespace_found(true);
  v1::Label* label = entry->add_labels();
  label->set_key("env");
  label->set_value("prod");
  EXPECT_EQ(PlanOne(existing).kind, Kind::kDelete);
  label->set_value("dev");
  EXPECT_EQ(PlanOne(existing).kind, Kind::kNone);
}

TEST_F(PlanMirrorsTest, RecordedMirrorGoneWhereNoneIsWantedIsOnlyRecorded) {
  Record(Entry("d", {c1_}), "m1", "f1", {c1_});
  MirrorAction action = PlanOne({});
  EXPECT_EQ(action.kind, Kind::kNone);
  EXPECT_TRUE(action.mirror_gone);
}

TEST_F(PlanMirrorsTest, OneActionPerNamespaceInNamespaceOrder) {
  Entry("c", {c1_});
  Entry("a", {c1_});
  std::vector<MirrorAction> plan =
      PlanMirrors(state_, {{"b", Live("b", "m2", "h1", {})}}, source_, {});
  ASSERT_EQ(plan.size(), 3u);
  EXPECT_EQ(plan[0].namespace_name, "a");
  EXPECT_EQ(plan[1].namespace_name, "b");
  EXPECT_EQ(plan[2].namespace_name, "c");
  EXPECT_EQ(plan[0].kind, Kind::kCreate);
  EXPECT_EQ(plan[1].kind, Kind::kDelete);
  EXPECT_EQ(plan[2].kind, Kind::kCreate);
}

}  // namespace mirror_objects_test
}  // namespace credledger::kubebridge
