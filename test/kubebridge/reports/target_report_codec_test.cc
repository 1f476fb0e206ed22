// TargetReport JSON <-> v1::TargetReportSpec (docs/reports.md, "TargetReport").
#include "kubebridge/reports/target_report_codec.h"

#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "google/protobuf/util/message_differencer.h"
#include "gtest/gtest.h"
#include "kubebridge/credentials/agent_objects.h"
#include "projections/proto_time.h"
#include "test/support/status_matchers.h"

namespace credledger::kubebridge {
namespace target_report_codec_test {

using ::credledger::testing::StatusIs;
using ::google::protobuf::util::MessageDifferencer;
using ::testing::HasSubstr;
using json = nlohmann::json;

// A TargetReport as an agent writes it, with fields credledger does not know.
json AgentReport() {
  return json::parse(R"({
    "apiVersion": "solar.opendefense.cloud/v1alpha1",
    "kind": "TargetReport",
    "metadata": {"name": "edge-1", "namespace": "demo", "resourceVersion": "42"},
    "spec": {
      "lastReportTime": "2026-01-02T03:04:05Z",
      "bootstrapVersion": 7,
      "releases": [
        {"name": "ingress", "namespace": "apps", "phase": "Ready", "revision": "1.2.0-ab-3",
         "sourceConditions": [
           {"type": "Ready", "status": "True", "reason": "Succeeded",
            "message": "stored artifact", "observedGeneration": 2,
            "lastTransitionTime": "2026-01-02T03:00:00Z"}],
         "helmConditions": [
           {"type": "Ready", "status": "True", "reason": "UpgradeSucceeded", "message": "ok",
            "observedGeneration": 3, "lastTransitionTime": "2026-01-02T03:01:00Z"},
           {"type": "Released", "status": "True", "reason": "UpgradeSucceeded",
            "message": "", "lastTransitionTime": "2026-01-02T03:01:00Z"}]},
        {"name": "monitoring", "namespace": "apps", "phase": "Pending"}
      ],
      "preflight": {"checks": [
        {"type": "DiskSpace", "status": "False", "reason": "BelowMinimum",
         "message": "3Gi free"},
        {"type": "KernelVersion", "status": "True", "reason": "Supported"}]},
      "capacity": {"nodeCount": 3,
                   "allocatable": {"memory": "16Gi", "cpu": "7500m", "pods": 330},
                   "used": {"cpu": "1200m"}}
    },
    "status": {"anything": true}
  })");
}

v1::ReportCondition Condition(const std::string& type, const std::string& reason,
                              const std::string& message, int64_t generation,
                              const std::string& time) {
  v1::ReportCondition c;
  c.set_type(type);
  c.set_status("True");
  c.set_reason(reason);
  c.set_message(message);
  c.set_observed_generation(generation);
  absl::Time t;
  EXPECT_TRUE(ParseKubeTime(time, &t));
  *c.mutable_last_transition_time() = projections::ToProto(t);
  return c;
}

v1::ResourceQuantity Quantity(const std::string& resource, const std::string& quantity) {
  v1::ResourceQuantity q;
  q.set_resource(resource);
  q.set_quantity(quantity);
  return q;
}

// AgentReport() written out by hand as the spec it stands for.
v1::TargetReportSpec ExpectedSpec() {
  v1::TargetReportSpec spec;
  spec.mutable_last_report_time()->set_seconds(1767323045);  // 2026-01-02T03:04:05Z
  v1::ReleaseStatus* ingress = spec.add_releases();
  ingress->set_name("ingress");
  ingress->set_namespace_("apps");
  ingress->set_phase(v1::RELEASE_PHASE_READY);
  ingress->set_revision("1.2.0-ab-3");
  *ingress->add_source_conditions() =
      Condition("Ready", "Succeeded", "stored artifact", 2, "2026-01-02T03:00:00Z");
  *ingress->add_helm_conditions() =
      Condition("Ready", "UpgradeSucceeded", "ok", 3, "2026-01-02T03:01:00Z");
  *ingress->add_helm_conditions() =
      Condition("Released", "UpgradeSucceeded", "", 0, "2026-01-02T03:01:00Z");
  v1::ReleaseStatus* monitoring = spec.add_releases();
  monitoring->set_name("monitoring");
  monitoring->set_namespace_("apps");
  monitoring->set_phase(v1::RELEASE_PHASE_PENDING);
  v1::PreflightCheck* disk = spec.add_preflight_checks();
  disk->set_type("DiskSpace");
  disk->set_status("False");
  disk->set_reason("BelowMinimum");
  disk->set_message("3Gi free");
  v1::PreflightCheck* kernel = spec.add_preflight_checks();
  kernel->set_type("KernelVersion");
  kernel->set_status("True");
  kernel->set_reason("Supported");
  v1::ClusterCapacity* capacity = spec.mutable_capacity();
  capacity->set_node_count(3);
  *capacity->add_allocatable() = Quantity("cpu", "7500m");
  *capacity->add_allocatable() = Quantity("memory", "16Gi");
  *capacity->add_allocatable() = Quantity("pods", "330");
  *capacity->add_used() = Quantity("cpu", "1200m");
  return spec;
}

void ExpectEqual(const v1::TargetReportSpec& actual, const v1::TargetReportSpec& expected) {
  std::string diff;
  MessageDifferencer differencer;
  differencer.ReportDifferencesToString(&diff);
  EXPECT_TRUE(differencer.Compare(expected, actual)) << diff;
}

TEST(DecodeTargetReportTest, DecodesEveryFieldAndOrdersResourcesByName) {
  ASSERT_OK_AND_ASSIGN(std::optional<v1::TargetReportSpec> spec,
                       DecodeTargetReport(AgentReport()));
  ASSERT_TRUE(spec.has_value());
  ExpectEqual(*spec, ExpectedSpec());
}

TEST(DecodeTargetReportTest, WithoutLastReportTimeThereIsNoReportYet) {
  json pre_created = TargetReportObject("demo", "edge-1");
  ASSERT_OK_AND_ASSIGN(std::optional<v1::TargetReportSpec> spec,
                       DecodeTargetReport(pre_created));
  EXPECT_FALSE(spec.has_value());

  json no_spec = AgentReport();
  no_spec.erase("spec");
  ASSERT_OK_AND_ASSIGN(spec, DecodeTargetReport(no_spec));
  EXPECT_FALSE(spec.has_value());

  // Go writes a zero metav1.Time as null; the rest is not looked at.
  json null_time = AgentReport();
  null_time["spec"]["lastReportTime"] = nullptr;
  null_time["spec"]["releases"] = "not even a list";
  ASSERT_OK_AND_ASSIGN(spec, DecodeTargetReport(null_time));
  EXPECT_FALSE(spec.has_value());
}

TEST(DecodeTargetReportTest, NullListsAndObjectsCountAsEmpty) {
  json report = AgentReport();
  report["spec"]["releases"] = nullptr;
  report["spec"]["preflight"] = nullptr;
  report["spec"]["capacity"] = nullptr;
  ASSERT_OK_AND_ASSIGN(std::optional<v1::TargetReportSpec> spec, DecodeTargetReport(report));
  ASSERT_TRUE(spec.has_value());
  EXPECT_EQ(spec->releases_size(), 0);
  EXPECT_EQ(spec->preflight_checks_size(), 0);
  EXPECT_FALSE(spec->has_capacity());
}

TEST(DecodeTargetReportTest, AnEmptyPhaseIsUnspecifiedForValidationToReport) {
  json report = AgentReport();
  report["spec"]["releases"][1]["phase"] = "";
  ASSERT_OK_AND_ASSIGN(std::optional<v1::TargetReportSpec> spec, DecodeTargetReport(report));
  EXPECT_EQ(spec->releases(1).phase(), v1::RELEASE_PHASE_UNSPECIFIED);
}

TEST(DecodeTargetReportTest, AcceptsFractionalSecondsAndOffsetsKeepingMicroseconds) {
  json report = AgentReport();
  report["spec"]["lastReportTime"] = "2026-01-02T05:04:05.123456789+02:00";
  ASSERT_OK_AND_ASSIGN(std::optional<v1::TargetReportSpec> spec, DecodeTargetReport(report));
  EXPECT_EQ(spec->last_report_time().seconds(), 1767323045);
  EXPECT_EQ(spec->last_report_time().nanos(), 123456000);
}

struct BadField {
  std::string pointer;  // JSON pointer into the object
  json value;
  std::string message;
};

TEST(DecodeTargetReportTest, RejectsBadValuesNamingTheFullFieldPath) {
  const std::vector<BadField> rows = {
      {"/spec", "x", "spec: expected an object, got string"},
      {"/spec/lastReportTime", "yesterday",
       "spec.lastReportTime: \"yesterday\" is not an RFC 3339 time"},
      {"/spec/lastReportTime", 1767323045, "spec.lastReportTime: expected a string, got number"},
      {"/spec/releases", json::object(), "spec.releases: expected an array, got object"},
      {"/spec/releases/1", "monitoring", "spec.releases[1]: expected an object, got string"},
      {"/spec/releases/1/name", 5, "spec.releases[1].name: expected a string, got number"},
      {"/spec/releases/1/phase", "Running",
       "spec.releases[1].phase: \"Running\" is not one of Pending, Progressing, Ready, "
       "Degraded, Failed"},
      {"/spec/releases/1/phase", "ready", "spec.releases[1].phase: \"ready\" is not one of"},
      {"/spec/releases/1/phase", "Re\x1b[2Jady",
       "spec.releases[1].phase: \"Re\\x1b[2Jady\" is not one of"},
      {"/spec/lastReportTime", std::string(300, '9'),
       "spec.lastReportTime: \"" + std::string(64, '9') +
           "...\" (300 bytes) is not an RFC 3339 time"},
      {"/spec/releases/0/revision", true,
       "spec.releases[0].revision: expected a string, got boolean"},
      {"/spec/releases/0/helmConditions/1/lastTransitionTime", "2026-13-01T00:00:00Z",
       "spec.releases[0].helmConditions[1].lastTransitionTime: \"2026-13-01T00:00:00Z\" is "
       "not an RFC 3339 time"},
      {"/spec/releases/0/sourceConditions/0/observedGeneration", "2",
       "spec.releases[0].sourceConditions[0].observedGeneration: expected an integer, got "
       "string"},
      {"/spec/releases/0/sourceConditions/0/observedGeneration", 2.5,
       "spec.releases[0].sourceConditions[0].observedGeneration: expected an integer"},
      {"/spec/releases/0/sourceConditions/0/observedGeneration", 18446744073709551615u,
       "spec.releases[0].sourceConditions[0].observedGeneration: 18446744073709551615 is out "
       "of range"},
      {"/spec/releases/0/helmConditions", "Ready",
       "spec.releases[0].helmConditions: expected an array, got string"},
      {"/spec/preflight", json::array(), "spec.preflight: expected an object, got array"},
      {"/spec/preflight/checks/0/reason", json::array(),
       "spec.preflight.checks[0].reason: expected a string, got array"},
      {"/spec/capacity", 3, "spec.capacity: expected an object, got number"},
      {"/spec/capacity/nodeCount", 3000000000,
       "spec.capacity.nodeCount: 3000000000 is out of range [-2147483648, 2147483647]"},
      {"/spec/capacity/allocatable", json::array(),
       "spec.capacity.allocatable: expected an object, got array"},
      {"/spec/capacity/used/cpu", 1.5,
       "spec.capacity.used[cpu]: expected a quantity string or an integer, got number"},
  };
  for (const BadField& row : rows) {
    json report = AgentReport();
    report[json::json_pointer(row.pointer)] = row.value;
    EXPECT_THAT(DecodeTargetReport(report),
                StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr(row.message)))
        << row.pointer;
  }
}

