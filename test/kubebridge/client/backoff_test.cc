#include "kubebridge/client/backoff.h"

#include "gtest/gtest.h"

namespace credledger::kubebridge {
namespace backoff_test {

BackoffPolicy Exact() {
  BackoffPolicy policy;
  policy.initial_delay = absl::Milliseconds(100);
  policy.multiplier = 2;
  policy.max_delay = absl::Seconds(1);
  policy.jitter = 0;
  return policy;
}

TEST(BackoffTest, DelaysGrowExponentiallyUpToTheCap) {
  BackoffPolicy policy = Exact();
  EXPECT_EQ(BackoffDelay(policy, 0, 0.5), absl::Milliseconds(100));
  EXPECT_EQ(BackoffDelay(policy, 1, 0.5), absl::Milliseconds(200));
  EXPECT_EQ(BackoffDelay(policy, 3, 0.5), absl::Milliseconds(800));
  EXPECT_EQ(BackoffDelay(policy, 4, 0.5), absl::Seconds(1));
  EXPECT_EQ(BackoffDelay(policy, 1000, 0.5), absl::Seconds(1));
}

TEST(BackoffTest, JitterSpreadsSymmetricallyAroundTheBase) {
  BackoffPolicy policy = Exact();
  policy.jitter = 0.5;
  EXPECT_EQ(BackoffDelay(policy, 1, 0.0), absl::Milliseconds(100));
  EXPECT_EQ(BackoffDelay(policy, 1, 0.5), absl::Milliseconds(200));
  EXPECT_EQ(BackoffDelay(policy, 1, 0.75), absl::Milliseconds(250));
}

TEST(BackoffTest, JitterNeverExceedsTheCap) {
  BackoffPolicy policy = Exact();
  policy.jitter = 1;
  EXPECT_EQ(BackoffDelay(policy, 10, 0.99), absl::Seconds(1));
}

TEST(BackoffTest, RetryAfterRaisesTheDelayWithinItsCap) {
  BackoffPolicy policy = Exact();
  policy.max_retry_after = absl::Seconds(30);
  EXPECT_EQ(RetryDelay(policy, 0, 0.5, absl::Seconds(3)), absl::Seconds(3));
  EXPECT_EQ(RetryDelay(policy, 0, 0.5, absl::Seconds(300)), absl::Seconds(30));
  EXPECT_EQ(RetryDelay(policy, 4, 0.5, absl::Milliseconds(1)), absl::Seconds(1));
  EXPECT_EQ(RetryDelay(policy, 0, 0.5, std::nullopt), absl::Milliseconds(100));
}

}  // namespace backoff_test
}  // namespace credledger::kubebridge
