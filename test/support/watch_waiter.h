// WatchWaiter: the `wake` function of a ProjectorWatch under test
// (service/api/projector_watch.h), and Next, which polls the watch and waits for a wake up to
// a deadline, so that tests wait for items without sleeping.
#pragma once

#include <functional>
#include <optional>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"

namespace credledger::service {

class WatchWaiter {
 public:
  // The function to give the watch; it must not outlive this object.
  std::function<void()> wake() {
    return [this] {
      absl::MutexLock lock(&mu_);
      ++wakes_;
    };
  }

  // Wakes so far.
  int wakes() const {
    absl::MutexLock lock(&mu_);
    return wakes_;
  }

  // The watch's next item, waiting at most `timeout`: its Poll's answer, nullopt when none
  // arrived in time.
  template <typename Watch>
  auto Next(Watch& watch, absl::Duration timeout) -> decltype(watch.Poll()) {
    const absl::Time deadline = absl::Now() + timeout;
    while (true) {
      const int seen = wakes();
      auto item = watch.Poll();
      if (!item.ok() || item->has_value()) return item;
      absl::MutexLock lock(&mu_);
      auto woken = [this, seen]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) { return wakes_ != seen; };
      if (!mu_.AwaitWithDeadline(absl::Condition(&woken), deadline)) return item;
    }
  }

 private:
  mutable absl::Mutex mu_;
  int wakes_ ABSL_GUARDED_BY(mu_) = 0;
};

}  // namespace credledger::service
