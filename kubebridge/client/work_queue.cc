#include "kubebridge/client/work_queue.h"

namespace credledger::kubebridge {

WorkQueue::WorkQueue(common::Clock& clock, BackoffPolicy backoff)
    : clock_(clock), backoff_(backoff) {}

void WorkQueue::AddLocked(const std::string& key, absl::Time when) {
  if (shut_down_) return;
  auto it = due_.find(key);
  if (it != due_.end()) {
    if (it->second <= when) return;
    by_time_.erase({it->second, key});
    it->second = when;
  } else {
    due_.emplace(key, when);
  }
  by_time_.insert({when, key});
  wake_ = true;
  cv_.SignalAll();
}

void WorkQueue::Add(const std::string& key) {
  absl::MutexLock lock(&mu_);
  AddLocked(key, clock_.Now());
}

void WorkQueue::AddAt(const std::string& key, absl::Time when) {
  absl::MutexLock lock(&mu_);
  AddLocked(key, when);
}

std::optional<std::string> WorkQueue::Get() {
  absl::MutexLock lock(&mu_);
  while (!shut_down_) {
    // The earliest pending key no worker holds.
    auto next = by_time_.end();
    for (auto it = by_time_.begin(); it != by_time_.end(); ++it) {
      if (active_.count(it->second) == 0) {
        next = it;
        break;
      }
    }
    if (next != by_time_.end() && next->first <= clock_.Now()) {
      std::string key = next->second;
      by_time_.erase(next);
      due_.erase(key);
      active_.insert(key);
      return key;
    }
    wake_ = false;
    if (next == by_time_.end()) {
      while (!wake_ && !shut_down_) cv_.Wait(&mu_);
    } else {
      clock_.SleepUntil(next->first, mu_, cv_, wake_);
    }
  }
  return std::nullopt;
}

void WorkQueue::Done(const std::string& key, bool failed) {
  absl::MutexLock lock(&mu_);
  active_.erase(key);
  if (failed) {
    int& n = failures_[key];
    // Deterministic schedule (no jitter draw): the queue's delays are for pacing, not for
    // spreading load across clients.
    absl::Duration delay = BackoffDelay(backoff_, n, 0.5);
    ++n;
    AddLocked(key, clock_.Now() + delay);
  } else {
    failures_.erase(key);
  }
  wake_ = true;
  cv_.SignalAll();
}

void WorkQueue::ShutDown() {
  absl::MutexLock lock(&mu_);
  shut_down_ = true;
  wake_ = true;
  cv_.SignalAll();
}

bool WorkQueue::IdleLocked() const {
  return active_.empty() && (by_time_.empty() || by_time_.begin()->first > clock_.Now());
}

bool WorkQueue::WaitIdle(absl::Duration timeout) const {
  absl::MutexLock lock(&mu_);
  return mu_.AwaitWithTimeout(absl::Condition(this, &WorkQueue::IdleLocked), timeout);
}

size_t WorkQueue::Depth() const {
  absl::MutexLock lock(&mu_);
  return due_.size();
}

int WorkQueue::Failures(const std::string& key) const {
  absl::MutexLock lock(&mu_);
  auto it = failures_.find(key);
  return it == failures_.end() ? 0 : it->second;
}

}  // namespace credledger::kubebridge
