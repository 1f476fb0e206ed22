// The JSON form of a TargetReport (group solar.opendefense.cloud, version v1alpha1;
// docs/reports.md, "TargetReport") and its v1::TargetReportSpec. The bridge's watch decodes
// what agents wrote; the agent encodes the spec it writes.
//
//   spec.lastReportTime          RFC 3339 time            -> last_report_time
//   spec.releases[]              {name, namespace, phase, revision, sourceConditions[],
//                                 helmConditions[]}       -> releases
//       phase                    "Pending", "Progressing", "Ready", "Degraded", "Failed"
//       *Conditions[]            metav1.Condition {type, status, observedGeneration,
//                                 lastTransitionTime, reason, message}
//   spec.preflight.checks[]      {type, status, reason, message} -> preflight_checks
//   spec.capacity                {nodeCount, allocatable{}, used{}} -> capacity, each
//                                 ResourceList as entries ordered by resource name
//
// Times: the agent writes RFC 3339 in UTC with whole seconds, the precision of Kubernetes'
// metav1.Time (common/rfc3339.h). Decoding accepts fractional seconds and offsets and keeps
// the fraction to the microsecond, the precision of the log's times (projections/
// proto_time.h); encoding writes a fraction only when the time has one, so a decoded report
// encodes to the same times.
//
// Thread-safety: pure functions.
#pragma once

#include <optional>

#include "absl/status/statusor.h"
#include "credledger/v1/report.pb.h"
#include "nlohmann/json.hpp"

namespace credledger::kubebridge {

// Decodes the spec of the TargetReport `object` (a whole API object). Absent and null
// fields count as empty (Go writes null for empty lists); a phase of "" counts as
// unspecified; unknown fields are ignored. Content rules (required names, PascalCase, ...)
// are not checked here: see projections/report_validation.h.
// Returns nullopt when spec or spec.lastReportTime is absent or null: the empty report
// credledger pre-creates means "no report yet".
// Errors: kInvalidArgument naming the full field path for a value of the wrong JSON type, an
// unparsable time, an unknown phase (`spec.releases[1].phase: "Running" is not one of
// Pending, Progressing, Ready, Degraded, Failed`), an integer out of its field's range, or a
// quantity that is neither a string nor an integer.
absl::StatusOr<std::optional<v1::TargetReportSpec>> DecodeTargetReport(
    const nlohmann::json& object);

// The `spec` object of a TargetReport holding `spec`, the inverse of DecodeTargetReport.
// Like Kubernetes, empty optional fields are omitted: lastReportTime when unset, revision,
// empty condition lists, a condition's observedGeneration when 0 and lastTransitionTime when
// unset, a check's empty message, preflight without checks, and capacity when unset.
// releases is always written. REQUIRES: strings are valid UTF-8 (SerializeJson reports
// otherwise).
nlohmann::json EncodeTargetReportSpec(const v1::TargetReportSpec& spec);

}  // namespace credledger::kubebridge
