// How the crash test arms fault points (docs/testing.md, "Crash test"): which point a cycle
// arms, and at which arrival (common/fault_points.h, CREDLEDGER_FAULT_POINTS=<point>:<n>).
#pragma once

#include <algorithm>
#include <cstdint>
#include <iterator>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "test/integration/fault_point_list.h"

namespace credledger::testing::crash_fault_arming {

// Which fault point a cycle arms: every point of kFaultPoints once per round, in an order
// shuffled anew for each round, so that a run arms all of them about equally often.
class FaultPointRotation {
 public:
  // `seed` makes the order repeatable.
  explicit FaultPointRotation(uint64_t seed)
      : rng_(seed), order_(std::begin(kFaultPoints), std::end(kFaultPoints)) {}

  // The point the next armed cycle arms.
  std::string Next() {
    if (next_ == order_.size()) {
      std::shuffle(order_.begin(), order_.end(), rng_);
      next_ = 0;
    }
    return order_[next_++];
  }

 private:
  std::mt19937_64 rng_;
  std::vector<std::string> order_;
  size_t next_ = order_.size();
};

// The last arrival at `point` a cycle may arm it for (CREDLEDGER_FAULT_POINTS=<point>:<n>,
// n drawn from 1 to this). The points on the path of every commit are passed many times
// during start-up alone, so they are armed up to their 40th arrival, which lands many kills
// among the client's commands; a cycle writes the mirror once (one source rotation), so its
// points fire at their first arrival; the others up to their 3rd.
inline int LastArrival(const std::string& point) {
  for (const char* every_commit :
       {"store.after_batch_command", "store.before_commit", "store.after_commit"}) {
    if (point == every_commit) return 40;
  }
  return absl::StartsWith(point, "mirror.") ? 1 : 3;
}

}  // namespace credledger::testing::crash_fault_arming
