// Validation of a status report (docs/reports.md, "Validation"), shared by the TargetReport
// watch and the PushReport RPC so that both accept exactly the same reports.
//
// Field paths use the TargetReport's JSON names under a caller-chosen prefix ("spec" for a
// TargetReport read from the cluster, "report" for the RPC), for example
// "spec.releases[1].name" or "report.preflight.checks[0].reason". Each function returns the
// first violation found, in field order.
//
// Rules and the limits chosen for them:
//   lastReportTime   required (a report without it is "no report yet" and never validated).
//   preflight.checks at most kMaxPreflightChecks; each: type and reason PascalCase
//                    (^[A-Z][A-Za-z0-9]*$, at most kMaxPascalCaseBytes, the limit Kubernetes
//                    puts on a condition type), reason required, status "True", "False" or
//                    "Unknown", message at most kMaxCheckMessageBytes; no type twice.
//   releases         at most kMaxReleases; each: name and namespace DNS-1123 labels
//                    (common/dns_label.h), phase one of the five known phases (UNSPECIFIED
//                    is an error), revision at most kMaxRevisionBytes, no (name, namespace)
//                    twice (the later entry's name is the field named), at most
//                    kMaxConditionsPerHalf sourceConditions and as many helmConditions.
//   conditions       (Kubernetes metav1.Condition as Flux sets them) type required, a letter
//                    followed by letters, digits, '.', '-', '_' or '/' (PascalCase types and
//                    Kubernetes' prefixed ones such as "example.com/Ready"), at most
//                    kMaxPascalCaseBytes; status "True", "False" or "Unknown"; reason at most
//                    kMaxConditionReasonBytes; message at most kMaxConditionMessageBytes;
//                    observedGeneration >= 0. These are Kubernetes' own limits, so any
//                    condition copied from a valid Flux object passes.
//   capacity         (when present) nodeCount >= 0; allocatable and used at most
//                    kMaxCapacityResources entries each, ordered by resource name without
//                    duplicates, names non-empty and at most kMaxResourceNameBytes (a
//                    qualified name), quantities non-empty and at most kMaxQuantityBytes.
//
// Thread-safety: pure functions.
#pragma once

#include <cstddef>
#include <optional>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "credledger/v1/report.pb.h"

namespace credledger::projections {

// The limits of the file comment (counts of entries; sizes in bytes).
inline constexpr int kMaxReleases = 1000;
inline constexpr int kMaxConditionsPerHalf = 32;
inline constexpr int kMaxPreflightChecks = 256;
inline constexpr int kMaxCapacityResources = 128;
inline constexpr size_t kMaxPascalCaseBytes = 316;
inline constexpr size_t kMaxCheckMessageBytes = 4096;
inline constexpr size_t kMaxRevisionBytes = 256;
inline constexpr size_t kMaxConditionReasonBytes = 1024;
inline constexpr size_t kMaxConditionMessageBytes = 32768;
inline constexpr size_t kMaxResourceNameBytes = 317;
inline constexpr size_t kMaxQuantityBytes = 64;

// How far the report's lastReportTime may run ahead of the server's clock (docs/reports.md,
// "Validation").
inline constexpr absl::Duration kMaxReportTimeAhead = absl::Minutes(5);

// Checks the content of `report` against the rules in the file comment, naming fields under
// `field_prefix`: its lastReportTime (ValidateReportTime), then the rest.
// Errors: kInvalidArgument "<field path>: <rule>" for the first violation.
absl::Status ValidateReportContent(const v1::TargetReportSpec& report,
                                   absl::string_view field_prefix);

// Checks only the lastReportTime of `report` (required, a valid timestamp), naming
// "<field_prefix>.lastReportTime". The other rules do not look at it: a report whose content
// apart from lastReportTime equals one that passes ValidateReportContent passes it when it
// passes this.
// Errors: kInvalidArgument "<field_prefix>.lastReportTime: <rule>".
absl::Status ValidateReportTime(const v1::TargetReportSpec& report, absl::string_view field_prefix);

// Whether `report_time` runs more than kMaxReportTimeAhead ahead of `now`, the server's clock:
// the agent's clock is ahead, and the report is refused (docs/reports.md, "Clock skew").
bool ReportTimeTooFarAhead(absl::Time report_time, absl::Time now);

// Checks that a report's `report_time` is strictly later than `last_accepted` (the
// lastReportTime of the Target's last accepted report or heartbeat, nullopt when none;
// docs/reports.md, "Validation").
// Errors: kFailedPrecondition when report_time <= last_accepted (an old or replayed report),
// naming `field` and both times in RFC 3339.
absl::Status ValidateReportOrder(absl::Time report_time, std::optional<absl::Time> last_accepted,
                                 absl::string_view field);

// Checks that a report's `report_time` is not too far ahead of `now`, the server's clock
// (docs/reports.md, "Validation" and "Clock skew").
// Errors: kInvalidArgument when ReportTimeTooFarAhead(report_time, now), naming `field` and
// both times in RFC 3339.
absl::Status ValidateReportClock(absl::Time report_time, absl::Time now, absl::string_view field);

}  // namespace credledger::projections
