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
//   TargetRegistered with a uid other than status.target_uid, or after finalization, starts
//   a fresh rollup of the new incarnation (active, Reporting=Unknown/NoReport,
//   PreflightReady=Unknown/NoChecks, ReleasesReady=Unknown/NoReleases); TargetFinalized
//   clears `active`; ReportAccepted, ReportingStale and BoundReleasesSet of another uid are
//   ignored; a LivenessObserved applies the entries naming this Target (ApplyLiveness; a
//   fleet fold should rather hand each entry to its Target's status); other events leave
//   the status unchanged. Conditions change their last_transition_time to `at.recorded_at`
//   only when their status changes; last_seq becomes `at.seq` whenever the status changed.
// The conditions (issue 3, "Rollups"):
//   Reporting       Unknown/NoReport before any report; True/ReportReceived after a report
//                   or liveness entry; False/Stale after ReportingStale.
//   PreflightReady  over the last report's checks (True passed, False failed, Unknown
//                   errored): False/ChecksErroredAndFailed, False/ChecksFailed,
//                   Unknown/ChecksErrored, Unknown/NoChecks, else True/AllChecksPassed; the
//                   message lists the errored and failed check types.
//   ReleasesReady   the worst phase of `releases` (the reported releases in report order,
//                   then the bound ones the report lacks as Pending), Failed > Degraded >
//                   Pending > Progressing > Ready: False/Failed, False/Degraded,
//                   Unknown/Pending, Unknown/Progressing, True/Ready; Unknown/NoReleases
//                   when there are none. The message names up to 5 releases
//                   (namespace/name) in that phase and counts the rest.
// A ReportAccepted's report is swapped into the status, not copied: `event` then holds the
// previous report, and a fold may decode its next event into the same message to reuse that
// memory.
void EvolveStatus(v1::TargetStatus& status, v1::Event& event, const EventPosition& at);

// Whether events of `type` (fully qualified, e.g. "credledger.v1.ReportAccepted") can change
// a status rollup: TargetRegistered, TargetFinalized, ReportAccepted, ReportingStale,
// BoundReleasesSet, LivenessObserved. EvolveStatus leaves the status unchanged for every other
// type, so a fold may pass over them without decoding them.
bool ChangesStatus(absl::string_view type);

// Folds one entry of a LivenessObserved batch for this Target (ignored for another uid or a
// finalized incarnation): last_seen_at and last_report_time advance to the entry's when
// later (a heartbeat can reach the log after a newer report), Reporting becomes True.
void ApplyLiveness(v1::TargetStatus& status, const v1::LivenessEntry& entry,
                   const EventPosition& at);

// Whether `set` names the same bound releases (in the same order) and bootstrap version as
// the ones `status` holds: folding it would change nothing.
bool SameBoundReleases(const v1::TargetStatus& status, const v1::BoundReleasesSet& set);

}  // namespace credledger::projections
