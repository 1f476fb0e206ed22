#include "kubebridge/client/cancellation.h"

#include <utility>

namespace credledger::kubebridge {

Cancellation::~Cancellation() { Cancel(); }

void Cancellation::Cancel() {
  absl::MutexLock listeners_lock(&listeners_mu_);
  if (cancelled()) return;
  {
    absl::MutexLock sleep_lock(&sleep_mu_);
    cancelled_ = true;
    cancelled_flag_.store(true, std::memory_order_release);
    sleep_cv_.SignalAll();
  }
  for (auto& [id, listener] : listeners_) listener();
  listeners_.clear();
}

bool Cancellation::SleepUntil(common::Clock& clock, absl::Time deadline) {
  absl::MutexLock lock(&sleep_mu_);
  if (cancelled_) return false;
  return clock.SleepUntil(deadline, sleep_mu_, sleep_cv_, cancelled_);
}

bool Cancellation::SleepFor(common::Clock& clock, absl::Duration duration) {
  if (duration <= absl::ZeroDuration()) return !cancelled();
  return SleepUntil(clock, clock.Now() + duration);
}

uint64_t Cancellation::AddListener(std::function<void()> listener) {
  absl::MutexLock lock(&listeners_mu_);
  if (cancelled()) {
    listener();
    return 0;
  }
  uint64_t id = next_id_++;
  listeners_.emplace(id, std::move(listener));
  return id;
}

void Cancellation::RemoveListener(uint64_t id) {
  if (id == 0) return;
  absl::MutexLock lock(&listeners_mu_);
  listeners_.erase(id);
}

CancellationLink::CancellationLink(Cancellation& from, Cancellation& to)
    : from_(from), listener_id_(from.AddListener([&to] { to.Cancel(); })) {}

CancellationLink::~CancellationLink() { from_.RemoveListener(listener_id_); }

LinkedCancellation::LinkedCancellation(Cancellation& primary, Cancellation* secondary)
    : primary_link_(primary, cancellation_) {
  if (secondary != nullptr) secondary_link_.emplace(*secondary, cancellation_);
}

}  // namespace credledger::kubebridge
