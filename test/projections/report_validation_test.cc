// Report validation (docs/reports.md, "Validation"): each rule has a row that breaks it and the
// field path its error must name.
#include "projections/report_validation.h"

#include <functional>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "projections/proto_time.h"
#include "test/support/status_matchers.h"

namespace credledger::projections {
namespace report_validation_test {

using ::credledger::testing::StatusIs;
using ::testing::HasSubstr;

const absl::Time kNow = absl::FromUnixSeconds(1767323045);  // 2026-01-02T03:04:05Z

v1::ReportCondition Condition(const std::string& type, const std::string& status) {
  v1::ReportCondition c;
  c.set_type(type);
  c.set_status(status);
  c.set_reason("Succeeded");
  c.set_message("ok");
  c.set_observed_generation(2);
  *c.mutable_last_transition_time() = ToProto(kNow - absl::Minutes(3));
  return c;
}

// A report every rule accepts: two releases, two checks, capacity.
v1::TargetReportSpec ValidReport() {
  v1::TargetReportSpec report;
  *report.mutable_last_report_time() = ToProto(kNow);
  for (const char* name : {"cert-manager", "ingress"}) {
    v1::ReleaseStatus* r = report.add_releases();
    r->set_name(name);
    r->set_namespace_("apps");
    r->set_phase(v1::RELEASE_PHASE_READY);
    r->set_revision("1.2.0-abc-7");
    *r->add_source_conditions() = Condition("Ready", "True");
    *r->add_helm_conditions() = Condition("Ready", "True");
    *r->add_helm_conditions() = Condition("helm.toolkit.fluxcd.io/Released", "True");
  }
  for (const char* type : {"DiskSpace", "KernelVersion"}) {
    v1::PreflightCheck* c = report.add_preflight_checks();
    c->set_type(type);
    c->set_status("True");
    c->set_reason("CheckPassed");
  }
  v1::ClusterCapacity* capacity = report.mutable_capacity();
  capacity->set_node_count(3);
  for (const char* resource : {"cpu", "memory", "nvidia.com/gpu"}) {
    v1::ResourceQuantity* q = capacity->add_allocatable();
    q->set_resource(resource);
    q->set_quantity("4");
  }
  *capacity->add_used() = capacity->allocatable(0);
  return report;
}

TEST(ValidateReportContentTest, AcceptsAValidReport) {
  EXPECT_OK(ValidateReportContent(ValidReport(), "spec"));
}

TEST(ValidateReportContentTest, AcceptsAReportWithoutReleasesChecksOrCapacity) {
  v1::TargetReportSpec report;
  *report.mutable_last_report_time() = ToProto(kNow);
  EXPECT_OK(ValidateReportContent(report, "spec"));
}

TEST(ValidateReportContentTest, AcceptsLimitsAtTheirMaximum) {
  v1::TargetReportSpec report = ValidReport();
  while (report.releases_size() < kMaxReleases) {
    v1::ReleaseStatus* r = report.add_releases();
    *r = report.releases(0);
    r->set_name("r" + std::to_string(report.releases_size()));
  }
  while (report.releases(0).helm_conditions_size() < kMaxConditionsPerHalf) {
    *report.mutable_releases(0)->add_helm_conditions() = Condition("Ready", "True");
  }
  report.mutable_preflight_checks(0)->set_message(std::string(kMaxCheckMessageBytes, 'm'));
  report.mutable_preflight_checks(0)->set_reason("A" + std::string(kMaxPascalCaseBytes - 1, 'b'));
  report.mutable_releases(0)->mutable_helm_conditions(0)->set_message(
      std::string(kMaxConditionMessageBytes, 'm'));
  report.mutable_capacity()->mutable_allocatable(0)->set_quantity(
      std::string(kMaxQuantityBytes, '1'));
  EXPECT_OK(ValidateReportContent(report, "spec"));
}

struct Row {
  std::string name;
  std::function<void(v1::TargetReportSpec&)> change;
  std::string message;  // expected substring, starting with the field path
};

std::vector<Row> Rows() {
  auto check = [](v1::TargetReportSpec& r, int i) { return r.mutable_preflight_checks(i); };
  auto release = [](v1::TargetReportSpec& r, int i) { return r.mutable_releases(i); };
  auto helm = [](v1::TargetReportSpec& r, int j) {
    return r.mutable_releases(1)->mutable_helm_conditions(j);
  };
  return {
      {"time missing", [](auto& r) { r.clear_last_report_time(); },
       "spec.lastReportTime: required"},
      {"time out of range", [](auto& r) { r.mutable_last_report_time()->set_nanos(-1); },
       "spec.lastReportTime: seconds"},
      {"check type missing", [&](auto& r) { check(r, 1)->clear_type(); },
       "spec.preflight.checks[1].type: required"},
      {"check type lower case", [&](auto& r) { check(r, 1)->set_type("diskSpace"); },
       "spec.preflight.checks[1].type: \"diskSpace\" is not PascalCase"},
      {"check type with a dash", [&](auto& r) { check(r, 1)->set_type("Disk-Space"); },
       "spec.preflight.checks[1].type: \"Disk-Space\" is not PascalCase"},
      {"check type too long",
       [&](auto& r) { check(r, 0)->set_type("A" + std::string(kMaxPascalCaseBytes, 'b')); },
       "spec.preflight.checks[0].type: 317 bytes; at most 316 allowed"},
      {"check status missing", [&](auto& r) { check(r, 0)->clear_status(); },
       "spec.preflight.checks[0].status: required"},
      {"check status unknown word", [&](auto& r) { check(r, 0)->set_status("true"); },
       "spec.preflight.checks[0].status: \"true\" is not one of True, False, Unknown"},
      {"check reason missing", [&](auto& r) { check(r, 0)->clear_reason(); },
       "spec.preflight.checks[0].reason: required"},
      {"check reason not PascalCase", [&](auto& r) { check(r, 0)->set_reason("Check passed"); },
       "spec.preflight.checks[0].reason: \"Check passed\" is not PascalCase"},
      {"check message too long",
       [&](auto& r) { check(r, 0)->set_message(std::string(kMaxCheckMessageBytes + 1, 'm')); },
       "spec.preflight.checks[0].message: 4097 bytes; at most 4096 allowed"},
      {"duplicate check type", [&](auto& r) { check(r, 1)->set_type("DiskSpace"); },
       "spec.preflight.checks[1].type: \"DiskSpace\" duplicates checks[0]"},
      {"too many checks",
       [](auto& r) {
         while (r.preflight_checks_size() <= kMaxPreflightChecks) {
           *r.add_preflight_checks() = r.preflight_checks(0);
         }
       },
       "spec.preflight.checks: 257 entries; at most 256 allowed"},
      {"release name missing", [&](auto& r) { release(r, 1)->clear_name(); },
       "spec.releases[1].name: required"},
      {"release name not a label", [&](auto& r) { release(r, 1)->set_name("Ingress"); },
       "spec.releases[1].name: \"Ingress\" is not a DNS-1123 label"},
      {"release namespace missing", [&](auto& r) { release(r, 0)->clear_namespace_(); },
       "spec.releases[0].namespace: required"},
      {"release namespace not a label", [&](auto& r) { release(r, 0)->set_namespace_("a.b"); },
       "spec.releases[0].namespace: \"a.b\" is not a DNS-1123 label"},
      {"phase unspecified",
       [&](auto& r) { release(r, 1)->set_phase(v1::RELEASE_PHASE_UNSPECIFIED); },
       "spec.releases[1].phase: required"},
      {"phase out of the enum",
       [&](auto& r) { release(r, 1)->set_phase(static_cast<v1::ReleasePhase>(17)); },
       "spec.releases[1].phase: 17 is not a known phase"},
      {"revision too long",
       [&](auto& r) { release(r, 0)->set_revision(std::string(kMaxRevisionBytes + 1, 'v')); },
       "spec.releases[0].revision: 257 bytes; at most 256 allowed"},
      {"duplicate release",
       [&](auto& r) { *r.add_releases() = r.releases(1); },
       "spec.releases[2].name: release \"apps/ingress\" duplicates releases[1]"},
      {"too many releases",
       [](auto& r) {
         while (r.releases_size() <= kMaxReleases) {
           v1::ReleaseStatus* added = r.add_releases();
           added->set_name("r" + std::to_string(r.releases_size()));
         }
       },
       "spec.releases: 1001 entries; at most 1000 allowed"},
      {"condition type missing", [&](auto& r) { helm(r, 1)->clear_type(); },
       "spec.releases[1].helmConditions[1].type: required"},
      {"condition type starts with a digit", [&](auto& r) { helm(r, 1)->set_type("1Ready"); },
       "spec.releases[1].helmConditions[1].type: \"1Ready\" is not a condition type"},
      {"condition type with a space", [&](auto& r) { helm(r, 0)->set_type("Ready Now"); },
       "spec.releases[1].helmConditions[0].type: \"Ready Now\" is not a condition type"},
      {"condition status", [&](auto& r) { helm(r, 0)->set_status("Maybe"); },
       "spec.releases[1].helmConditions[0].status: \"Maybe\" is not one of True, False"},
      {"source condition status missing",
       [](auto& r) { r.mutable_releases(0)->mutable_source_conditions(0)->clear_status(); },
       "spec.releases[0].sourceConditions[0].status: required"},
      {"condition reason too long",
       [&](auto& r) { helm(r, 0)->set_reason(std::string(kMaxConditionReasonBytes + 1, 'R')); },
       "spec.releases[1].helmConditions[0].reason: 1025 bytes; at most 1024 allowed"},
      {"condition message too long",
       [&](auto& r) { helm(r, 0)->set_message(std::string(kMaxConditionMessageBytes + 1, 'm')); },
       "spec.releases[1].helmConditions[0].message: 32769 bytes; at most 32768 allowed"},
      {"condition observed generation negative",
       [&](auto& r) { helm(r, 0)->set_observed_generation(-1); },
       "spec.releases[1].helmConditions[0].observedGeneration: -1 is negative"},
      {"condition transition time out of range",
       [&](auto& r) { helm(r, 0)->mutable_last_transition_time()->set_seconds(253402300800); },
       "spec.releases[1].helmConditions[0].lastTransitionTime: seconds"},
      {"too many conditions",
       [&](auto& r) {
         while (r.releases(0).source_conditions_size() <= kMaxConditionsPerHalf) {
           *r.mutable_releases(0)->add_source_conditions() = Condition("Ready", "True");
         }
       },
       "spec.releases[0].sourceConditions: 33 entries; at most 32 allowed"},
      {"node count negative", [](auto& r) { r.mutable_capacity()->set_node_count(-1); },
       "spec.capacity.nodeCount: -1 is negative"},
      {"resource name missing",
       [](auto& r) { r.mutable_capacity()->mutable_allocatable(0)->clear_resource(); },
       "spec.capacity.allocatable[0]: required"},
      {"resources out of order",
       [](auto& r) { r.mutable_capacity()->mutable_allocatable(1)->set_resource("a"); },
       "spec.capacity.allocatable[1]: \"a\" follows \"cpu\"; entries are ordered"},
      {"resource twice",
       [](auto& r) { *r.mutable_capacity()->add_used() = r.capacity().used(0); },
       "spec.capacity.used[1]: \"cpu\" follows \"cpu\""},
      {"quantity missing",
       [](auto& r) { r.mutable_capacity()->mutable_used(0)->clear_quantity(); },
       "spec.capacity.used[cpu]: required"},
      {"quantity too long",
       [](auto& r) {
         r.mutable_capacity()->mutable_allocatable(1)->set_quantity(
             std::string(kMaxQuantityBytes + 1, '1'));
       },
       "spec.capacity.allocatable[memory]: 65 bytes; at most 64 allowed"},
      {"too many resources",
       [](auto& r) {
         for (int i = 0; i <= kMaxCapacityResources; ++i) {
           v1::ResourceQuantity* q = r.mutable_capacity()->add_used();
           q->set_resource("example.com/r" + std::to_string(1000 + i));
           q->set_quantity("1");
         }
       },
       "spec.capacity.used: 130 entries; at most 128 allowed"},
  };
}

TEST(ValidateReportContentTest, EachRuleRejectsNamingTheFieldPath) {
  for (const Row& row : Rows()) {
    v1::TargetReportSpec report = ValidReport();
    row.change(report);
    EXPECT_THAT(ValidateReportContent(report, "spec"),
                StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr(row.message)))
        << row.name;
  }
}

TEST(ValidateReportContentTest, FieldPathsStartWithTheCallersPrefix) {
  v1::TargetReportSpec report = ValidReport();
  report.mutable_releases(1)->clear_name();
  EXPECT_THAT(ValidateReportContent(report, "report"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("report.releases[1].name: required")));
}

TEST(ValidateReportContentTest, LongValuesAreCutInMessages) {
  v1::TargetReportSpec report = ValidReport();
  report.mutable_preflight_checks(0)->set_type("x" + std::string(300, 'y'));
  absl::Status status = ValidateReportContent(report, "spec");
  EXPECT_THAT(status, StatusIs(absl::StatusCode::kInvalidArgument,
                               HasSubstr("\"x" + std::string(63, 'y') + "...\" (301 bytes)")));
  EXPECT_LT(status.message().size(), 200u);
}

TEST(ValidateReportTimeTest, ChecksTheTimeAloneAsValidateReportContentDoes) {
  v1::TargetReportSpec report = ValidReport();
  report.mutable_releases(0)->set_name("Not_A_Label");  // not ValidateReportTime's to check
  EXPECT_OK(ValidateReportTime(report, "spec"));
  report.mutable_last_report_time()->set_nanos(-1);
  EXPECT_THAT(ValidateReportTime(report, "report"),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("report.lastReportTime: ")));
  EXPECT_EQ(ValidateReportTime(report, "spec"), ValidateReportContent(report, "spec"));
  report.clear_last_report_time();
  EXPECT_THAT(ValidateReportTime(report, "spec"),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("lastReportTime: required")));
}

