// Tests of reading Flux objects into release statuses (docs/reports.md, "Release phases"
// and "The agent"), driven by OCIRepository (source.toolkit.fluxcd.io/v1) and HelmRelease
// (helm.toolkit.fluxcd.io/v2) objects in the shape current Flux controllers write them, one
// folder per situation under test/testdata/flux.
#include "kubebridge/agent/flux_release.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "absl/time/time.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "projections/proto_time.h"
#include "test/support/status_matchers.h"

namespace credledger::kubebridge {
namespace flux_release_test {

using ::credledger::testing::StatusIs;
using ::testing::ElementsAre;
using ::testing::ElementsAreArray;
using ::testing::HasSubstr;

const std::filesystem::path kDir = KUBEBRIDGE_FLUX_TESTDATA_DIR;

// The object in `file` of folder `scenario`, or null when the file does not exist.
nlohmann::json Fixture(const std::string& scenario, const std::string& file) {
  std::ifstream in(kDir / scenario / file);
  if (!in) return nullptr;
  std::stringstream text;
  text << in.rdbuf();
  nlohmann::json object = nlohmann::json::parse(text.str(), nullptr, /*allow_exceptions=*/false);
  EXPECT_FALSE(object.is_discarded()) << scenario << "/" << file;
  return object;
}

nlohmann::json Source(const std::string& scenario) {
  return Fixture(scenario, "ocirepository.json");
}
nlohmann::json Helm(const std::string& scenario) { return Fixture(scenario, "helmrelease.json"); }

// The items lists of the pair in `scenario` (an absent file gives an empty list).
std::pair<nlohmann::json, nlohmann::json> Lists(const std::vector<std::string>& scenarios) {
  nlohmann::json sources = nlohmann::json::array();
  nlohmann::json helms = nlohmann::json::array();
  for (const std::string& scenario : scenarios) {
    if (nlohmann::json s = Source(scenario); !s.is_null()) sources.push_back(s);
    if (nlohmann::json h = Helm(scenario); !h.is_null()) helms.push_back(h);
  }
  return {sources, helms};
}

std::vector<std::string> Types(
    const google::protobuf::RepeatedPtrField<v1::ReportCondition>& conditions) {
  std::vector<std::string> types;
  for (const v1::ReportCondition& c : conditions) types.push_back(c.type());
  return types;
}

absl::Time Rfc3339(const std::string& text) {
  absl::Time t;
  std::string error;
  EXPECT_TRUE(absl::ParseTime(absl::RFC3339_full, text, &t, &error)) << error;
  return t;
}

// --- One release per situation ---

struct Scenario {
  std::string folder;
  v1::ReleasePhase phase;
  std::string revision;
  std::vector<std::string> source_types;  // current source conditions, in order
  std::vector<std::string> helm_types;    // current HelmRelease conditions, in order
  bool verified = false;
  bool rolled_back = false;
  bool test_failed = false;
  bool drifted = false;
};

class FluxScenarioTest : public ::testing::TestWithParam<Scenario> {};

TEST_P(FluxScenarioTest, ReleaseStatusFromThePair) {
  const Scenario& want = GetParam();
  auto [sources, helms] = Lists({want.folder});
  ASSERT_OK_AND_ASSIGN(std::vector<v1::ReleaseStatus> releases, ReleasesFromFlux(sources, helms));
  ASSERT_EQ(releases.size(), 1u);
  const v1::ReleaseStatus& release = releases[0];
  EXPECT_EQ(release.name(), want.folder);
  EXPECT_EQ(release.namespace_(), "demo");
  EXPECT_EQ(projections::PhaseName(release.phase()), projections::PhaseName(want.phase));
  EXPECT_EQ(release.revision(), want.revision);
  EXPECT_THAT(Types(release.source_conditions()), ElementsAreArray(want.source_types));
  EXPECT_THAT(Types(release.helm_conditions()), ElementsAreArray(want.helm_types));

  // The rollups derive the flags from the reported (current) conditions.
  const v1::ReleaseFlags flags =
      projections::DeriveFlags(release.source_conditions(), release.helm_conditions());
  EXPECT_EQ(flags.verified(), want.verified);
  EXPECT_EQ(flags.rolled_back(), want.rolled_back);
  EXPECT_EQ(flags.test_failed(), want.test_failed);
  EXPECT_EQ(flags.drifted(), want.drifted);
}

const std::vector<std::string> kStoredSource = {"Ready", "ArtifactInStorage"};

const Scenario kScenarios[] = {
    {.folder = "healthy",
     .phase = v1::RELEASE_PHASE_READY,
     .revision = "1.2.0",
     .source_types = {"Ready", "ArtifactInStorage", "SourceVerified"},
     .helm_types = {"Ready", "Released", "TestSuccess"},
     .verified = true},
    // HelmRelease upgrading generation 2 while status.observedGeneration still says 1; the
    // Released condition of generation 1 is not reported.
    {.folder = "progressing",
     .phase = v1::RELEASE_PHASE_PROGRESSING,
     .revision = "1.2.0",
     .source_types = kStoredSource,
     .helm_types = {"Reconciling", "Ready"}},
    // One install failure of three retries, uninstalled as remediation, retrying.
    {.folder = "install-retrying",
     .phase = v1::RELEASE_PHASE_DEGRADED,
     .revision = "2.0.0",
     .source_types = kStoredSource,
     .helm_types = {"Reconciling", "Ready", "Released", "Remediated"}},
    {.folder = "retries-exhausted",
     .phase = v1::RELEASE_PHASE_FAILED,
     .revision = "3.1.0",
     .source_types = kStoredSource,
     .helm_types = {"Stalled", "Ready", "Released", "Remediated"}},
    // Live at the previous chart (history[0]) after a rollback; retries -1 retry forever.
    {.folder = "rolled-back",
     .phase = v1::RELEASE_PHASE_READY,
     .revision = "1.1.0",
     .source_types = kStoredSource,
     .helm_types = {"Ready", "Released", "Remediated"},
     .rolled_back = true},
    {.folder = "drifted",
     .phase = v1::RELEASE_PHASE_READY,
     .revision = "1.5.2",
     .source_types = kStoredSource,
     .helm_types = {"Ready", "Released", "Drifted"},
     .drifted = true},
    {.folder = "test-failed",
     .phase = v1::RELEASE_PHASE_DEGRADED,
     .revision = "1.4.0",
     .source_types = kStoredSource,
     .helm_types = {"Reconciling", "Ready", "Released", "TestSuccess"},
     .test_failed = true},
    // The new tag fails cosign verification; the old artifact's condition is of generation 1.
    {.folder = "source-unverified",
     .phase = v1::RELEASE_PHASE_DEGRADED,
     .revision = "1.0.0",
     .source_types = {"Reconciling", "Ready", "SourceVerified"},
     .helm_types = {"Ready", "Released"}},
    {.folder = "source-stalled",
     .phase = v1::RELEASE_PHASE_FAILED,
     .revision = "",
     .source_types = {"Stalled", "Ready"},
     .helm_types = {"Ready"}},
    // status: {observedGeneration: -1}, no conditions; named by the label only.
    {.folder = "just-created",
     .phase = v1::RELEASE_PHASE_PROGRESSING,
     .revision = "",
     .source_types = {},
     .helm_types = {}},
    // Generation 4 edited after generation 3 stalled and rolled back: nothing current.
    {.folder = "old-generation",
     .phase = v1::RELEASE_PHASE_PROGRESSING,
     .revision = "1.0.0",
     .source_types = kStoredSource,
     .helm_types = {}},
    {.folder = "missing-source",
     .phase = v1::RELEASE_PHASE_PENDING,
     .revision = "2.2.0",
     .source_types = {},
     .helm_types = {"Ready", "Released"}},
};

INSTANTIATE_TEST_SUITE_P(Fixtures, FluxScenarioTest, ::testing::ValuesIn(kScenarios),
                         [](const ::testing::TestParamInfo<Scenario>& info) {
                           return absl::StrReplaceAll(info.param.folder, {{"-", "_"}});
                         });

// --- Half readers ---

TEST(FluxHalfTest, ConditionFieldsAreReadVerbatim) {
  ASSERT_OK_AND_ASSIGN(projections::HelmReleaseHalf half, HelmHalfFromHelmRelease(Helm("healthy")));
  EXPECT_EQ(half.generation, 1);
  ASSERT_EQ(half.conditions.size(), 3u);
  const v1::ReportCondition& released = half.conditions[1];
  EXPECT_EQ(released.type(), "Released");
  EXPECT_EQ(released.status(), "True");
  EXPECT_EQ(released.reason(), "InstallSucceeded");
  EXPECT_EQ(released.message(),
            "Helm install succeeded for release demo/healthy.v1 with chart healthy@1.2.0");
  EXPECT_EQ(released.observed_generation(), 1);
  EXPECT_EQ(projections::FromProto(released.last_transition_time()),
            Rfc3339("2026-03-02T09:58:40Z"));
}

TEST(FluxHalfTest, SourceHalfKeepsConditionsOfEveryGeneration) {
  ASSERT_OK_AND_ASSIGN(projections::SourceHalf half,
                       SourceHalfFromOCIRepository(Source("source-unverified")));
  EXPECT_EQ(half.generation, 2);
  std::vector<int64_t> generations;
  for (const v1::ReportCondition& c : half.conditions) {
    generations.push_back(c.observed_generation());
  }
  EXPECT_THAT(generations, ElementsAre(2, 2, 2, 1));
}

TEST(FluxHalfTest, FailureCountsAndRetriesAreRead) {
  ASSERT_OK_AND_ASSIGN(projections::HelmReleaseHalf exhausted,
                       HelmHalfFromHelmRelease(Helm("retries-exhausted")));
  EXPECT_EQ(exhausted.install_failures, 3);
  EXPECT_EQ(exhausted.upgrade_failures, 0);
  EXPECT_EQ(exhausted.install_retries, 2);
  EXPECT_EQ(exhausted.upgrade_retries, 2);

  ASSERT_OK_AND_ASSIGN(projections::HelmReleaseHalf rolled_back,
                       HelmHalfFromHelmRelease(Helm("rolled-back")));
  EXPECT_EQ(rolled_back.upgrade_failures, 2);
  EXPECT_EQ(rolled_back.upgrade_retries, -1);
}

TEST(FluxHalfTest, AbsentRetriesStayUnset) {
  ASSERT_OK_AND_ASSIGN(projections::HelmReleaseHalf half, HelmHalfFromHelmRelease(Helm("drifted")));
  EXPECT_EQ(half.install_retries, std::nullopt);
  EXPECT_EQ(half.upgrade_retries, std::nullopt);
  EXPECT_EQ(half.install_failures, 0);
  EXPECT_EQ(half.upgrade_failures, 0);
}

TEST(FluxHalfTest, AnUntouchedObjectHasNoConditions) {
  ASSERT_OK_AND_ASSIGN(projections::SourceHalf half,
                       SourceHalfFromOCIRepository(Source("just-created")));
  EXPECT_EQ(half.generation, 1);
  EXPECT_TRUE(half.conditions.empty());
}

TEST(FluxHalfTest, NullFieldsCountAsAbsent) {
  nlohmann::json helm = Helm("drifted");
  helm["status"]["conditions"][0]["observedGeneration"] = nullptr;
  helm["status"]["conditions"][0]["lastTransitionTime"] = nullptr;
  helm["spec"]["install"] = {{"remediation", {{"retries", nullptr}}}};
  helm["status"]["installFailures"] = nullptr;
  ASSERT_OK_AND_ASSIGN(projections::HelmReleaseHalf half, HelmHalfFromHelmRelease(helm));
  EXPECT_EQ(half.conditions[0].observed_generation(), 0);
  EXPECT_FALSE(half.conditions[0].has_last_transition_time());
  EXPECT_EQ(half.install_retries, std::nullopt);
  EXPECT_EQ(half.install_failures, 0);
}

// --- Wrong JSON types name the object and the field path ---

struct WrongType {
  std::string name;
  nlohmann::json::json_pointer pointer;
  nlohmann::json value;
  std::string message;
};

class FluxWrongTypeTest : public ::testing::TestWithParam<WrongType> {};

TEST_P(FluxWrongTypeTest, IsInvalidArgumentNamingTheField) {
  nlohmann::json helm = Helm("test-failed");
  helm[GetParam().pointer] = GetParam().value;
  EXPECT_THAT(
      HelmHalfFromHelmRelease(helm),
      StatusIs(absl::StatusCode::kInvalidArgument,
               HasSubstr(absl::StrCat("HelmRelease \"demo/test-failed\": ", GetParam().message))));
  // The pair fails as a whole: a report never carries a half read wrongly.
  auto [sources, helms] = Lists({"test-failed"});
  helms[0] = helm;
  EXPECT_THAT(ReleasesFromFlux(sources, helms), StatusIs(absl::StatusCode::kInvalidArgument));
}

const WrongType kWrongTypes[] = {
    {"Generation", "/metadata/generation"_json_pointer, "3",
     "metadata.generation: want an integer"},
    {"FractionalGeneration", "/metadata/generation"_json_pointer, 3.5,
     "metadata.generation: want an integer"},
    {"HugeGeneration", "/metadata/generation"_json_pointer, uint64_t{1} << 63,
     "metadata.generation: want an integer that fits in 64 bits"},
    {"Status", "/status"_json_pointer, "ready", "status: want an object"},
    {"Conditions",
     "/status/conditions"_json_pointer,
     {{"type", "Ready"}},
     "status.conditions: want an array"},
    {"ConditionEntry", "/status/conditions/1"_json_pointer, "Ready",
     "status.conditions[1]: want an object"},
    {"ConditionType", "/status/conditions/0/type"_json_pointer, 7,
     "status.conditions[0].type: want a string"},
    {"ConditionStatus", "/status/conditions/1/status"_json_pointer, true,
     "status.conditions[1].status: want a string"},
    {"ConditionReason", "/status/conditions/2/reason"_json_pointer, nlohmann::json::array(),
     "status.conditions[2].reason: want a string"},
    {"ConditionMessage", "/status/conditions/3/message"_json_pointer, 1,
     "status.conditions[3].message: want a string"},
    {"ObservedGeneration", "/status/conditions/2/observedGeneration"_json_pointer, "3",
     "status.conditions[2].observedGeneration: want an integer"},
    {"TransitionTimeType", "/status/conditions/0/lastTransitionTime"_json_pointer, 1772456592,
     "status.conditions[0].lastTransitionTime: want a string"},
    {"TransitionTimeFormat", "/status/conditions/0/lastTransitionTime"_json_pointer,
     "2026-03-02 13:03:12", "status.conditions[0].lastTransitionTime: want an RFC 3339 time"},
    {"InstallFailures", "/status/installFailures"_json_pointer, "1",
     "status.installFailures: want an integer"},
    {"UpgradeFailures", "/status/upgradeFailures"_json_pointer, 1.5,
     "status.upgradeFailures: want an integer"},
    {"InstallRetries", "/spec/install/remediation/retries"_json_pointer, "3",
     "spec.install.remediation.retries: want an integer"},
    {"UpgradeRetries", "/spec/upgrade/remediation/retries"_json_pointer, false,
     "spec.upgrade.remediation.retries: want an integer"},
    {"UpgradeSection", "/spec/upgrade"_json_pointer, "rollback", "spec.upgrade: want an object"},
    {"Remediation", "/spec/install/remediation"_json_pointer, nlohmann::json::array({3}),
     "spec.install.remediation: want an object"},
};

INSTANTIATE_TEST_SUITE_P(Fields, FluxWrongTypeTest, ::testing::ValuesIn(kWrongTypes),
                         [](const ::testing::TestParamInfo<WrongType>& info) {
                           return info.param.name;
                         });

TEST(FluxErrorTest, SourceErrorsNameTheOCIRepository) {
  nlohmann::json source = Source("healthy");
  source["status"]["conditions"][2]["observedGeneration"] = "1";
  EXPECT_THAT(SourceHalfFromOCIRepository(source),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("OCIRepository \"demo/healthy\": "
                                 "status.conditions[2].observedGeneration: want an integer")));
}

TEST(FluxErrorTest, AnObjectThatIsNoObjectIsRejected) {
  EXPECT_THAT(SourceHalfFromOCIRepository(nlohmann::json::array()),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("want an object")));
}

