// The API views of report rollups (proto/credledger/v1/api.proto: TargetStatusView,
// FleetSummary) built from the status read model (projections::StatusProjection;
// docs/reports.md, "Rollups").
//
// Pure functions; thread-safe.
#pragma once

#include <vector>

#include "credledger/v1/api.pb.h"
#include "credledger/v1/state.pb.h"
#include "projections/target_status.h"

namespace credledger::service {

// The rollup's condition types in view order, and the statuses a condition can have.
inline constexpr const char* kStatusConditionTypes[] = {projections::kReportingCondition,
                                                        projections::kPreflightReadyCondition,
                                                        projections::kReleasesReadyCondition};
inline constexpr const char* kConditionStatuses[] = {"True", "False", "Unknown"};

// The view of one Target's rollup: identity and `active`, the conditions in the order
// Reporting, PreflightReady, ReleasesReady (each typed even when the rollup never set it),
// the releases with phase names (projections::PhaseName) and flags, release counts, the
// last report's preflight checks and capacity (unset when it carried none), the report and
// liveness times (unset when never set), bound releases, bootstrap version and last seq.
v1::TargetStatusView ToStatusView(const v1::TargetStatus& status);

// Counts over `statuses`: the number of Targets; Targets per "<type>=<status>" ordered by
// key, every combination of the three condition types with True, False and Unknown present
// (zero when none), plus any other status value found; releases per phase and flag summed;
// and "<namespace>/<name>" of Targets with Reporting=False (stale), with a rolled-back
// release, and with a drifted release, each ordered by namespace then name.
v1::FleetSummary SummarizeFleet(const std::vector<v1::TargetStatus>& statuses);

}  // namespace credledger::service
