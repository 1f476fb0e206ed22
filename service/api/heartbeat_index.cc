#include "service/api/heartbeat_index.h"

#include <algorithm>
#include <limits>
#include <string>
#include <utility>

#include "absl/hash/hash.h"
#include "projections/proto_time.h"
#include "projections/report_validation.h"

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

constexpr uint8_t kUuidForm = 0xff;

int HexDigit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  return -1;
}

// Packs `uid` into `bytes`: a lowercase 8-4-4-4-12 hex UUID as its 16 bytes (form kUuidForm),
// any other uid of at most 16 bytes as its text (form: its length). nullopt for a uid that is
// neither.
std::optional<uint8_t> PackUid(absl::string_view uid, std::array<uint8_t, 16>& bytes) {
  if (uid.size() <= bytes.size()) {
    std::copy(uid.begin(), uid.end(), bytes.begin());
    return static_cast<uint8_t>(uid.size());
  }
  if (uid.size() != 36) return std::nullopt;
  size_t n = 0;
  for (size_t i = 0; i < uid.size(); i += 2) {
    if (i == 8 || i == 13 || i == 18 || i == 23) {
      if (uid[i] != '-') return std::nullopt;
      ++i;
    }
    const int high = HexDigit(uid[i]);
    const int low = HexDigit(uid[i + 1]);
    if (high < 0 || low < 0) return std::nullopt;
    bytes[n++] = static_cast<uint8_t>(high << 4 | low);
  }
  return kUuidForm;
}

std::string UnpackUid(const std::array<uint8_t, 16>& bytes, uint8_t form) {
  if (form != kUuidForm) return std::string(bytes.begin(), bytes.begin() + form);
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string uid;
  uid.reserve(36);
  for (size_t n = 0; n < bytes.size(); ++n) {
    if (n == 4 || n == 6 || n == 8 || n == 10) uid.push_back('-');
    uid.push_back(kDigits[bytes[n] >> 4]);
    uid.push_back(kDigits[bytes[n] & 0xf]);
  }
  return uid;
}

}  // namespace

HeartbeatIndex::Write::~Write() { index_->End(*this); }

void HeartbeatIndex::Write::Decided(const ReportFolds& after) {
  decided_ = true;
  baseline_ = SlotOf(after);
}

std::optional<HeartbeatIndex::Slot> HeartbeatIndex::SlotOf(const ReportFolds& after) {
  static_assert(sizeof(Slot) == 72, "the memory the header states");
  const v1::TargetStatus& status = after.status;
  if (after.state.phase() != v1::TargetState::PHASE_ACTIVE || !status.has_last_report() ||
      !status.has_last_report_time() || status.has_clock_skew() ||
      !projections::ValidateReportContent(status.last_report(), "spec").ok()) {
    return std::nullopt;
  }
  const ReportBaseline baseline = BaselineOf(status);
  const std::optional<int64_t> last = ExactNanos(baseline.last_report_time);
  const std::optional<int64_t> newest = ExactNanos(*baseline.newest_report_time);
  const int64_t version = after.state.stream_version();
  Slot slot;
  const std::optional<uint8_t> form = PackUid(after.state.target_uid(), slot.target_uid);
  if (!last.has_value() || !newest.has_value() || !form.has_value() ||
      version > std::numeric_limits<int32_t>::max()) {
    return std::nullopt;
  }
  slot.target_uid_form = *form;
  slot.target_version = static_cast<int32_t>(version);
  slot.last_report_nanos = *last;
  slot.newest_report_nanos = *newest;
  slot.last_report = *baseline.last_report;
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
    // Only a Write no other overlapped decided against the newest fold of the Target; then no
    // other Write runs (slot.writes is 0).
    const bool alone = !write.overlapped_ && slot.generation == write.generation_;
    if (alone && write.baseline_.has_value()) {
      slot = *write.baseline_;
      slot.owner = write.owner_;
      slot.generation = write.generation_;
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
  absl::ReaderMutexLock lock(&mu_);
  auto it = slots_.find(key);
  if (it == slots_.end()) return std::nullopt;
  const Slot& slot = it->second;
  if (!slot.known || slot.writes > 0 || slot.owner != owner) return std::nullopt;
  Snapshot found;
  found.baseline.last_report = slot.last_report;
  found.baseline.last_report_time = absl::FromUnixNanos(slot.last_report_nanos);
  found.baseline.newest_report_time = absl::FromUnixNanos(slot.newest_report_nanos);
  found.target_uid = UnpackUid(slot.target_uid, slot.target_uid_form);
  found.target_version = slot.target_version;
  found.generation = slot.generation;
  return found;
}

bool HeartbeatIndex::Commit(const Snapshot& found, v1::LivenessEntry heartbeat,
                            LivenessBuffer& liveness) {
  const uint64_t key = KeyOf(heartbeat.namespace_(), heartbeat.name());
  const uint64_t owner = OwnerOf(heartbeat.namespace_(), heartbeat.name());
  // Shared: Commits of heartbeats exclude only Begin and End, which change slots.
  absl::ReaderMutexLock lock(&mu_);
  auto it = slots_.find(key);
  if (it == slots_.end()) return false;
  const Slot& slot = it->second;
  if (!slot.known || slot.writes > 0 || slot.owner != owner ||
      slot.generation != found.generation) {
    return false;
  }
  return liveness.RecordIfNewer(std::move(heartbeat));
}

size_t HeartbeatIndex::size() const {
  absl::MutexLock lock(&mu_);
  return slots_.size();
}

}  // namespace credledger::service
