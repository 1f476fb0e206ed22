#include "common/clock.h"

#include <algorithm>

namespace credledger::common {

absl::Time RealClock::Now() const { return absl::Now(); }

bool RealClock::SleepUntil(absl::Time deadline, absl::Mutex& mu, absl::CondVar& cv,
                           const bool& cancelled) {
  while (!cancelled) {
    if (absl::Now() >= deadline) return true;
    cv.WaitWithDeadline(&mu, deadline);
  }
  return false;
}

RealClock* RealClock::Default() {
  static RealClock* clock = new RealClock();
  return clock;
}

FakeClock::FakeClock(absl::Time start) : now_(start) {}

absl::Time FakeClock::Now() const {
  absl::MutexLock lock(&mu_);
  return now_;
}

bool FakeClock::SleepUntil(absl::Time deadline, absl::Mutex& mu, absl::CondVar& cv,
                           const bool& cancelled) {
  {
    absl::MutexLock lock(&mu_);
    sleepers_.push_back({&mu, &cv});
  }
  bool reached = false;
  while (!cancelled) {
    if (Now() >= deadline) {
      reached = true;
      break;
    }
    cv.Wait(&mu);
  }
  absl::MutexLock lock(&mu_);
  auto it = std::find_if(sleepers_.begin(), sleepers_.end(),
                         [&](const Sleeper& s) { return s.cv == &cv; });
  if (it != sleepers_.end()) sleepers_.erase(it);
  return reached;
}

void FakeClock::Advance(absl::Duration d) {
  {
    absl::MutexLock lock(&mu_);
    now_ += std::max(d, absl::ZeroDuration());
  }
  WakeAll();
}

void FakeClock::Set(absl::Time t) {
  {
    absl::MutexLock lock(&mu_);
    now_ = std::max(now_, t);
  }
  WakeAll();
}

int FakeClock::Sleepers() const {
  absl::MutexLock lock(&mu_);
  return static_cast<int>(sleepers_.size());
}

void FakeClock::WakeAll() {
  std::vector<Sleeper> sleepers;
  {
    absl::MutexLock lock(&mu_);
    sleepers = sleepers_;
  }
  // Taking each sleeper's mutex before signalling closes the window between its check of
  // Now() and its wait.
  for (const Sleeper& s : sleepers) {
    absl::MutexLock lock(s.mu);
    s.cv->SignalAll();
  }
}

}  // namespace credledger::common
