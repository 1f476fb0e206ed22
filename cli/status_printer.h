// Text output of the `credledger status` and `credledger fleet` client commands
// (docs/reports.md, "Rollups"): one Target's rollup, the fleet table, the fleet summary and
// watch lines. `--output json` prints the responses themselves (target_printer.h, ToJson).
//
// Pure functions; thread-safe.
#pragma once

#include <cstdint>
#include <string>

#include "credledger/v1/api.pb.h"

namespace credledger::cli {

// A multi-line description of one Target's rollup: identity, the three conditions, report
// and liveness times, bootstrap version, bound releases, capacity and last seq, then a
// releases table (name, phase, revision, flags) and a preflight checks table.
std::string FormatStatusText(const v1::TargetStatusView& status);

// The header and one row per Target of `credledger status` without an argument: the Target
// and each condition as <status>/<reason>, and when it was last seen.
std::string FormatStatusTableHeader();
std::string FormatStatusRow(const v1::TargetStatusView& status);

// The fleet counts at `seq`: Targets, Targets per condition, releases per phase and flag,
// and the stale, rolled-back and drifted Targets ("none" when empty).
std::string FormatFleetSummary(const v1::FleetSummary& summary, int64_t seq);

// One line per WatchFleet item: "<seq> snapshot|change <namespace>/<name> <type>=<status>/
// <reason> ..." (" finalized" appended for an inactive Target), or for the end of the
// snapshot "<seq> end-of-snapshot" followed by the summary.
std::string FormatFleetWatchItem(const v1::WatchFleetResponse& item);

}  // namespace credledger::cli
