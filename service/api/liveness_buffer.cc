#include "service/api/liveness_buffer.h"

#include <utility>

#include "projections/proto_time.h"

namespace credledger::service {

void LivenessBuffer::Record(const v1::LivenessEntry& entry) {
  Key key{entry.namespace_(), entry.name()};
  const absl::Time report_time = projections::FromProto(entry.last_report_time());
  absl::MutexLock lock(&mu_);
  FloorEntry& floor = floors_[key];
  RecordLocked(std::move(key), floor, entry, report_time);
}

bool LivenessBuffer::RecordIfNewer(v1::LivenessEntry entry) {
  Key key{entry.namespace_(), entry.name()};
  const absl::Time report_time = projections::FromProto(entry.last_report_time());
  absl::MutexLock lock(&mu_);
  auto [floor, added] = floors_.try_emplace(key);
  if (!added && floor->second.target_uid == entry.target_uid() &&
      floor->second.last_report_time >= report_time) {
    return false;
  }
  RecordLocked(std::move(key), floor->second, std::move(entry), report_time);
  return true;
}

void LivenessBuffer::RecordLocked(Key key, FloorEntry& floor, v1::LivenessEntry entry,
                                  absl::Time report_time) {
  if (floor.target_uid != entry.target_uid() || floor.last_report_time < report_time) {
    floor = {entry.target_uid(), report_time};
  }
  pending_[std::move(key)] = std::move(entry);
}

std::optional<absl::Time> LivenessBuffer::Floor(absl::string_view target_namespace,
                                                absl::string_view name,
                                                absl::string_view target_uid) const {
  absl::MutexLock lock(&mu_);
  auto it = floors_.find(Key{std::string(target_namespace), std::string(name)});
  if (it == floors_.end() || it->second.target_uid != target_uid) return std::nullopt;
  return it->second.last_report_time;
}

std::optional<absl::Time> LivenessBuffer::PendingSeenAt(absl::string_view target_namespace,
                                                        absl::string_view name) const {
  absl::MutexLock lock(&mu_);
  auto it = pending_.find(Key{std::string(target_namespace), std::string(name)});
  if (it == pending_.end()) return std::nullopt;
  return projections::FromProto(it->second.received_at());
}

std::vector<v1::LivenessEntry> LivenessBuffer::Drain() {
  std::map<Key, v1::LivenessEntry> taken;
  {
    absl::MutexLock lock(&mu_);
    taken.swap(pending_);
  }
  std::vector<v1::LivenessEntry> out;
  out.reserve(taken.size());
  for (auto& [key, entry] : taken) out.push_back(std::move(entry));
  return out;
}

void LivenessBuffer::Restore(std::vector<v1::LivenessEntry> entries) {
  absl::MutexLock lock(&mu_);
  for (v1::LivenessEntry& entry : entries) {
    // emplace keeps a heartbeat recorded since the drain.
    pending_.emplace(Key{entry.namespace_(), entry.name()}, std::move(entry));
  }
}

size_t LivenessBuffer::pending() const {
  absl::MutexLock lock(&mu_);
  return pending_.size();
}

}  // namespace credledger::service