TEST(FluxErrorTest, ChartVersionMustBeAString) {
  auto [sources, helms] = Lists({"healthy"});
  helms[0]["status"]["history"][0]["chartVersion"] = 120;
  EXPECT_THAT(ReleasesFromFlux(sources, helms),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("HelmRelease \"demo/healthy\": "
                                 "status.history[0].chartVersion: want a string")));
  helms[0]["status"]["history"] = {{"chartVersion", "1.2.0"}};
  EXPECT_THAT(
      ReleasesFromFlux(sources, helms),
      StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("status.history: want an array")));
}

TEST(FluxErrorTest, ListsMustBeArraysOfObjects) {
  auto [sources, helms] = Lists({"healthy"});
  EXPECT_THAT(
      ReleasesFromFlux(nlohmann::json::object(), helms),
      StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("OCIRepository list: want an array")));
  helms.push_back("helm");
  EXPECT_THAT(ReleasesFromFlux(sources, helms),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("HelmRelease list[1]: want an object")));
}

// --- Release names, pairing and order ---

void SetReleaseKey(nlohmann::json& object, const std::string& map, const std::string& value) {
  object["metadata"][map][kReleaseKey] = value;
}

TEST(ReleaseNameTest, AnnotationWinsOverLabel) {
  nlohmann::json object = Helm("healthy");
  SetReleaseKey(object, "annotations", "from-annotation");
  SetReleaseKey(object, "labels", "from-label");
  EXPECT_EQ(ReleaseNameOf(object), "from-annotation");
}

