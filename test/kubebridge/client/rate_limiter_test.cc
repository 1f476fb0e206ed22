#include "kubebridge/client/rate_limiter.h"

#include <thread>

#include "common/clock.h"
#include "gtest/gtest.h"
#include "test/kubebridge/await_sleepers.h"
#include "test/support/status_matchers.h"

namespace credledger::kubebridge {
namespace rate_limiter_test {

TEST(RateLimiterTest, DefaultsMatchClientGo) {
  RateLimit limit;
  EXPECT_EQ(limit.qps, 5);
  EXPECT_EQ(limit.burst, 10);
}

TEST(RateLimiterTest, BurstGoesAtOnceThenRequestsArePacedAtQps) {
  common::FakeClock clock;
  RateLimiter limiter({.qps = 5, .burst = 10}, &clock);
  for (int i = 0; i < 10; ++i) EXPECT_EQ(limiter.Reserve(), absl::ZeroDuration()) << i;
  EXPECT_EQ(limiter.Reserve(), absl::Milliseconds(200));
  EXPECT_EQ(limiter.Reserve(), absl::Milliseconds(400));
}

TEST(RateLimiterTest, TokensRefillWithTimeUpToBurst) {
  common::FakeClock clock;
  RateLimiter limiter({.qps = 2, .burst = 3}, &clock);
  for (int i = 0; i < 3; ++i) limiter.Reserve();
  clock.Advance(absl::Seconds(1));  // two tokens back
  EXPECT_EQ(limiter.Reserve(), absl::ZeroDuration());
  EXPECT_EQ(limiter.Reserve(), absl::ZeroDuration());
  EXPECT_EQ(limiter.Reserve(), absl::Milliseconds(500));
  clock.Advance(absl::Hours(1));  // refill stops at the burst
  for (int i = 0; i < 3; ++i) EXPECT_EQ(limiter.Reserve(), absl::ZeroDuration());
  EXPECT_EQ(limiter.Reserve(), absl::Milliseconds(500));
}

TEST(RateLimiterTest, NonPositiveQpsDisablesLimiting) {
  common::FakeClock clock;
  RateLimiter limiter({.qps = 0, .burst = 1}, &clock);
  for (int i = 0; i < 100; ++i) EXPECT_EQ(limiter.Reserve(), absl::ZeroDuration());
}

TEST(RateLimiterTest, WaitBlocksUntilTheFakeClockReachesTheReservation) {
  common::FakeClock clock;
  RateLimiter limiter({.qps = 1, .burst = 1}, &clock);
  Cancellation cancel;
  ASSERT_OK(limiter.Wait(cancel));  // the burst token
  absl::Time start = clock.Now();
  absl::Status waited = absl::UnknownError("not run");
  std::thread waiter([&] { waited = limiter.Wait(cancel); });
  ASSERT_TRUE(AwaitSleepers(clock, 1));
  clock.Advance(absl::Milliseconds(999));
  EXPECT_EQ(clock.Sleepers(), 1);
  clock.Advance(absl::Milliseconds(1));
  waiter.join();
  EXPECT_OK(waited);
  EXPECT_EQ(clock.Now() - start, absl::Seconds(1));
}

TEST(RateLimiterTest, CancellationEndsAWait) {
  common::FakeClock clock;
  RateLimiter limiter({.qps = 0.001, .burst = 1}, &clock);
  Cancellation cancel;
  limiter.Reserve();
  absl::Status waited;
  std::thread waiter([&] { waited = limiter.Wait(cancel); });
  ASSERT_TRUE(AwaitSleepers(clock, 1));
  cancel.Cancel();
  waiter.join();
  EXPECT_EQ(waited.code(), absl::StatusCode::kCancelled);
}

}  // namespace rate_limiter_test
}  // namespace credledger::kubebridge
