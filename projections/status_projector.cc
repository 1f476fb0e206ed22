#include "projections/status_projector.h"

#include "common/status_macros.h"

namespace credledger::projections {

template class Projector<StatusProjection>;

absl::StatusOr<std::unique_ptr<StatusProjector>> StatusProjector::Start(store::EventStore* store,
                                                                        Options options) {
  std::unique_ptr<StatusProjector> projector(new StatusProjector(store, options));
  RETURN_IF_ERROR(projector->Follow());
  return projector;
}

std::vector<v1::TargetStatus> StatusProjector::List(absl::string_view target_namespace,
                                                    int64_t* seq) const {
  return Read([&](const StatusProjection& p) {
    if (seq != nullptr) *seq = p.seq();
    return p.List(target_namespace);
  });
}

std::vector<SilentTarget> StatusProjector::SilentSince(absl::Time cutoff) const {
  return Read([&](const StatusProjection& p) { return p.SilentSince(cutoff); });
}

int64_t StatusProjector::StaleTargets() const {
  // target_status.h: ReportingStale makes Reporting False/Stale.
  return Read([](const StatusProjection& p) { return p.reporting().Count("False", "Stale"); });
}

int64_t StatusProjector::ClockSkewTargets() const {
  return Read(
      [](const StatusProjection& p) { return p.reporting().Count("False", kClockSkewReason); });
}

}  // namespace credledger::projections