TEST(ReleaseNameTest, LabelIsTheFallbackForAMissingOrEmptyAnnotation) {
  nlohmann::json object = Helm("healthy");
  SetReleaseKey(object, "labels", "from-label");
  object["metadata"]["annotations"].erase(kReleaseKey);
  EXPECT_EQ(ReleaseNameOf(object), "from-label");
  SetReleaseKey(object, "annotations", "");
  EXPECT_EQ(ReleaseNameOf(object), "from-label");
}

TEST(ReleaseNameTest, NeitherGivesNoName) {
  nlohmann::json object = Helm("healthy");
  object["metadata"].erase("annotations");
  object["metadata"].erase("labels");
  EXPECT_EQ(ReleaseNameOf(object), "");
}

TEST(ReleasesFromFluxTest, ObjectsWithoutAReleaseNameAreSkipped) {
  auto [sources, helms] = Lists({"healthy"});
  helms[0]["metadata"].erase("annotations");
  helms[0]["metadata"].erase("labels");
  ASSERT_OK_AND_ASSIGN(std::vector<v1::ReleaseStatus> releases, ReleasesFromFlux(sources, helms));
  ASSERT_EQ(releases.size(), 1u);
  EXPECT_EQ(releases[0].phase(), v1::RELEASE_PHASE_PENDING);
  EXPECT_THAT(Types(releases[0].source_conditions()),
              ElementsAre("Ready", "ArtifactInStorage", "SourceVerified"));
  EXPECT_TRUE(releases[0].helm_conditions().empty());
  EXPECT_EQ(releases[0].revision(), "");

  sources[0]["metadata"].erase("annotations");
  sources[0]["metadata"].erase("labels");
  ASSERT_OK_AND_ASSIGN(releases, ReleasesFromFlux(sources, helms));
  EXPECT_TRUE(releases.empty());
}

