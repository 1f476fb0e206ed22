// The heartbeat rule (docs/reports.md, "Ingest" and "How a heartbeat is decided"): what a
// valid report of an active Target is, compared with the Target's last accepted report, the
// newest lastReportTime accepted and the server's clock. The report decider (DecideReport)
// takes every report through it inside the writer; ReportIngest's fast path takes it for a
// heartbeat outside the writer, over the baseline its HeartbeatIndex keeps, and answers only
// the reports it finds a plain heartbeat.
//
// Thread-safety: pure functions.
#pragma once

#include <array>
#include <cstdint>
#include <optional>

#include "absl/time/time.h"
#include "credledger/v1/report.pb.h"
#include "credledger/v1/state.pb.h"

namespace credledger::service {

// The first 16 bytes of SHA-256 over a report's protobuf encoding without lastReportTime. Two
// reports are equal apart from lastReportTime exactly when their digests are (to one chance
// in 2^128).
using ReportDigest = std::array<uint8_t, 16>;

// The ReportDigest of `report`.
ReportDigest ReportContentDigest(const v1::TargetReportSpec& report);

// What a report of a Target is compared with.
struct ReportBaseline {
  // The digest of the last accepted report; nullopt before the first one.
  std::optional<ReportDigest> last_report;
  // The last accepted report's own lastReportTime (when last_report is set).
  absl::Time last_report_time = absl::InfinitePast();
  // The newest lastReportTime the log accepted: of a report, a batched heartbeat or the
  // heartbeat that cleared a clock skew (TargetStatus.last_report_time); nullopt when none.
  std::optional<absl::Time> newest_report_time;
};

// The baseline a Target's status holds.
ReportBaseline BaselineOf(const v1::TargetStatus& status);

// The lastReportTime a report must be later than: the newest of the baseline's and
// `heartbeat_floor` (SubmitReport::heartbeat_floor: heartbeats and a held report not in the
// log); nullopt when neither has one.
std::optional<absl::Time> NewestAccepted(const ReportBaseline& baseline,
                                         std::optional<absl::Time> heartbeat_floor);

// What a report is (docs/reports.md, "Ingest", "Validation" and "Clock skew"), the first that
// applies in this order.
enum class ReportKind {
  // Equal to the last accepted report, lastReportTime included: nothing is recorded.
  kRetry,
  // Equal apart from lastReportTime, which is NewestAccepted already: a heartbeat seen before.
  kSeenHeartbeat,
  // lastReportTime not later than NewestAccepted: refused (projections::ValidateReportOrder).
  kTooOld,
  // lastReportTime more than 5 minutes ahead of the server's clock: refused, and the clock
  // skew is recorded (projections::ReportTimeTooFarAhead).
  kTooFarAhead,
  // Equal apart from a later lastReportTime: a heartbeat, recorded by the next
  // LivenessObserved (unless it ends a clock skew, which the decider records at once).
  kHeartbeat,
  // Different in anything but lastReportTime: a changed report.
  kChanged,
};

// What the report with content `digest` and lastReportTime `report_time` is against
// `baseline` and `heartbeat_floor`, at the server's time `now`.
ReportKind ClassifyReport(const ReportBaseline& baseline, const ReportDigest& digest,
                          absl::Time report_time, std::optional<absl::Time> heartbeat_floor,
                          absl::Time now);

}  // namespace credledger::service
