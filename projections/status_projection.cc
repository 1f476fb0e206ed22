#include "projections/status_projection.h"

#include <algorithm>
#include <functional>
#include <set>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "common/status_macros.h"
#include "projections/proto_time.h"
#include "projections/report_streams.h"
#include "projections/snapshot_items.h"
#include "projections/target_status.h"
#include "store/event_codec.h"

namespace credledger::projections {
namespace {

// "<namespace>/<name>" (StatusKey) of a "target/<namespace>/<name>" or
// "report/<namespace>/<name>" stream; empty for any other stream.
absl::string_view KeyOfStream(absl::string_view stream) {
  absl::string_view key = stream;
  if (!absl::ConsumePrefix(&key, "target/") && !absl::ConsumePrefix(&key, "report/")) return {};
  const size_t slash = key.find('/');
  if (slash == absl::string_view::npos || key.find('/', slash + 1) != absl::string_view::npos) {
    return {};
  }
  return key;
}

// kDataLoss unless `event` is the one after `seq`.
absl::Status CheckOrder(int64_t seq, const store::RecordedEvent& event) {
  if (event.seq == seq + 1) return absl::OkStatus();
  return absl::DataLossError(
      absl::StrCat("status projection at seq ", seq, " was handed seq ", event.seq));
}

// Whether `event` is a ReportAccepted at the schema version this binary writes, whose
// summary ReadReportSummary can read.
bool IsCurrentReport(const store::RecordedEvent& event) {
  static const std::string* const type =
      new std::string(v1::ReportAccepted::descriptor()->full_name());
  static const uint32_t version = store::EventCodec::Default().known_types().at(*type);
  return event.type == *type && event.schema_version == version;
}

// Takes `status` out of `tally` (before a change) or puts it in (after), when active.
void Uncount(ConditionTally& tally, const v1::TargetStatus& status) {
  if (status.active()) tally.Remove(status.reporting());
}
void Count(ConditionTally& tally, const v1::TargetStatus& status) {
  if (status.active()) tally.Add(status.reporting());
}

}  // namespace

std::string StatusKey(absl::string_view target_namespace, absl::string_view name) {
  return absl::StrCat(target_namespace, "/", name);
}

StatusProjection::Silence StatusProjection::Silence::Of(const v1::TargetStatus& status) {
  if (!status.active() || !status.has_last_seen_at() || status.reporting().status() == "False") {
    return {};
  }
  return {FromProto(status.last_seen_at())};
}

absl::StatusOr<std::vector<std::string>> StatusProjection::Apply(
    const store::RecordedEvent& recorded) {
  RETURN_IF_ERROR(Settle());
  if (working_.unbounded()) working_.Compact();
  std::vector<std::string> changed;
  RETURN_IF_ERROR(ApplyNow(recorded, &changed));
  return changed;
}

absl::Status StatusProjection::ApplyDeferred(const store::RecordedEvent& recorded) {
  RETURN_IF_ERROR(CheckOrder(seq_, recorded));
  working_.Unbound();
  if (IsCurrentReport(recorded)) {
    if (!ReadReportSummary(recorded.payload, summary_)) {
      return absl::DataLossError(absl::StrCat("event seq ", recorded.seq, ": payload of ",
                                              recorded.type, " does not parse"));
    }
    v1::TargetStatus* status = Find(KeyOfStream(recorded.stream));
    if (status == nullptr) {
      seq_ = recorded.seq;  // no rollup to change: Apply changes nothing either
      return absl::OkStatus();
    }
    // Times with unknown fields are copied whole by a fold: such a report is folded in full.
    if (summary_.plain_times) {
      DeferReport(*status, recorded);
      return absl::OkStatus();
    }
  }
  if (!ChangesStatus(recorded.type)) {
    seq_ = recorded.seq;  // credential, identity and cluster events, as in ApplyNow
    return absl::OkStatus();
  }
  // Other events of a Target end its run before they are folded. A liveness entry does not
  // (FinishReportRun keeps what it sets).
  if (recorded.stream != kLivenessStream) {
    if (v1::TargetStatus* status = Find(KeyOfStream(recorded.stream)); status != nullptr) {
      RETURN_IF_ERROR(SettleRun(*status));
    }
  }
  return ApplyNow(recorded, nullptr);
}

void StatusProjection::DeferReport(v1::TargetStatus& status, const store::RecordedEvent& recorded) {
  OpenRun& open = runs_[&status];
  const EventPosition at{recorded.seq, recorded.stream_version,
                         absl::FromUnixMicros(recorded.recorded_at_us)};
  // A folded report leaves Reporting True/ReportReceived (or False/ClockSkew as it was): the
  // tally changes only when it was something else before.
  const bool recount = !IsReportReceived(status.reporting());
  if (recount) Uncount(reporting_, status);
  const bool folded = FoldReportSummary(status, summary_, at, open.run);
  if (recount) Count(reporting_, status);
  if (folded) {
    open.last.seq = recorded.seq;
    open.last.type = recorded.type;
    open.last.schema_version = recorded.schema_version;
    open.last.payload.assign(recorded.payload);
  } else if (!open.run.has_value()) {
    runs_.erase(&status);
  }
  seq_ = recorded.seq;
}

absl::Status StatusProjection::Settle() {
  return Settle(1, [](absl::Span<const std::function<void()>> tasks) {
    for (const std::function<void()>& task : tasks) task();
  });
}

absl::Status StatusProjection::Settle(int shares, TaskRunner run) {
  if (runs_.empty()) return absl::OkStatus();
  // The open runs are listed first, and each task takes a slice of the list.
  struct Pending {
    v1::TargetStatus* status;
    const OpenRun* open;
    absl::Status folded;
  };
  std::vector<Pending> pending;
  pending.reserve(runs_.size());
  // A run whose task did not run stays open, and Settle says so.
  const absl::Status not_run = absl::InternalError("settle: a task of the runner did not run");
  for (const auto& [status, open] : runs_) pending.push_back({status, &open, not_run});
  for (const Pending& p : pending) Uncount(reporting_, *p.status);
  const size_t tasks_wanted = std::min(static_cast<size_t>(std::max(shares, 1)),
                                       std::max<size_t>(1, pending.size() / kMinRunsPerShare));
  std::vector<std::function<void()>> tasks;
  tasks.reserve(tasks_wanted);
  for (size_t t = 0; t < tasks_wanted; ++t) {
    const size_t begin = pending.size() * t / tasks_wanted;
    const size_t end = pending.size() * (t + 1) / tasks_wanted;
    tasks.push_back([&pending, begin, end] {
      v1::Event event;  // each task decodes into its own message, reused across its runs
      for (size_t i = begin; i < end; ++i) {
        pending[i].folded = FinishRun(*pending[i].status, *pending[i].open, event);
      }
    });
  }
  run(tasks);
  absl::Status first_error;
  for (const Pending& p : pending) {
    Count(reporting_, *p.status);
    if (!p.folded.ok() && first_error.ok()) first_error = p.folded;
  }
  if (first_error.ok()) {
    runs_.clear();
  } else {
    for (const Pending& p : pending) {
      if (p.folded.ok()) runs_.erase(p.status);
    }
  }
  return first_error;
}

absl::Status StatusProjection::SettleRun(v1::TargetStatus& status) {
  auto it = runs_.find(&status);
  if (it == runs_.end()) return absl::OkStatus();
  Uncount(reporting_, status);
  // A run whose last report does not decode stays open: every later Settle fails again.
  const absl::Status folded = FinishRun(status, it->second, decoded_);
  Count(reporting_, status);
  if (folded.ok()) runs_.erase(it);
  return folded;
}

absl::Status StatusProjection::FinishRun(v1::TargetStatus& status, const OpenRun& open,
                                         v1::Event& scratch) {
  RETURN_IF_ERROR(store::EventCodec::Default().DecodeInto(open.last, scratch));
  FinishReportRun(status, scratch, *open.run);
  return absl::OkStatus();
}

absl::Status StatusProjection::ApplyNow(const store::RecordedEvent& recorded,
                                        std::vector<std::string>* changed) {
  RETURN_IF_ERROR(CheckOrder(seq_, recorded));
  if (!ChangesStatus(recorded.type)) {
    seq_ = recorded.seq;  // credential, identity and cluster events: not part of the rollups
    return absl::OkStatus();
  }
  // Liveness batches (large, and rare) get a message of their own so that neither kind
  // throws away the other's memory.
  v1::Event& event = recorded.stream == kLivenessStream ? decoded_liveness_ : decoded_;
  RETURN_IF_ERROR(store::EventCodec::Default().DecodeInto(recorded, event));
  seq_ = recorded.seq;
  const EventPosition at{recorded.seq, recorded.stream_version,
                         absl::FromUnixMicros(recorded.recorded_at_us)};
  if (recorded.stream == kLivenessStream) {
    if (!event.has_liveness_observed()) return absl::OkStatus();
    std::set<std::pair<std::string, std::string>> touched;
    for (const v1::LivenessEntry& entry : event.liveness_observed().entries()) {
      key_buffer_.clear();
      absl::StrAppend(&key_buffer_, entry.namespace_(), "/", entry.name());
      v1::TargetStatus* status = Find(key_buffer_);
      if (status == nullptr) continue;
      Uncount(reporting_, *status);
      ApplyLiveness(*status, entry, at);
      Count(reporting_, *status);
      if (changed != nullptr && status->last_seq() == at.seq) {
        touched.emplace(entry.namespace_(), entry.name());
      }
    }
    for (const auto& [ns, name] : touched) changed->push_back(StatusKey(ns, name));
    return absl::OkStatus();
  }
  const absl::string_view key = KeyOfStream(recorded.stream);
  if (key.empty()) return absl::OkStatus();
  if (v1::TargetStatus* status = Find(key); status != nullptr) {
    Uncount(reporting_, *status);
    EvolveStatus(*status, event, at);
    Count(reporting_, *status);
    if (status->last_seq() != at.seq) return absl::OkStatus();
  } else {
    // Only an event that starts a rollup (a registration) creates one.
    const std::pair<absl::string_view, absl::string_view> parts =
        absl::StrSplit(key, absl::MaxSplits('/', 1));
    v1::TargetStatus fresh;
    fresh.set_namespace_(std::string(parts.first));
    fresh.set_name(std::string(parts.second));
    EvolveStatus(fresh, event, at);
    if (fresh.last_seq() != at.seq) return absl::OkStatus();
    Count(reporting_, fresh);
    Insert({std::string(parts.first), std::string(parts.second)}, std::move(fresh));
  }
  if (changed != nullptr) changed->push_back(std::string(key));
  return absl::OkStatus();
}

std::optional<v1::TargetStatus> StatusProjection::Get(absl::string_view target_namespace,
                                                      absl::string_view name) const {
  return GetKey(StatusKey(target_namespace, name));
}

std::optional<v1::TargetStatus> StatusProjection::GetKey(absl::string_view key) const {
  const PackedStatus* packed = by_key_.Find(key);
  if (packed == nullptr) return std::nullopt;
  return packed->Copy();
}

v1::TargetStatus* StatusProjection::Find(absl::string_view key) {
  PackedStatus* packed = by_key_.Find(key);
  return packed == nullptr ? nullptr : &working_.Open(*packed);
}

void StatusProjection::Insert(std::pair<std::string, std::string> key, v1::TargetStatus status) {
  working_.Open(Slot(std::move(key))) = std::move(status);
}

StatusProjection::PackedStatus& StatusProjection::Slot(std::pair<std::string, std::string> key) {
  const std::string hashed = StatusKey(key.first, key.second);
  PackedStatus& packed = targets_.try_emplace(std::move(key)).first->second;
  by_key_.Set(hashed, &packed);
  return packed;
}

std::vector<v1::TargetStatus> StatusProjection::List(absl::string_view target_namespace) const {
  std::vector<v1::TargetStatus> out;
  auto it = target_namespace.empty()
                ? targets_.begin()
                : targets_.lower_bound({std::string(target_namespace), std::string()});
  for (; it != targets_.end(); ++it) {
    if (!target_namespace.empty() && it->first.first != target_namespace) break;
    v1::TargetStatus status = it->second.Copy();
    if (status.active()) out.push_back(std::move(status));
  }
  return out;
}

std::vector<SilentTarget> StatusProjection::SilentSince(absl::Time cutoff) const {
  std::vector<SilentTarget> out;
  for (const auto& [key, packed] : targets_) {
    const std::optional<absl::Time> seen = packed.summary().last_seen_at;
    if (seen.has_value() && *seen <= cutoff) out.push_back({key.first, key.second, *seen});
  }
  return out;
}

std::string StatusProjection::Serialize() const {
  v1::StatusFleetState tail;  // seq = 2; nothing comes before the rollups (targets = 1)
  tail.set_seq(seq_);
  return WriteSnapshotItems(v1::StatusFleetState(), v1::StatusFleetState::kTargetsFieldNumber,
                            targets_, tail);
}

absl::StatusOr<StatusProjection> StatusProjection::Deserialize(absl::string_view bytes) {
  StatusProjection p;
  v1::StatusFleetState head;  // the seq; the rollups come one by one
  v1::TargetStatus status;
  const auto keep = [&p, &status](absl::string_view item) {
    if (!status.ParseFromArray(item.data(), static_cast<int>(item.size()))) return false;
    Count(p.reporting_, status);
    p.Slot({status.namespace_(), status.name()}).Keep(status, item);
    return true;
  };
  const bool parsed =
      ReadSnapshotItems(bytes, v1::StatusFleetState::kTargetsFieldNumber, head, keep);
  if (!parsed) return absl::DataLossError("status projection snapshot does not parse");
  p.seq_ = head.seq();
  return p;
}

}  // namespace credledger::projections