TEST(ReleasesFromFluxTest, PairsByReleaseNameNotObjectName) {
  // rolled-back's OCIRepository is named rolled-back-source; a HelmRelease named like it but
  // claiming another release must not pair with it.
  auto [sources, helms] = Lists({"rolled-back"});
  nlohmann::json stranger = Helm("healthy");
  stranger["metadata"]["name"] = "rolled-back-source";
  SetReleaseKey(stranger, "annotations", "stranger");
  helms.push_back(stranger);
  ASSERT_OK_AND_ASSIGN(std::vector<v1::ReleaseStatus> releases, ReleasesFromFlux(sources, helms));
  ASSERT_EQ(releases.size(), 2u);
  EXPECT_EQ(releases[0].name(), "rolled-back");
  EXPECT_EQ(releases[0].phase(), v1::RELEASE_PHASE_READY);
  EXPECT_EQ(releases[1].name(), "stranger");
  EXPECT_EQ(releases[1].phase(), v1::RELEASE_PHASE_PENDING);
}

TEST(ReleasesFromFluxTest, SameReleaseInAnotherNamespaceIsAnotherRelease) {
  auto [sources, helms] = Lists({"healthy"});
  nlohmann::json other_source = sources[0];
  other_source["metadata"]["namespace"] = "other";
  sources.push_back(other_source);
  ASSERT_OK_AND_ASSIGN(std::vector<v1::ReleaseStatus> releases, ReleasesFromFlux(sources, helms));
  ASSERT_EQ(releases.size(), 2u);
  EXPECT_EQ(releases[0].namespace_(), "demo");
  EXPECT_EQ(releases[0].phase(), v1::RELEASE_PHASE_READY);
  EXPECT_EQ(releases[1].namespace_(), "other");
  EXPECT_EQ(releases[1].phase(), v1::RELEASE_PHASE_PENDING);
}