TEST(DecodeTargetReportTest, RejectsANonObject) {
  EXPECT_THAT(DecodeTargetReport(json::array()),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("TargetReport: expected an object, got array")));
}

TEST(EncodeTargetReportSpecTest, WritesTheAgentsSpecOmittingEmptyOptionalFields) {
  json expected = AgentReport()["spec"];
  expected.erase("bootstrapVersion");
  expected["capacity"]["allocatable"]["pods"] = "330";
  EXPECT_EQ(EncodeTargetReportSpec(ExpectedSpec()), expected);
}

TEST(EncodeTargetReportSpecTest, AMinimalSpecHasTimeAndAnEmptyReleaseList) {
  v1::TargetReportSpec spec;
  spec.mutable_last_report_time()->set_seconds(1767323045);
  EXPECT_EQ(EncodeTargetReportSpec(spec),
            json::parse(R"({"lastReportTime": "2026-01-02T03:04:05Z", "releases": []})"));
}

TEST(TargetReportCodecTest, DecodingTheEncodedSpecGivesItBack) {
  v1::TargetReportSpec spec = ExpectedSpec();
  spec.mutable_last_report_time()->set_nanos(250000000);  // a fraction survives too
  json object = TargetReportObject("demo", "edge-1");
  object["spec"] = EncodeTargetReportSpec(spec);
  ASSERT_OK_AND_ASSIGN(std::optional<v1::TargetReportSpec> decoded, DecodeTargetReport(object));
  ASSERT_TRUE(decoded.has_value());
  ExpectEqual(*decoded, spec);
  EXPECT_EQ(object["spec"]["lastReportTime"], "2026-01-02T03:04:05.25Z");
}

}  // namespace target_report_codec_test
}  // namespace credledger::kubebridge
