#include "test/kubeapi/fault_injector.h"

#include "absl/strings/match.h"

namespace credledger::kubeapi {

void FaultInjector::Add(Fault fault) {
  absl::MutexLock lock(&mu_);
  faults_.push_back(std::move(fault));
}

void FaultInjector::Clear() {
  absl::MutexLock lock(&mu_);
  faults_.clear();
}

FaultAction FaultInjector::Match(absl::string_view method, absl::string_view path) {
  absl::MutexLock lock(&mu_);
  for (auto it = faults_.begin(); it != faults_.end(); ++it) {
    if (!it->method.empty() && it->method != method) continue;
    if (it->exact_path ? path != it->path_prefix : !absl::StartsWith(path, it->path_prefix)) {
      continue;
    }
    FaultAction action{true, it->status_code, it->retry_after_seconds, it->delay};
    ++fired_;
    if (it->times > 0 && --it->times == 0) faults_.erase(it);
    return action;
  }
  return {};
}

int FaultInjector::fired() const {
  absl::MutexLock lock(&mu_);
  return fired_;
}

}  // namespace credledger::kubeapi