std::vector<std::string> AllScenarios() {
  std::vector<std::string> folders;
  for (const Scenario& s : kScenarios) folders.push_back(s.folder);
  return folders;
}

TEST(ReleasesFromFluxTest, AllReleasesOrderedByNamespaceThenNameWhateverTheListOrder) {
  std::vector<std::string> folders = AllScenarios();
  std::reverse(folders.begin(), folders.end());
  auto [sources, helms] = Lists(folders);
  nlohmann::json early = Helm("healthy");  // namespace "apps" sorts before "demo"
  early["metadata"]["namespace"] = "apps";
  SetReleaseKey(early, "annotations", "zeta");
  helms.push_back(early);

  ASSERT_OK_AND_ASSIGN(std::vector<v1::ReleaseStatus> releases, ReleasesFromFlux(sources, helms));
  std::vector<std::string> got;
  for (const v1::ReleaseStatus& r : releases) {
    got.push_back(absl::StrCat(r.namespace_(), "/", r.name()));
  }
  std::vector<std::string> want = {"apps/zeta"};
  std::vector<std::string> sorted = AllScenarios();
  std::sort(sorted.begin(), sorted.end());
  for (const std::string& folder : sorted) want.push_back(absl::StrCat("demo/", folder));
  EXPECT_THAT(got, ElementsAreArray(want));

  // Each release of the combined lists equals the one read from its pair alone.
  for (size_t i = 1; i < releases.size(); ++i) {
    auto [s, h] = Lists({releases[i].name()});
    ASSERT_OK_AND_ASSIGN(std::vector<v1::ReleaseStatus> alone, ReleasesFromFlux(s, h));
    ASSERT_EQ(alone.size(), 1u);
    EXPECT_EQ(alone[0].SerializeAsString(), releases[i].SerializeAsString()) << releases[i].name();
  }
}

