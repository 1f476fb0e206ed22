#include "test/kubeapi/fault_injector.h"

#include "absl/strings/match.h"

namespace credledger::kubeapi {

FaultInjector::HeldRequest::HeldRequest(FaultInjector& faults) : faults_(faults) {
  absl::MutexLock lock(&faults_.mu_);
  ++faults_.held_;
}

FaultInjector::HeldRequest::~HeldRequest() {
  absl::MutexLock lock(&faults_.mu_);
  --faults_.held_;
}

void FaultInjector::Add(Fault fault) {
  absl::MutexLock lock(&mu_);
  faults_.push_back(std::move(fault));
}

void FaultInjector::Clear() {
  absl::MutexLock lock(&mu_);
  faults_.clear();
}

FaultAction FaultInjector::Match(absl::string_view method, absl::string_view path, bool watch) {
  absl::MutexLock lock(&mu_);
  for (auto it = faults_.begin(); it != faults_.end(); ++it) {
    if (!it->method.empty() && it->method != method) continue;
    if (it->exact_path ? path != it->path_prefix : !absl::StartsWith(path, it->path_prefix)) {
      continue;
    }
    if (it->drop_watch_after_events.has_value() && !watch) continue;
    FaultAction action{true,     it->status_code, it->retry_after_seconds,
                       it->delay, it->hang,       it->drop_watch_after_events};
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

bool FaultInjector::AwaitFired(int count, absl::Duration timeout) const {
  absl::MutexLock lock(&mu_);
  auto reached = [this, count]() ABSL_SHARED_LOCKS_REQUIRED(mu_) { return fired_ >= count; };
  return mu_.AwaitWithTimeout(absl::Condition(&reached), timeout);
}

int FaultInjector::held() const {
  absl::MutexLock lock(&mu_);
  return held_;
}

bool FaultInjector::AwaitHeld(int count, absl::Duration timeout) const {
  absl::MutexLock lock(&mu_);
  auto reached = [this, count]() ABSL_SHARED_LOCKS_REQUIRED(mu_) { return held_ == count; };
  return mu_.AwaitWithTimeout(absl::Condition(&reached), timeout);
}

}  // namespace credledger::kubeapi
