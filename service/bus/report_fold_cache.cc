#include "service/bus/report_fold_cache.h"

#include <limits>
#include <optional>

#include "common/status_macros.h"
#include "projections/report_streams.h"
#include "projections/target_state.h"
#include "projections/target_status.h"
#include "store/event_codec.h"

namespace credledger::service {
namespace {

using Events = std::vector<store::RecordedEvent>;

projections::EventPosition PositionOf(const store::RecordedEvent& event) {
  return {event.seq, event.stream_version, absl::FromUnixMicros(event.recorded_at_us)};
}

// The events of `stream` after `position`; nullopt when the stored event at
// position.version is missing or has another stream_hash (the fold is not of this stream).
absl::StatusOr<std::optional<Events>> ReadAfter(store::WriteTransaction& tx,
                                                const std::string& stream,
                                                const StreamPosition& position) {
  if (position.version < 0) {
    ASSIGN_OR_RETURN(Events all, tx.ReadStream(stream, 0));
    return std::optional<Events>(std::move(all));
  }
  ASSIGN_OR_RETURN(Events events, tx.ReadStream(stream, position.version));
  if (events.empty() || events.front().stream_version != position.version ||
      events.front().stream_hash != position.stream_hash) {
    return std::optional<Events>();
  }
  events.erase(events.begin());
  return std::optional<Events>(std::move(events));
}

absl::Status FoldTargetEvent(TargetFolds& folds, const store::RecordedEvent& recorded,
                             const v1::ServiceConfigured& service, bool with_status) {
  ASSIGN_OR_RETURN(v1::Event event, store::EventCodec::Default().Decode(recorded));
  projections::EvolveTarget(folds.state, event, PositionOf(recorded), service);
  if (with_status) projections::EvolveStatus(folds.status, event, PositionOf(recorded));
  folds.target = {recorded.stream_version, recorded.stream_hash};
  folds.seq = std::max(folds.seq, recorded.seq);
  return absl::OkStatus();
}

absl::Status FoldReportEvent(TargetFolds& folds, const store::RecordedEvent& recorded) {
  ASSIGN_OR_RETURN(v1::Event event, store::EventCodec::Default().Decode(recorded));
  projections::EvolveStatus(folds.status, event, PositionOf(recorded));
  folds.report = {recorded.stream_version, recorded.stream_hash};
  folds.seq = std::max(folds.seq, recorded.seq);
  return absl::OkStatus();
}

// Folds target-stream events, report-stream events and the liveness entry in seq order.
absl::Status Fold(TargetFolds& folds, const Events& target, const Events& report,
                  std::optional<LivenessIndex::Seen> liveness,
                  const v1::ServiceConfigured& service) {
  constexpr int64_t kNone = std::numeric_limits<int64_t>::max();
  size_t t = 0, r = 0;
  while (t < target.size() || r < report.size() || liveness.has_value()) {
    const int64_t target_seq = t < target.size() ? target[t].seq : kNone;
    const int64_t report_seq = r < report.size() ? report[r].seq : kNone;
    const int64_t liveness_seq = liveness.has_value() ? liveness->at.seq : kNone;
    if (target_seq < report_seq && target_seq < liveness_seq) {
      RETURN_IF_ERROR(FoldTargetEvent(folds, target[t++], service, /*with_status=*/true));
    } else if (report_seq < liveness_seq) {
      RETURN_IF_ERROR(FoldReportEvent(folds, report[r++]));
    } else {
      projections::ApplyLiveness(folds.status, liveness->entry, liveness->at);
      folds.liveness_seq = liveness->at.seq;
      folds.seq = std::max(folds.seq, liveness->at.seq);
      liveness.reset();
    }
  }
  return absl::OkStatus();
}

// The folds of Target <target_namespace>/<name> before any event.
TargetFolds NoFolds(absl::string_view target_namespace, absl::string_view name) {
  TargetFolds folds;
  folds.target_namespace = std::string(target_namespace);
  folds.name = std::string(name);
  return folds;
}

}  // namespace

TargetFolds ReportFoldCache::Cached(const Key& key, const v1::ServiceConfigured& service,
                                    bool state_only) const {
  const std::string serialized = service.SerializeAsString();
  absl::MutexLock lock(&mu_);
  auto it = folds_.find(key);
  if (service_ != serialized || it == folds_.end()) return NoFolds(key.first, key.second);
  if (!state_only) return it->second;
  TargetFolds folds = NoFolds(key.first, key.second);
  folds.target = it->second.target;
  folds.state = it->second.state;
  return folds;
}

absl::StatusOr<TargetFolds> ReportFoldCache::Load(store::WriteTransaction& tx,
                                                  absl::string_view target_namespace,
                                                  absl::string_view name,
                                                  const v1::ServiceConfigured& service,
                                                  const LivenessIndex::View& liveness) const {
  const std::string target_stream = projections::TargetStream(target_namespace, name);
  const std::string report_stream = projections::ReportStream(target_namespace, name);
  TargetFolds folds = Cached({std::string(target_namespace), std::string(name)}, service,
                             /*state_only=*/false);
  ASSIGN_OR_RETURN(std::optional<Events> target, ReadAfter(tx, target_stream, folds.target));
  ASSIGN_OR_RETURN(std::optional<Events> report, ReadAfter(tx, report_stream, folds.report));
  if (!target.has_value() || !report.has_value()) {
    folds = NoFolds(target_namespace, name);
    ASSIGN_OR_RETURN(target, tx.ReadStream(target_stream, 0));
    ASSIGN_OR_RETURN(report, tx.ReadStream(report_stream, 0));
  }
  std::optional<LivenessIndex::Seen> seen = liveness.Find(target_namespace, name);
  if (seen.has_value() && seen->at.seq <= folds.liveness_seq) seen.reset();
  RETURN_IF_ERROR(Fold(folds, *target, *report, std::move(seen), service));
  return folds;
}

absl::StatusOr<v1::TargetState> ReportFoldCache::LoadState(
    store::WriteTransaction& tx, absl::string_view target_namespace, absl::string_view name,
    const v1::ServiceConfigured& service) const {
  const std::string stream = projections::TargetStream(target_namespace, name);
  TargetFolds folds = Cached({std::string(target_namespace), std::string(name)}, service,
                             /*state_only=*/true);
  ASSIGN_OR_RETURN(std::optional<Events> target, ReadAfter(tx, stream, folds.target));
  if (!target.has_value()) {
    folds.state.Clear();
    ASSIGN_OR_RETURN(target, tx.ReadStream(stream, 0));
  }
  for (const store::RecordedEvent& event : *target) {
    RETURN_IF_ERROR(FoldTargetEvent(folds, event, service, /*with_status=*/false));
  }
  return std::move(folds.state);
}

absl::Status ReportFoldCache::Advance(TargetFolds& folds, const Events& appended,
                                      const v1::ServiceConfigured& service) {
  const std::string target_stream = projections::TargetStream(folds.target_namespace, folds.name);
  for (const store::RecordedEvent& event : appended) {
    if (event.stream == target_stream) {
      RETURN_IF_ERROR(FoldTargetEvent(folds, event, service, /*with_status=*/true));
    } else {
      RETURN_IF_ERROR(FoldReportEvent(folds, event));
    }
  }
  return absl::OkStatus();
}

void ReportFoldCache::Publish(const TargetFolds& folds, const v1::ServiceConfigured& service) {
  const std::string serialized = service.SerializeAsString();
  absl::MutexLock lock(&mu_);
  if (service_ != serialized) {
    folds_.clear();
    service_ = serialized;
  }
  const Key key{folds.target_namespace, folds.name};
  auto it = folds_.find(key);
  if (it == folds_.end()) {
    folds_.emplace(key, folds);
  } else if (it->second.seq <= folds.seq) {
    it->second = folds;
  }
}

}  // namespace credledger::service
