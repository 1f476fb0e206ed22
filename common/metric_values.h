// Counter and Gauge: the lock-free values behind Prometheus counters and gauges
// (docs/operations.md, "Metrics and health"). MetricsRegistry
// (metrics_registry.h) names and renders them; a module may also own a Counter and let the
// service read it at scrape time, so the module does not depend on the registry.
//
// Thread-safety: every method is thread-safe and lock-free (one relaxed atomic operation).
#pragma once

#include <atomic>
#include <cstdint>

namespace credledger::common {

// A count that only goes up (events, requests, errors). Starts at 0.
class Counter {
 public:
  // Adds `n`. REQUIRES: n >= 0.
  void Increment(int64_t n = 1) { value_.fetch_add(n, std::memory_order_relaxed); }
  int64_t Value() const { return value_.load(std::memory_order_relaxed); }

 private:
  std::atomic<int64_t> value_{0};
};

// A value that is set (a time, a level). Starts at 0.
class Gauge {
 public:
  void Set(double value) { value_.store(value, std::memory_order_relaxed); }
  double Value() const { return value_.load(std::memory_order_relaxed); }

 private:
  std::atomic<double> value_{0};
};

}  // namespace credledger::common
