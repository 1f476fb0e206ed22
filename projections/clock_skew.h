// The clock skew of a Target's agent (docs/reports.md, "Clock skew"): how far the
// lastReportTime of a refused report ran ahead of the server's clock, in the words the
// Reporting condition and the timeline use for it.
//
// Thread-safety: pure functions.
#pragma once

#include <string>

#include "absl/time/time.h"
#include "credledger/v1/events.pb.h"

namespace credledger::projections {

// How far the agent's clock ran ahead when `detected` was recorded: its last_report_time
// minus its server_time, rounded to the nearest whole second (an agent writes whole seconds;
// the server's clock has finer ones).
absl::Duration ClockSkewOffset(const v1::ReportClockSkewDetected& detected);

// The Reporting message while `detected` is in force, naming the offset, both times in
// RFC 3339 in whole seconds, the limit and the fix: "the agent's clock is 10m ahead of the server's
// (a report of <lastReportTime> arrived at <server time>): reports more than 5m ahead are refused
// until the agent's node syncs its clock (NTP)".
std::string ClockSkewMessage(const v1::ReportClockSkewDetected& detected);

}  // namespace credledger::projections
