// The ReportService and AuditService rows of the bad-input table. The report limits are
// those of projections/report_validation.h; field paths below "report." use the
// TargetReport's JSON names, as that header specifies.
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "credledger/v1/api.pb.h"
#include "projections/report_validation.h"
#include "test/integration/bad_input_rpc_rows.h"

namespace credledger::testing {
namespace {

using BadKind = BadInputKind;
using BadPushRequest = v1::PushReportRequest;

// A PushReport request for demo/edge-1, valid but for what a row changes.
constexpr char kBadRpcReport[] = R"pb(
  namespace: "demo"
  name: "edge-1"
  request_id: "bad-push"
  report {
    last_report_time { seconds: 1700000000 }
    releases {
      name: "app"
      namespace: "apps"
      phase: RELEASE_PHASE_READY
      revision: "1.0.0"
      source_conditions { type: "Ready" status: "True" reason: "Succeeded" }
      helm_conditions { type: "Ready" status: "True" reason: "Succeeded" }
    }
    preflight_checks { type: "Dns" status: "True" reason: "Resolved" }
    capacity {
      node_count: 3
      allocatable { resource: "cpu" quantity: "8" }
      allocatable { resource: "memory" quantity: "32Gi" }
    }
  })pb";

BadInputRpcRow BadPushRow(BadKind kind, void (*edit)(BadPushRequest&), std::string field,
                          std::vector<std::string> rule) {
  return BadRpcInvalid("ReportService/PushReport", kind,
                       BadRpcBytes<BadPushRequest>(kBadRpcReport, edit), std::move(field),
                       std::move(rule));
}

v1::ReleaseStatus& BadPushRelease(BadPushRequest& r) {
  return *r.mutable_report()->mutable_releases(0);
}

// `count` valid releases "app-<i>" in namespace "apps".
void SetBadPushReleases(BadPushRequest& r, int count) {
  const v1::ReleaseStatus first = BadPushRelease(r);
  r.mutable_report()->clear_releases();
  for (int i = 0; i < count; ++i) {
    v1::ReleaseStatus& release = *r.mutable_report()->add_releases();
    release = first;
    release.set_name(absl::StrCat("app-", i));
  }
}

void AddBadPushReportRows(std::vector<BadInputRpcRow>& rows) {
  const std::string m = "ReportService/PushReport";
  rows.push_back(BadPushRow(BadKind::kEmpty, [](BadPushRequest& r) { r.clear_report(); }, "report",
                            {kBadRpcRequired}));
  rows.push_back(BadPushRow(BadKind::kEmpty,
                            [](BadPushRequest& r) { r.mutable_report()->clear_last_report_time(); },
                            "report.lastReportTime", {kBadRpcRequired}));
  rows.push_back(BadPushRow(BadKind::kEmpty, [](BadPushRequest& r) { r.clear_request_id(); },
                            "request_id", {kBadRpcRequired}));
  rows.push_back(BadPushRow(BadKind::kWrongCharacters,
                            [](BadPushRequest& r) { r.set_name("Edge-1"); }, "name",
                            {kBadRpcNotLabel}));
  rows.push_back(BadPushRow(
      BadKind::kInvalidValue,
      [](BadPushRequest& r) { r.mutable_report()->mutable_last_report_time()->set_nanos(-1); },
      "report.lastReportTime", {"is not a time between years 1 and 9999"}));
  rows.push_back(BadPushRow(BadKind::kInvalidValue,
                            [](BadPushRequest& r) {
                              r.mutable_report()->mutable_last_report_time()->set_seconds(int64_t{1}
                                                                                          << 40);
                            },
                            "report.lastReportTime", {"is not a time between years 1 and 9999"}));
  // A lastReportTime too far ahead of the server's clock is refused too, but the refusal
  // records the clock skew (docs/reports.md, "Clock skew"), so it is no row of this table:
  // report_clock_skew_api_test.cc checks its answer and what it appends.
  // Releases.
  rows.push_back(BadPushRow(BadKind::kWrongCharacters,
                            [](BadPushRequest& r) { BadPushRelease(r).set_name("App"); },
                            "report.releases[0].name", {kBadRpcNotLabel}));
  rows.push_back(BadPushRow(BadKind::kDnsLimit,
                            [](BadPushRequest& r) { BadPushRelease(r).set_name(BadRpcLong(64)); },
                            "report.releases[0].name", {kBadRpcLabelTooLong}));
  rows.push_back(BadPushRow(BadKind::kEmpty,
                            [](BadPushRequest& r) { BadPushRelease(r).clear_namespace_(); },
                            "report.releases[0].namespace", {kBadRpcRequired}));
  rows.push_back(BadPushRow(
      BadKind::kEmpty,
      [](BadPushRequest& r) { BadPushRelease(r).set_phase(v1::RELEASE_PHASE_UNSPECIFIED); },
      "report.releases[0].phase", {kBadRpcRequired}));
  rows.push_back(
      BadPushRow(BadKind::kUnknownEnum,
                 [](BadPushRequest& r) { BadRpcSetEnumNumber(BadPushRelease(r), "phase", 99); },
                 "report.releases[0].phase", {"99 is not a known phase"}));
  rows.push_back(
      BadPushRow(BadKind::kOversized,
                 [](BadPushRequest& r) { BadPushRelease(r).set_revision(BadRpcLong(257)); },
                 "report.releases[0].revision", {"257 bytes; at most 256 allowed"}));
  rows.push_back(BadPushRow(BadKind::kInvalidValue,
                            [](BadPushRequest& r) {
                              SetBadPushReleases(r, 2);
                              BadPushRelease(r).set_name("app-1");
                            },
                            "report.releases[1].name", {"duplicates releases[0]"}));
  rows.push_back(BadPushRow(
      BadKind::kWrongCharacters,
      [](BadPushRequest& r) { BadPushRelease(r).mutable_source_conditions(0)->set_type("1Ready"); },
      "report.releases[0].sourceConditions[0].type", {"is not a condition type"}));
  rows.push_back(BadPushRow(
      BadKind::kInvalidValue,
      [](BadPushRequest& r) { BadPushRelease(r).mutable_helm_conditions(0)->set_status("Maybe"); },
      "report.releases[0].helmConditions[0].status", {"is not one of True, False, Unknown"}));
  rows.push_back(
      BadPushRow(BadKind::kInvalidValue,
                 [](BadPushRequest& r) {
                   BadPushRelease(r).mutable_helm_conditions(0)->set_observed_generation(-1);
                 },
                 "report.releases[0].helmConditions[0].observedGeneration", {"-1 is negative"}));
  rows.push_back(BadPushRow(
      BadKind::kInvalidValue,
      [](BadPushRequest& r) {
        BadPushRelease(r).mutable_source_conditions(0)->mutable_last_transition_time()->set_nanos(
            1'000'000'000);
      },
      "report.releases[0].sourceConditions[0].lastTransitionTime", {"between years 1 and 9999"}));
  // Huge reports: over each limit, and over gRPC's maximum message size.
  rows.push_back(
      BadPushRow(BadKind::kHugeReport,
                 [](BadPushRequest& r) { SetBadPushReleases(r, projections::kMaxReleases + 1); },
                 "report.releases", {"1001 entries; at most 1000 allowed"}));
  rows.push_back(BadPushRow(BadKind::kHugeReport,
                            [](BadPushRequest& r) {
                              SetBadPushReleases(r, projections::kMaxReleases);
                              r.mutable_report()->mutable_releases(999)->set_name("Last");
                            },
                            "report.releases[999].name", {kBadRpcNotLabel}));
  rows.push_back(BadPushRow(
      BadKind::kHugeReport,
      [](BadPushRequest& r) {
        for (int i = 0; i < projections::kMaxConditionsPerHalf; ++i) {
          *BadPushRelease(r).add_source_conditions() = BadPushRelease(r).source_conditions(0);
        }
      },
      "report.releases[0].sourceConditions", {"33 entries; at most 32 allowed"}));
  rows.push_back(BadPushRow(BadKind::kHugeReport,
                            [](BadPushRequest& r) {
                              BadPushRelease(r).mutable_helm_conditions(0)->set_message(
                                  BadRpcLong(projections::kMaxConditionMessageBytes + 1));
                            },
                            "report.releases[0].helmConditions[0].message",
                            {"32769 bytes; at most 32768 allowed"}));
  rows.push_back(BadPushRow(BadKind::kHugeReport,
                            [](BadPushRequest& r) {
                              BadPushRelease(r).mutable_helm_conditions(0)->set_reason(
                                  BadRpcLong(projections::kMaxConditionReasonBytes + 1));
                            },
                            "report.releases[0].helmConditions[0].reason",
                            {"1025 bytes; at most 1024 allowed"}));
  rows.push_back(BadPushRow(BadKind::kHugeReport,
                            [](BadPushRequest& r) {
                              r.mutable_report()->mutable_preflight_checks(0)->set_message(
                                  BadRpcLong(projections::kMaxCheckMessageBytes + 1));
                            },
                            "report.preflight.checks[0].message",
                            {"4097 bytes; at most 4096 allowed"}));
  rows.push_back(BadPushRow(BadKind::kHugeReport,
                            [](BadPushRequest& r) {
                              for (int i = 1; i <= projections::kMaxPreflightChecks; ++i) {
                                v1::PreflightCheck& check =
                                    *r.mutable_report()->add_preflight_checks();
                                check = r.report().preflight_checks(0);
                                check.set_type(absl::StrCat("Check", i));
                              }
                            },
                            "report.preflight.checks", {"257 entries; at most 256 allowed"}));
  rows.push_back(BadPushRow(BadKind::kHugeReport,
                            [](BadPushRequest& r) {
                              auto* used = r.mutable_report()->mutable_capacity()->mutable_used();
                              for (int i = 0; i <= projections::kMaxCapacityResources; ++i) {
                                v1::ResourceQuantity& q = *used->Add();
                                q.set_resource(absl::StrCat("example.com/r", 1000 + i));
                                q.set_quantity("1");
                              }
                            },
                            "report.capacity.used", {"129 entries; at most 128 allowed"}));
  // 5 MiB: over gRPC's default maximum message size of 4 MiB, refused before the service.
  rows.push_back(
      {m,
       BadKind::kHugeReport,
       BadRpcBytes<BadPushRequest>(kBadRpcReport,
                                   [](BadPushRequest& r) {
                                     r.mutable_report()->mutable_preflight_checks(0)->set_message(
                                         BadRpcLong(5 << 20));
                                   }),
       grpc::StatusCode::RESOURCE_EXHAUSTED,
       "",
       {"larger than max"}});
  // Preflight checks and capacity.
  rows.push_back(BadPushRow(
      BadKind::kWrongCharacters,
      [](BadPushRequest& r) { r.mutable_report()->mutable_preflight_checks(0)->set_type("dns"); },
      "report.preflight.checks[0].type", {"is not PascalCase"}));
  rows.push_back(BadPushRow(
      BadKind::kEmpty,
      [](BadPushRequest& r) { r.mutable_report()->mutable_preflight_checks(0)->clear_reason(); },
      "report.preflight.checks[0].reason", {kBadRpcRequired}));
  rows.push_back(BadPushRow(BadKind::kOversized,
                            [](BadPushRequest& r) {
                              r.mutable_report()->mutable_preflight_checks(0)->set_type(
                                  absl::StrCat("A", BadRpcLong(projections::kMaxPascalCaseBytes)));
                            },
                            "report.preflight.checks[0].type", {"317 bytes; at most 316 allowed"}));
  rows.push_back(BadPushRow(BadKind::kInvalidValue,
                            [](BadPushRequest& r) {
                              *r.mutable_report()->add_preflight_checks() =
                                  r.report().preflight_checks(0);
                            },
                            "report.preflight.checks[1].type", {"duplicates checks[0]"}));
  rows.push_back(BadPushRow(
      BadKind::kInvalidValue,
      [](BadPushRequest& r) { r.mutable_report()->mutable_capacity()->set_node_count(-1); },
      "report.capacity.nodeCount", {"-1 is negative"}));
  rows.push_back(BadPushRow(
      BadKind::kInvalidValue,
      [](BadPushRequest& r) {
        r.mutable_report()->mutable_capacity()->mutable_allocatable(1)->set_resource("cpu");
      },
      "report.capacity.allocatable[1]", {"ordered by resource name without duplicates"}));
  rows.push_back(
      BadPushRow(BadKind::kOversized,
                 [](BadPushRequest& r) {
                   r.mutable_report()->mutable_capacity()->mutable_allocatable(0)->set_quantity(
                       BadRpcLong(projections::kMaxQuantityBytes + 1));
                 },
                 "report.capacity.allocatable[cpu]", {"65 bytes; at most 64 allowed"}));
  rows.push_back(
      BadPushRow(BadKind::kEmpty,
                 [](BadPushRequest& r) {
                   r.mutable_report()->mutable_capacity()->mutable_allocatable(0)->clear_resource();
                 },
                 "report.capacity.allocatable[0]", {kBadRpcRequired}));
  // Invalid UTF-8 in a string field: the request does not parse; the service refuses it.
  rows.push_back(
      {m,
       BadKind::kWrongCharacters,
       BadRpcBytes<BadPushRequest>(
           kBadRpcReport, [](BadPushRequest& r) { BadPushRelease(r).set_name("app\xff"); }),
       grpc::StatusCode::INVALID_ARGUMENT,
       "request",
       {kBadRpcUnparsed}});
}

void AddBadBoundReleaseRows(std::vector<BadInputRpcRow>& rows) {
  using B = v1::SetBoundReleasesRequest;
  const std::string m = "ReportService/SetBoundReleases";
  const std::string base = R"pb(namespace: "demo"
                                name: "edge-1"
                                request_id: "bad-bind"
                                releases { name: "app" namespace: "apps" }
                                releases { name: "db" namespace: "apps" })pb";
  rows.push_back(
      BadRpcInvalid(m, BadKind::kWrongCharacters,
                    BadRpcBytes<B>(base, [](B& r) { r.mutable_releases(0)->set_name("App"); }),
                    "releases[0].name", {kBadRpcNotLabel}));
  rows.push_back(BadRpcInvalid(
      m, BadKind::kDnsLimit,
      BadRpcBytes<B>(base, [](B& r) { r.mutable_releases(0)->set_name(BadRpcLong(64)); }),
      "releases[0].name", {kBadRpcLabelTooLong}));
  rows.push_back(
      BadRpcInvalid(m, BadKind::kEmpty,
                    BadRpcBytes<B>(base, [](B& r) { r.mutable_releases(1)->clear_namespace_(); }),
                    "releases[1].namespace", {kBadRpcRequired}));
  rows.push_back(
      BadRpcInvalid(m, BadKind::kInvalidValue,
                    BadRpcBytes<B>(base, [](B& r) { r.mutable_releases(1)->set_name("app"); }),
                    "releases[1]", {"is bound twice (also releases[0])"}));
  rows.push_back(
      BadRpcInvalid(m, BadKind::kWrongCharacters,
                    BadRpcBytes<B>(base, [](B& r) { r.set_bootstrap_version("1.0 rc"); }),
                    "bootstrap_version", {kBadRpcNotToken}));
  rows.push_back(
      BadRpcInvalid(m, BadKind::kOversized,
                    BadRpcBytes<B>(base, [](B& r) { r.set_bootstrap_version(BadRpcLong(254)); }),
                    "bootstrap_version", {"254 bytes; at most 253 allowed"}));
  rows.push_back(BadRpcInvalid(m, BadKind::kEmpty,
                               BadRpcBytes<B>(base, [](B& r) { r.clear_request_id(); }),
                               "request_id", {kBadRpcRequired}));
}

void AddBadRollupRows(std::vector<BadInputRpcRow>& rows) {
  using G = v1::GetTargetStatusRequest;
  const std::string g = "ReportService/GetTargetStatus";
  rows.push_back(BadRpcInvalid(g, BadKind::kWrongCharacters,
                               BadRpcBytes<G>(R"pb(namespace: "demo" name: "Edge-1")pb"), "name",
                               {kBadRpcNotLabel}));
  rows.push_back(BadRpcInvalid(g, BadKind::kEmpty, BadRpcBytes<G>(R"pb(name: "edge-1")pb"),
                               "namespace", {kBadRpcRequired}));
  rows.push_back(BadRpcInvalid(
      g, BadKind::kDnsLimit,
      BadRpcBytes<G>(R"pb(name: "edge-1")pb", [](G& r) { r.set_namespace_(BadRpcLong(64)); }),
      "namespace", {kBadRpcLabelTooLong}));

  using F = v1::ListFleetStatusRequest;
  const std::string f = "ReportService/ListFleetStatus";
  rows.push_back(
      BadRpcInvalid(f, BadKind::kInvalidValue, BadRpcBytes<F>(R"pb(condition_type: "Bogus"
                                                                   condition_status: "True")pb"),
                    "condition_type", {"is not one of Reporting, PreflightReady, ReleasesReady"}));
  rows.push_back(BadRpcInvalid(f, BadKind::kInvalidValue,
                               BadRpcBytes<F>(R"pb(condition_type: "Reporting"
                                                   condition_status: "true")pb"),
                               "condition_status", {"is not one of True, False, Unknown"}));
  rows.push_back(BadRpcInvalid(f, BadKind::kEmpty,
                               BadRpcBytes<F>(R"pb(condition_type: "Reporting")pb"),
                               "condition_status", {"both or neither"}));
  rows.push_back(BadRpcInvalid(f, BadKind::kEmpty,
                               BadRpcBytes<F>(R"pb(condition_status: "True")pb"), "condition_type",
                               {"both or neither"}));
  rows.push_back(BadRpcInvalid(f, BadKind::kWrongCharacters,
                               BadRpcBytes<F>(R"pb(namespace: "Demo")pb"), "namespace",
                               {kBadRpcNotLabel}));
  rows.push_back(
      BadRpcInvalid(f, BadKind::kOversized,
                    BadRpcBytes<F>(R"pb(condition_status: "True")pb",
                                   [](F& r) { r.set_condition_type(BadRpcLong(1 << 20)); }),
                    "condition_type", {"is not one of"}));

  using W = v1::WatchFleetRequest;
  const std::string w = "ReportService/WatchFleet";
  rows.push_back(BadRpcInvalid(w, BadKind::kInvalidValue, BadRpcBytes<W>(R"pb(after_seq: -3)pb"),
                               "after_seq", {"-3 is negative"}));
  rows.push_back(BadRpcInvalid(w, BadKind::kDnsLimit,
                               BadRpcBytes<W>("", [](W& r) { r.set_namespace_(BadRpcLong(64)); }),
                               "namespace", {kBadRpcLabelTooLong}));
  rows.push_back(BadRpcInvalid(w, BadKind::kWrongCharacters,
                               BadRpcBytes<W>(R"pb(namespace: "de mo")pb"), "namespace",
                               {kBadRpcNotLabel}));
}

}  // namespace

void AddReportServiceBadInputRows(std::vector<BadInputRpcRow>& rows) {
  AddBadPushReportRows(rows);
  AddBadBoundReleaseRows(rows);
  AddBadRollupRows(rows);
}

}  // namespace credledger::testing