TEST(ValidateReportOrderTest, AcceptsTheFirstReportAndLaterOnes) {
  EXPECT_OK(ValidateReportOrder(kNow, std::nullopt, "spec.lastReportTime"));
  EXPECT_OK(ValidateReportOrder(kNow, kNow - absl::Seconds(1), "spec.lastReportTime"));
  // A report from an agent whose clock lags is fine as long as time moves forward.
  EXPECT_OK(
      ValidateReportOrder(kNow - absl::Hours(1), kNow - absl::Hours(2), "spec.lastReportTime"));
}

TEST(ValidateReportOrderTest, RejectsATimeNotLaterThanTheLastAcceptedOne) {
  EXPECT_THAT(
      ValidateReportOrder(kNow, kNow, "spec.lastReportTime"),
      StatusIs(absl::StatusCode::kFailedPrecondition,
               HasSubstr("spec.lastReportTime: 2026-01-02T03:04:05Z is not later than the last "
                         "accepted report's 2026-01-02T03:04:05Z")));
  EXPECT_THAT(ValidateReportOrder(kNow - absl::Milliseconds(500), kNow, "report.lastReportTime"),
              StatusIs(absl::StatusCode::kFailedPrecondition,
                       HasSubstr("report.lastReportTime: 2026-01-02T03:04:04.5Z is not later")));
}

TEST(ValidateReportClockTest, AllowsFiveMinutesAheadOfTheServerClockAndNoMore) {
  EXPECT_OK(ValidateReportClock(kNow + absl::Minutes(5), kNow, "f"));
  EXPECT_FALSE(ReportTimeTooFarAhead(kNow + absl::Minutes(5), kNow));
  // An agent whose clock lags is not refused for it.
  EXPECT_OK(ValidateReportClock(kNow - absl::Hours(1), kNow, "f"));
  EXPECT_TRUE(ReportTimeTooFarAhead(kNow + absl::Minutes(5) + absl::Seconds(1), kNow));
  EXPECT_THAT(
      ValidateReportClock(kNow + absl::Minutes(5) + absl::Seconds(1), kNow, "spec.lastReportTime"),
      StatusIs(absl::StatusCode::kInvalidArgument,
               HasSubstr("spec.lastReportTime: 2026-01-02T03:09:06Z is more than 5m ahead "
                         "of the server's clock (2026-01-02T03:04:05Z)")));
}

}  // namespace report_validation_test
}  // namespace credledger::projections
