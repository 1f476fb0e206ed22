// The report decider: Decide(command, state) -> events, pure (docs/design.md, "Deciders";
// docs/reports.md, "Validation", "Ingest" and "Rollups").
//
// `target` is the fold of the Target's stream (projections::EvolveTarget) and `status` the
// fold of its target, report and liveness events (projections::EvolveStatus); time, actor
// and the service configuration arrive in the CommandContext. A command that is already
// satisfied yields no events.
//
// Thread-safety: pure functions.
#pragma once

#include <vector>

#include "absl/status/statusor.h"
#include "credledger/v1/events.pb.h"
#include "credledger/v1/state.pb.h"
#include "service/decide/report_commands.h"
#include "service/decide/target_commands.h"

namespace credledger::service {

// What a report command decided: events for the two streams of the Target, appended
// together, whether the report was a heartbeat or a retry, and the refusal to answer.
struct ReportDecision {
  // For `report/<namespace>/<name>`: ReportAccepted, BoundReleasesSet, ReportingStale,
  // ReportClockSkewDetected or ReportClockSkewCleared.
  std::vector<v1::Event> report_events;
  // For `target/<namespace>/<name>`: the RolloutConfirmed a changed report proves.
  std::vector<v1::Event> target_events;
  // True when a SubmitReport equals the last accepted report apart from lastReportTime (a
  // heartbeat, recorded later in a LivenessObserved batch) or is a retry of a report already
  // accepted or heartbeat already seen; nothing is appended then, except the
  // ReportClockSkewCleared a heartbeat may append (it then records the heartbeat itself).
  bool heartbeat = false;
  // True when a changed report was held (SubmitReport::min_interval): nothing is appended;
  // the caller appends it later.
  bool held = false;
  // True when a changed report was refused for lack of space (SubmitReport::space_low):
  // nothing is appended.
  bool refused = false;
  // Not OK when the report was refused for a lastReportTime too far ahead of the server's
  // clock: the error to answer (kInvalidArgument, ClockSkewRefusal's), although
  // `report_events` may hold the ReportClockSkewDetected that records the refusal.
  absl::Status refusal;
};

// Decides a command addressed to one Target.
//   SubmitReport, by the heartbeat rule (ClassifyReport, service/decide/heartbeat_rule.h): a
//     report equal to the last accepted one including lastReportTime, or equal apart from it
//     with lastReportTime equal to the newest accepted one (status or heartbeat_floor), is a
//     retry; equal apart from a later lastReportTime is a heartbeat; both yield no events and
//     heartbeat=true. Otherwise one ReportAccepted (target_uid, report, received_at), and
//     when a release of the report is Ready, not rolled back and its revision ends in
//     -<credentialTag> of the current credential, the RolloutConfirmed the Target decider's
//     ConfirmRollout gives (none when it gives an error or nothing).
//     A changed report that confirms no rollout is instead refused (refused=true, no events)
//     when space_low, and held (held=true, no events) when it was received sooner than
//     min_interval after the last ReportAccepted's receive time, unless it is urgent: a
//     release is Failed that was not Failed in the last accepted report, or Reporting is
//     not True (docs/reports.md, "Limits").
//     Clock skew (docs/reports.md, "Clock skew"): a report whose lastReportTime is more than
//     5 minutes ahead of now is refused (`refusal` set) with one ReportClockSkewDetected
//     (target_uid, its lastReportTime, now as server_time), or with no events when the
//     status holds a clock skew already. While it holds one, a heartbeat (unless space_low)
//     or an appended changed report received at or after its server_time yields a
//     ReportClockSkewCleared (target_uid, its lastReportTime and received_at) first.
//   SetBoundReleases: stored ordered by (namespace, name); the same list and bootstrap
//     version as the current ones yields no events.
//   MarkStale: one ReportingStale when Reporting is True (so never during a clock skew:
//     Reporting is then False/ClockSkew), the status's last_seen_at equals
//     command.last_seen_at (nothing newer arrived) and now >= last_seen_at + stale_after;
//     otherwise no events.
// Errors (no events):
//   kInvalidArgument     report content ("<prefix>.<field path>" with the prefix of
//                        SubmitReport::source, ReportFieldPrefix; projections::
//                        ValidateReportContent); a bound release whose name or namespace
//                        is not a DNS-1123 label ("releases[i].name") or that appears
//                        twice; a bootstrap_version that is not printable ASCII or longer
//                        than 253 bytes; stale_after not positive; RecordLiveness (it spans
//                        Targets: DecideLiveness).
//   kNotFound            the Target was never registered or is finalized.
//   kFailedPrecondition  SubmitReport or SetBoundReleases for a Target being deleted; a
//                        report whose lastReportTime is not later than the newest accepted
//                        one (projections::ValidateReportOrder).
absl::StatusOr<ReportDecision> DecideReport(const ReportCommand& command,
                                            const v1::TargetState& target,
                                            const v1::TargetStatus& status,
                                            const CommandContext& context);

// The refusal of the report `detected` records, as DecideReport answered it for a report from
// `source`: kInvalidArgument "<prefix>.lastReportTime: <its time> is more than 5m ahead of the
// server's clock (<server_time>)" (projections::ValidateReportClock). Lets a retried request
// whose events are a ReportClockSkewDetected get the answer it got the first time.
absl::Status ClockSkewRefusal(const v1::ReportClockSkewDetected& detected, ReportSource source);

// Decides a liveness batch. `targets[i]` is the state of the Target `command.entries[i]`
// names (an unregistered default state when it has none). Returns one LivenessObserved with
// the entries whose Target is registered, not finalized and of the entry's uid, ordered by
// namespace, then name, one per Target (the latest received); no events when none is left.
// REQUIRES: targets.size() == command.entries.size().
std::vector<v1::Event> DecideLiveness(const RecordLiveness& command,
                                      const std::vector<v1::TargetState>& targets);

}  // namespace credledger::service
