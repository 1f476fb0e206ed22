#include "service/api/held_reports.h"

#include "projections/proto_time.h"

namespace credledger::service {
namespace {

absl::Time ReportTime(const HeldReports::Held& held) {
  return projections::FromProto(held.report.last_report_time());
}

}  // namespace

void HeldReports::Hold(Held held) {
  Key key{held.target_namespace, held.name};
  absl::MutexLock lock(&mu_);
  auto [it, inserted] = held_.try_emplace(std::move(key), held);
  if (!inserted && ReportTime(it->second) <= ReportTime(held)) it->second = std::move(held);
}

std::optional<HeldReports::Held> HeldReports::Find(absl::string_view target_namespace,
                                                   absl::string_view name) const {
  absl::MutexLock lock(&mu_);
  auto it = held_.find(Key{std::string(target_namespace), std::string(name)});
  if (it == held_.end()) return std::nullopt;
  return it->second;
}

void HeldReports::DropUpTo(absl::string_view target_namespace, absl::string_view name,
                           absl::Time report_time) {
  absl::MutexLock lock(&mu_);
  auto it = held_.find(Key{std::string(target_namespace), std::string(name)});
  if (it != held_.end() && ReportTime(it->second) <= report_time) held_.erase(it);
}

std::vector<HeldReports::Held> HeldReports::TakeDue(absl::Time now) {
  std::vector<Held> due;
  absl::MutexLock lock(&mu_);
  for (auto it = held_.begin(); it != held_.end();) {
    if (it->second.due > now) {
      ++it;
      continue;
    }
    due.push_back(std::move(it->second));
    it = held_.erase(it);
  }
  return due;
}

void HeldReports::Restore(std::vector<Held> held) {
  for (Held& h : held) Hold(std::move(h));
}

size_t HeldReports::size() const {
  absl::MutexLock lock(&mu_);
  return held_.size();
}

}  // namespace credledger::service
