// The report rollup of one Target (docs/reports.md; domain/solar-agent-architecture.md):
// a pure fold of the Target's target-stream, report-stream and liveness events into a
// v1::TargetStatus, with its Reporting, PreflightReady and ReleasesReady conditions.
// Used by the status projection and by the report decider, so both see the same rules.
#pragma once

#include <string>

#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "credledger/v1/events.pb.h"
#include "credledger/v1/state.pb.h"
#include "projections/target_state.h"

namespace credledger::projections {

// Condition types and reasons of the rollup (issue text and docs/reports.md).
inline constexpr char kReportingCondition[] = "Reporting";
inline constexpr char kPreflightReadyCondition[] = "PreflightReady";
inline constexpr char kReleasesReadyCondition[] = "ReleasesReady";

// Folds `event` into `status`, the rollup of the Target the event's stream names.
//   TargetRegistered with a uid other than status.target_uid starts a fresh rollup of the
//   new incarnation (active, Reporting=Unknown/NoReport); TargetFinalized clears `active`;
//   ReportAccepted, ReportingStale and BoundReleasesSet of another uid are ignored; other
//   events leave the status unchanged. Conditions change their last_transition_time to
//   `at.recorded_at` only when their status changes; last_seq becomes `at.seq` whenever the
//   status changed.
void EvolveStatus(v1::TargetStatus& status, const v1::Event& event, const EventPosition& at);

// Folds one entry of a LivenessObserved batch for this Target (ignored for another uid):
// last_seen_at and last_report_time advance, Reporting becomes True.
void ApplyLiveness(v1::TargetStatus& status, const v1::LivenessEntry& entry,
                   const EventPosition& at);

}  // namespace credledger::projections
