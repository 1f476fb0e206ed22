// AwaitSleepers: lets a test wait (bounded by real time, without sleeping) until worker
// threads are blocked on a FakeClock, before it advances the clock or cancels them.
#pragma once

#include <thread>

#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "common/clock.h"

namespace credledger::kubebridge {

// Returns true once `clock` has at least `n` sleepers; false after `limit` of real time.
inline bool AwaitSleepers(const common::FakeClock& clock, int n,
                          absl::Duration limit = absl::Seconds(30)) {
  absl::Time give_up = absl::Now() + limit;
  while (clock.Sleepers() < n) {
    if (absl::Now() >= give_up) return false;
    std::this_thread::yield();
  }
  return true;
}

}  // namespace credledger::kubebridge
