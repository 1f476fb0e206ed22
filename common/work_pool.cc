#include "common/work_pool.h"

#include <utility>

namespace credledger::common {

WorkPool::WorkPool(Options options) : options_(options) {
  threads_.reserve(static_cast<size_t>(options_.threads));
  for (int i = 0; i < options_.threads; ++i) threads_.emplace_back([this] { Run(); });
}

WorkPool::~WorkPool() { Stop(); }

bool WorkPool::TrySchedule(std::function<void()> task) { return Queue(std::move(task), true); }

bool WorkPool::Schedule(std::function<void()> task) { return Queue(std::move(task), false); }

bool WorkPool::Queue(std::function<void()> task, bool bounded) {
  absl::MutexLock lock(&mu_);
  if (stopping_) return false;
  if (bounded && tasks_.size() >= options_.max_queued) return false;
  tasks_.push_back(std::move(task));
  return true;
}

void WorkPool::Stop() {
  {
    absl::MutexLock lock(&mu_);
    if (stopping_) return;
    // Tasks already queued still run: each of them answers a call or ends a stream.
    auto drained = [this]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
      return tasks_.empty() && running_ == 0;
    };
    mu_.Await(absl::Condition(&drained));
    stopping_ = true;
  }
  for (std::thread& thread : threads_) thread.join();
  threads_.clear();
}

size_t WorkPool::queued() const {
  absl::MutexLock lock(&mu_);
  return tasks_.size();
}

void WorkPool::Run() {
  while (true) {
    std::function<void()> task;
    {
      absl::MutexLock lock(&mu_);
      auto ready = [this]()
                       ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) { return stopping_ || !tasks_.empty(); };
      mu_.Await(absl::Condition(&ready));
      if (tasks_.empty()) return;  // stopping, nothing left
      task = std::move(tasks_.front());
      tasks_.pop_front();
      ++running_;
    }
    task();
    absl::MutexLock lock(&mu_);
    --running_;
  }
}

}  // namespace credledger::common