// --- Two objects of one kind claiming one release ---

class DuplicateClaimTest : public ::testing::Test {
 protected:
  // healthy's pair plus a stalled OCIRepository named `name` claiming the same release.
  std::pair<nlohmann::json, nlohmann::json> WithDuplicate(const std::string& name) {
    auto lists = Lists({"healthy"});
    nlohmann::json duplicate = Source("source-stalled");
    duplicate["metadata"]["name"] = name;
    SetReleaseKey(duplicate, "annotations", "healthy");
    lists.first.push_back(duplicate);
    return lists;
  }
};

TEST_F(DuplicateClaimTest, TheObjectWhoseNameSortsFirstWinsInAnyListOrder) {
  auto [sources, helms] = WithDuplicate("aaa-copy");
  std::vector<std::string> ignored;
  ASSERT_OK_AND_ASSIGN(std::vector<v1::ReleaseStatus> forward,
                       ReleasesFromFlux(sources, helms, &ignored));
  ASSERT_EQ(forward.size(), 1u);
  EXPECT_EQ(forward[0].phase(), v1::RELEASE_PHASE_FAILED);  // aaa-copy is stalled
  EXPECT_THAT(ignored, ElementsAre("OCIRepository \"demo/healthy\" ignored: release "
                                   "\"healthy\" already claimed by OCIRepository "
                                   "\"demo/aaa-copy\""));

  std::reverse(sources.begin(), sources.end());
  ASSERT_OK_AND_ASSIGN(std::vector<v1::ReleaseStatus> backward, ReleasesFromFlux(sources, helms));
  ASSERT_EQ(backward.size(), 1u);
  EXPECT_EQ(backward[0].SerializeAsString(), forward[0].SerializeAsString());
}

