// Clock: the one source of "now" for code that does I/O. Deciders and projections never
// read a clock; time reaches them as an argument taken from a Clock at the edge.
//
// Thread-safety: every Clock implementation is safe to call from any thread.
#pragma once

#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"

namespace credledger::common {

class Clock {
 public:
  virtual ~Clock() = default;
  // Returns the current wall-clock time.
  virtual absl::Time Now() const = 0;
  // Blocks until Now() >= deadline or `cancelled` becomes true (checked under `mu`, which
  // the caller passes so that writers of `cancelled` can wake the sleeper by signalling
  // `cv`). Returns true when the deadline was reached, false when cancelled.
  // REQUIRES: `mu` is held by the caller.
  virtual bool SleepUntil(absl::Time deadline, absl::Mutex& mu, absl::CondVar& cv,
                          const bool& cancelled) = 0;
};

// RealClock: absl::Now() and real waiting.
class RealClock final : public Clock {
 public:
  absl::Time Now() const override;
  bool SleepUntil(absl::Time deadline, absl::Mutex& mu, absl::CondVar& cv,
                  const bool& cancelled) override;
  // A process-wide instance (trivially destructible, never deleted).
  static RealClock* Default();
};

// FakeClock: time moves only when a test calls Advance or Set. Sleepers registered through
// SleepUntil wake when the fake time reaches their deadline.
class FakeClock final : public Clock {
 public:
  explicit FakeClock(absl::Time start = absl::FromUnixSeconds(1767225600));  // 2026-01-01
  absl::Time Now() const override;
  bool SleepUntil(absl::Time deadline, absl::Mutex& mu, absl::CondVar& cv,
                  const bool& cancelled) override;
  // Moves time forward by `d` (>= 0) and wakes sleepers whose deadline has passed.
  void Advance(absl::Duration d);
  // Sets time to `t` (never earlier than now) and wakes sleepers whose deadline passed.
  void Set(absl::Time t);
  // Number of threads currently blocked in SleepUntil; lets tests wait until a worker
  // has gone to sleep before advancing time.
  int Sleepers() const;

 private:
  struct Sleeper {
    absl::Mutex* mu;
    absl::CondVar* cv;
  };
  void WakeAll();

  mutable absl::Mutex mu_;
  absl::Time now_ ABSL_GUARDED_BY(mu_);
  std::vector<Sleeper> sleepers_ ABSL_GUARDED_BY(mu_);
};

}  // namespace credledger::common
