// Histogram: bucketing at and between bounds, the +Inf bucket, the sum, and counts that add
// up when several threads observe at once.
#include "common/histogram.h"

#include <thread>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace credledger::common {
namespace histogram_test {

using ::testing::ElementsAre;

TEST(HistogramTest, AnObservationCountsInTheFirstBucketWhoseBoundIsAtLeastIt) {
  Histogram histogram({0.1, 1, 10});
  histogram.Observe(0.05);  // <= 0.1
  histogram.Observe(0.1);   // on the bound: still le 0.1
  histogram.Observe(0.5);   // <= 1
  histogram.Observe(10);    // <= 10
  histogram.Observe(11);    // +Inf only
  const Histogram::Snapshot snapshot = histogram.Read();
  EXPECT_THAT(snapshot.bounds, ElementsAre(0.1, 1, 10));
  EXPECT_THAT(snapshot.cumulative, ElementsAre(2u, 3u, 4u, 5u));
  EXPECT_DOUBLE_EQ(snapshot.sum, 0.05 + 0.1 + 0.5 + 10 + 11);
}

TEST(HistogramTest, AnEmptyHistogramReadsZeros) {
  Histogram histogram({1, 2});
  const Histogram::Snapshot snapshot = histogram.Read();
  EXPECT_THAT(snapshot.cumulative, ElementsAre(0u, 0u, 0u));
  EXPECT_EQ(snapshot.sum, 0);
}

TEST(HistogramTest, ExponentialBucketsMultiplyFromTheStart) {
  EXPECT_THAT(ExponentialBuckets(1, 2, 5), ElementsAre(1, 2, 4, 8, 16));
  EXPECT_THAT(ExponentialBuckets(0.0005, 2, 3), ElementsAre(0.0005, 0.001, 0.002));
}

TEST(HistogramTest, ConcurrentObservationsAreAllCounted) {
  Histogram histogram({1, 2, 3});
  constexpr int kThreads = 8;
  constexpr int kPerThread = 20000;
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&histogram, t] {
      // Thread t observes t % 4 + 0.5: buckets le 1, le 2, le 3 and +Inf in turn.
      for (int i = 0; i < kPerThread; ++i) histogram.Observe(t % 4 + 0.5);
    });
  }
  for (std::thread& t : threads) t.join();
  const Histogram::Snapshot snapshot = histogram.Read();
  // Two threads per bucket.
  EXPECT_THAT(snapshot.cumulative,
              ElementsAre(2u * kPerThread, 4u * kPerThread, 6u * kPerThread, 8u * kPerThread));
  // 0.5, 1.5, 2.5 and 3.5 are exact in binary, so the sum is exact too.
  EXPECT_EQ(snapshot.sum, 2.0 * kPerThread * (0.5 + 1.5 + 2.5 + 3.5));
}

}  // namespace histogram_test
}  // namespace credledger::common
