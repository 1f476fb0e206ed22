// Histogram: observations counted in fixed buckets, with their sum, for Prometheus
// histograms (docs/operations.md, "Metrics and health").
//
// Bucket i (0 <= i < bounds.size()) counts the observations v with bounds[i-1] < v <=
// bounds[i]; one more bucket (+Inf) counts those above every bound. Units are the metric's
// (seconds for latencies, a count for sizes).
//
// Thread-safety: Observe and Read are thread-safe and lock-free (relaxed atomics). A Read
// that runs beside Observe calls may count an observation in its bucket before its value is
// in the sum; the count always equals the sum of the buckets.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <vector>

namespace credledger::common {

class Histogram {
 public:
  // REQUIRES: `bounds` is non-empty, finite and strictly increasing
  // (MetricsRegistry::AddHistogram refuses a histogram that is not).
  explicit Histogram(std::vector<double> bounds);
  Histogram(const Histogram&) = delete;
  Histogram& operator=(const Histogram&) = delete;

  // Counts `value` in its bucket and adds it to the sum. REQUIRES: value is not NaN.
  void Observe(double value);

  struct Snapshot {
    std::vector<double> bounds;
    // Observations <= bounds[i] for each i, then the total count (the +Inf bucket).
    std::vector<uint64_t> cumulative;
    double sum = 0;
  };
  Snapshot Read() const;

  const std::vector<double>& bounds() const { return bounds_; }

 private:
  const std::vector<double> bounds_;
  // bounds_.size() + 1 non-cumulative bucket counts; the last is +Inf.
  std::unique_ptr<std::atomic<uint64_t>[]> buckets_;
  std::atomic<double> sum_{0};
};

// `count` bounds start, start*factor, start*factor^2, ... REQUIRES: start > 0, factor > 1,
// count >= 1.
std::vector<double> ExponentialBuckets(double start, double factor, int count);

}  // namespace credledger::common
