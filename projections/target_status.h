// The report rollup of one Target (docs/reports.md, "Rollups"): a pure fold of the Target's
// target-stream, report-stream and liveness events into a v1::TargetStatus, with its Reporting,
// PreflightReady and ReleasesReady conditions. Used by the status projection and by the report
// decider, so both see the same rules.
#pragma once

#include <optional>
#include <string>

#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "credledger/v1/events.pb.h"
#include "credledger/v1/state.pb.h"
#include "projections/report_summary.h"
#include "projections/target_state.h"

namespace credledger::projections {

// Condition types and reasons of the rollup (docs/reports.md, "Rollups").
inline constexpr char kReportingCondition[] = "Reporting";
inline constexpr char kPreflightReadyCondition[] = "PreflightReady";
inline constexpr char kReleasesReadyCondition[] = "ReleasesReady";
// Reporting's reason after a report or heartbeat (status True).
inline constexpr char kReportReceivedReason[] = "ReportReceived";
// Reporting's reason while reports are refused because the agent's clock runs ahead (status
// False; docs/reports.md, "Clock skew").
inline constexpr char kClockSkewReason[] = "ClockSkew";

// Whether `reporting` is True/ReportReceived, as after a report or heartbeat.
inline bool IsReportReceived(const v1::Condition& reporting) {
  return reporting.status() == "True" && reporting.reason() == kReportReceivedReason;
}

// Folds `event` into `status`, the rollup of the Target the event's stream names.
//   TargetRegistered with a uid other than status.target_uid, or after finalization, starts
//   a fresh rollup of the new incarnation (active, Reporting=Unknown/NoReport,
//   PreflightReady=Unknown/NoChecks, ReleasesReady=Unknown/NoReleases); TargetFinalized
//   clears `active`; report-stream events (ReportAccepted, ReportingStale,
//   ReportClockSkewDetected, ReportClockSkewCleared, BoundReleasesSet) of another uid are
//   ignored; a LivenessObserved applies the entries naming this Target (ApplyLiveness; a
//   fleet fold should rather hand each entry to its Target's status);
//   ReportClockSkewDetected is kept as `clock_skew`; ReportClockSkewCleared clears it and
//   counts as a report or heartbeat received (as a liveness entry); other events leave the
//   status unchanged. Conditions change their last_transition_time to `at.recorded_at` only
//   when their status changes; last_seq becomes `at.seq` whenever the status changed.
// The conditions (docs/reports.md, "Rollups"):
//   Reporting       Unknown/NoReport before any report; True/ReportReceived after a report
//                   or liveness entry; False/Stale after ReportingStale; False/ClockSkew
//                   (ClockSkewMessage) while `clock_skew` is set, whatever else is folded
//                   meanwhile: it outranks ReportReceived and Stale.
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

// A run of ReportAccepted events of one Target folded by their summaries (FoldReportSummary)
// and not yet in full: what a report does to PreflightReady and ReleasesReady depends on the
// reports before it only through their statuses and transition times, kept here; everything
// else a report sets is overwritten by the next one.
struct ReportRun {
  EventPosition last_at;         // the position of the run's last report
  std::string preflight_status;  // PreflightReady's status after the run's last report
  absl::Time preflight_since;    // and its last transition time
  std::string releases_status;   // the same for ReleasesReady
  absl::Time releases_since;
};

// Folds a ReportAccepted known by its summary (report_summary.h) at `at` into `status`, for a
// fold that decodes only the last report of a run: last_seq, last_report_received_at,
// last_seen_at, last_report_time and Reporting's status, reason and transition time as
// EvolveStatus sets them; PreflightReady's and ReleasesReady's statuses and transition times
// only in `run` (started from the status's conditions when empty). Reporting's message,
// last_report, releases, their counts and those two conditions are left for FinishReportRun
// (until then they may hold values from before the run). The bound releases must not change
// during a run, and the only other events folded into the status during it may be liveness
// entries (ApplyLiveness). Returns false, changing nothing, for a report of another
// incarnation or of a finalized one (EvolveStatus ignores it too).
bool FoldReportSummary(v1::TargetStatus& status, const ReportSummary& summary,
                       const EventPosition& at, std::optional<ReportRun>& run);

// Ends a run: folds `event`, the decoded ReportAccepted at run.last_at, with EvolveStatus
// (its report is swapped out, as there), then sets the transition times the run tracked and
// keeps last_seq. The status is then byte for byte what EvolveStatus of every report of the run
// (and ApplyLiveness of the entries between them) would have left.
void FinishReportRun(v1::TargetStatus& status, v1::Event& event, const ReportRun& run);

// Whether events of `type` (fully qualified, e.g. "credledger.v1.ReportAccepted") can change
// a status rollup: TargetRegistered, TargetFinalized, ReportAccepted, ReportingStale,
// BoundReleasesSet, LivenessObserved, ReportClockSkewDetected, ReportClockSkewCleared.
// EvolveStatus leaves the status unchanged for every other type, so a fold may pass over them
// without decoding them.
bool ChangesStatus(absl::string_view type);

// Folds one entry of a LivenessObserved batch for this Target (ignored for another uid or a
// finalized incarnation): last_seen_at and last_report_time advance to the entry's when
// later (a heartbeat can reach the log after a newer report), Reporting becomes
// True/ReportReceived unless `clock_skew` is set (its message, naming last_seen_at, is
// rewritten only when a time moved or Reporting was something else), and last_seq moves to
// at.seq when anything changed.
void ApplyLiveness(v1::TargetStatus& status, const v1::LivenessEntry& entry,
                   const EventPosition& at);

// Whether `set` names the same bound releases (in the same order) and bootstrap version as
// the ones `status` holds: folding it would change nothing.
bool SameBoundReleases(const v1::TargetStatus& status, const v1::BoundReleasesSet& set);

}  // namespace credledger::projections
