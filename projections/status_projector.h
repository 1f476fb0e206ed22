// StatusProjector: keeps the fleet's report rollups (StatusProjection) current by following the
// log, with snapshots, change history for watchers and as-of replay (docs/reports.md,
// "Rollups"; docs/design.md, "Snapshots" and "As-of replay"). The machinery is
// Projector<StatusProjection> (projector.h); this class adds the fleet reads.
//
// Thread-safety: all methods are thread-safe. Listeners run on the projector's thread, in
// seq order, and must not block.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "projections/projector.h"
#include "projections/status_projection.h"
#include "store/event_store.h"

namespace credledger::projections {

template <>
struct ProjectionTraits<StatusProjection> {
  using State = v1::TargetStatus;
  static constexpr const char* kName = kStatusProjectionName;
  static constexpr uint32_t kVersion = kStatusProjectionVersion;
  // `key` is "<namespace>/<name>" as StatusProjection::Apply returns them.
  static std::optional<State> GetByKey(const StatusProjection& p, const std::string& key) {
    return p.GetKey(key);
  }
};

// One Target's rollup as of the event at `seq`.
using StatusChange = ProjectionChange<v1::TargetStatus>;

extern template class Projector<StatusProjection>;

class StatusProjector final : public Projector<StatusProjection> {
 public:
  // Starts following `store` (not owned; must outlive the projector).
  // Errors: kDataLoss for an undecodable event or snapshot; store read errors.
  static absl::StatusOr<std::unique_ptr<StatusProjector>> Start(store::EventStore* store,
                                                                Options options);

  // See StatusProjection::List (active Targets, ordered by namespace then name). `seq` (may
  // be null) receives the position the list is consistent with.
  std::vector<v1::TargetStatus> List(absl::string_view target_namespace, int64_t* seq) const;
  // See StatusProjection::SilentSince.
  std::vector<SilentTarget> SilentSince(absl::Time cutoff) const;
  // Active Targets with Reporting=False/Stale (metrics; a lookup in a few counts).
  int64_t StaleTargets() const;
  // Active Targets with Reporting=False/ClockSkew: their agent's reports are refused because
  // its clock runs ahead (metrics; docs/reports.md, "Clock skew").
  int64_t ClockSkewTargets() const;

 private:
  using Projector::Projector;
};

}  // namespace credledger::projections