TEST_F(DuplicateClaimTest, TheIgnoredObjectIsNotRead) {
  auto [sources, helms] = WithDuplicate("zzz-copy");
  sources[1]["status"]["conditions"] = "not a list";
  std::vector<std::string> ignored;
  ASSERT_OK_AND_ASSIGN(std::vector<v1::ReleaseStatus> releases,
                       ReleasesFromFlux(sources, helms, &ignored));
  ASSERT_EQ(releases.size(), 1u);
  EXPECT_EQ(releases[0].phase(), v1::RELEASE_PHASE_READY);
  ASSERT_EQ(ignored.size(), 1u);
  EXPECT_THAT(ignored[0], HasSubstr("\"demo/zzz-copy\" ignored"));
}

TEST_F(DuplicateClaimTest, DuplicateHelmReleasesAreReportedToo) {
  auto [sources, helms] = Lists({"healthy"});
  nlohmann::json duplicate = Helm("retries-exhausted");
  duplicate["metadata"]["name"] = "healthy-2";
  SetReleaseKey(duplicate, "annotations", "healthy");
  helms.push_back(duplicate);
  std::vector<std::string> ignored;
  ASSERT_OK_AND_ASSIGN(std::vector<v1::ReleaseStatus> releases,
                       ReleasesFromFlux(sources, helms, &ignored));
  ASSERT_EQ(releases.size(), 1u);
  EXPECT_EQ(releases[0].phase(), v1::RELEASE_PHASE_READY);
  EXPECT_EQ(releases[0].revision(), "1.2.0");
  EXPECT_THAT(ignored, ElementsAre(HasSubstr("HelmRelease \"demo/healthy-2\" ignored")));
}

}  // namespace flux_release_test
}  // namespace credledger::kubebridge
