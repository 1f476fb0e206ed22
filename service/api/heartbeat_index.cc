#include "service/api/heartbeat_index.h"

#include <algorithm>
#include <utility>

#include "absl/hash/hash.h"
#include "projections/proto_time.h"

namespace credledger::service {
namespace {

// The slot key of a Target, and the second hash that checks a slot is the Target's.
uint64_t KeyOf(absl::string_view target_namespace, absl::string_view name) {
  return absl::HashOf(target_namespace, name);
}
uint64_t OwnerOf(absl::string_view target_namespace, absl::string_view name) {
  return absl::HashOf(name, target_namespace, uint8_t{1});
}

// `t` in unix nanoseconds, when that is exactly `t`.
std::optional<int64_t> ExactNanos(absl::Time t) {
  const int64_t nanos = absl::ToUnixNanos(t);
  if (absl::FromUnixNanos(nanos) != t) return std::nullopt;
  return nanos;
}

}  // namespace

HeartbeatIndex::Write::Write(Write&& other) noexcept
    : index_(std::exchange(other.index_, nullptr)),
      key_(other.key_),
      owner_(other.owner_),
      generation_(other.generation_),
      overlapped_(other.overlapped_),
      decided_(other.decided_),
      baseline_(std::move(other.baseline_)) {}

HeartbeatIndex::Write::~Write() {
  if (index_ != nullptr) index_->End(*this);
}

void HeartbeatIndex::Write::Decided(const ReportFolds& after) {
  decided_ = true;
  baseline_ = SlotOf(after);
}

std::optional<HeartbeatIndex::Slot> HeartbeatIndex::SlotOf(const ReportFolds& after) {
  const v1::TargetStatus& status = after.status;
  if (after.state.phase() != v1::TargetState::PHASE_ACTIVE || !status.has_last_report() ||
      !status.has_last_report_time() || status.has_clock_skew()) {
    return std::nullopt;
  }
  const ReportBaseline baseline = BaselineOf(status);
  const std::optional<int64_t> last = ExactNanos(baseline.last_report_time);
  const std::optional<int64_t> newest = ExactNanos(*baseline.newest_report_time);
  const std::string& uid = after.state.target_uid();
  if (!last.has_value() || !newest.has_value() || uid.size() > kMaxUidBytes) return std::nullopt;
  Slot slot;
  slot.target_version = after.state.stream_version();
  slot.last_report_nanos = *last;
  slot.newest_report_nanos = *newest;
  slot.last_report = *baseline.last_report;
  std::copy(uid.begin(), uid.end(), slot.target_uid.begin());
  slot.target_uid_bytes = static_cast<uint8_t>(uid.size());
  return slot;
}

HeartbeatIndex::Write HeartbeatIndex::Begin(absl::string_view target_namespace,
                                            absl::string_view name) {
  const uint64_t key = KeyOf(target_namespace, name);
  const uint64_t owner = OwnerOf(target_namespace, name);
  absl::MutexLock lock(&mu_);
  Slot& slot = slots_[key];
  const bool overlapped = slot.writes > 0;
  ++slot.writes;
  slot.generation = ++generation_;
  return Write(this, key, owner, slot.generation, overlapped);
}

void HeartbeatIndex::End(const Write& write) {
  absl::MutexLock lock(&mu_);
  auto it = slots_.find(write.key_);
  Slot& slot = it->second;
  --slot.writes;
  if (write.decided_) {
    // Only a Write no other overlapped decided against the newest fold of the Target.
    const bool alone = !write.overlapped_ && slot.generation == write.generation_;
    if (alone && write.baseline_.has_value()) {
      const uint64_t generation = slot.generation;
      slot = *write.baseline_;
      slot.owner = write.owner_;
      slot.generation = generation;
      slot.known = true;
    } else {
      slot.known = false;
    }
  }
  if (slot.writes == 0 && !slot.known) slots_.erase(it);
}

std::optional<HeartbeatIndex::Snapshot> HeartbeatIndex::Find(absl::string_view target_namespace,
                                                             absl::string_view name) const {
  const uint64_t key = KeyOf(target_namespace, name);
  const uint64_t owner = OwnerOf(target_namespace, name);
  absl::MutexLock lock(&mu_);
  auto it = slots_.find(key);
  if (it == slots_.end()) return std::nullopt;
  const Slot& slot = it->second;
  if (!slot.known || slot.writes > 0 || slot.owner != owner) return std::nullopt;
  Snapshot found;
  found.baseline.last_report = slot.last_report;
  found.baseline.last_report_time = absl::FromUnixNanos(slot.last_report_nanos);
  found.baseline.newest_report_time = absl::FromUnixNanos(slot.newest_report_nanos);
  found.target_uid.assign(slot.target_uid.data(), slot.target_uid_bytes);
  found.target_version = slot.target_version;
  found.generation = slot.generation;
  return found;
}

bool HeartbeatIndex::Commit(const Snapshot& found, const v1::LivenessEntry& heartbeat,
                            LivenessBuffer& liveness) {
  const uint64_t key = KeyOf(heartbeat.namespace_(), heartbeat.name());
  const uint64_t owner = OwnerOf(heartbeat.namespace_(), heartbeat.name());
  absl::MutexLock lock(&mu_);
  auto it = slots_.find(key);
  if (it == slots_.end()) return false;
  const Slot& slot = it->second;
  if (!slot.known || slot.writes > 0 || slot.owner != owner ||
      slot.generation != found.generation) {
    return false;
  }
  return liveness.RecordIfNewer(heartbeat);
}

size_t HeartbeatIndex::size() const {
  absl::MutexLock lock(&mu_);
  return slots_.size();
}

}  // namespace credledger::service
