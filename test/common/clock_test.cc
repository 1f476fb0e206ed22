#include "common/clock.h"

#include <thread>

#include "gtest/gtest.h"

namespace credledger::common {
namespace clock_test {

TEST(FakeClockTest, TimeMovesOnlyWhenAdvanced) {
  FakeClock clock(absl::FromUnixSeconds(100));
  EXPECT_EQ(clock.Now(), absl::FromUnixSeconds(100));
  clock.Advance(absl::Seconds(5));
  EXPECT_EQ(clock.Now(), absl::FromUnixSeconds(105));
  clock.Set(absl::FromUnixSeconds(50));  // never backwards
  EXPECT_EQ(clock.Now(), absl::FromUnixSeconds(105));
}

TEST(FakeClockTest, SleeperWakesWhenFakeTimeReachesDeadline) {
  FakeClock clock(absl::FromUnixSeconds(0));
  absl::Mutex mu;
  absl::CondVar cv;
  bool cancelled = false;
  bool reached = false;
  std::thread sleeper([&] {
    absl::MutexLock lock(&mu);
    reached = clock.SleepUntil(absl::FromUnixSeconds(10), mu, cv, cancelled);
  });
  // Wait (with a deadline) until the sleeper is registered.
  absl::Time give_up = absl::Now() + absl::Seconds(10);
  while (clock.Sleepers() == 0 && absl::Now() < give_up) std::this_thread::yield();
  ASSERT_EQ(clock.Sleepers(), 1);
  clock.Advance(absl::Seconds(9));
  EXPECT_EQ(clock.Sleepers(), 1);
  clock.Advance(absl::Seconds(1));
  sleeper.join();
  EXPECT_TRUE(reached);
  EXPECT_EQ(clock.Sleepers(), 0);
}

TEST(FakeClockTest, CancelledSleeperReturnsFalse) {
  FakeClock clock;
  absl::Mutex mu;
  absl::CondVar cv;
  bool cancelled = false;
  bool reached = true;
  std::thread sleeper([&] {
    absl::MutexLock lock(&mu);
    reached = clock.SleepUntil(clock.Now() + absl::Hours(1), mu, cv, cancelled);
  });
  absl::Time give_up = absl::Now() + absl::Seconds(10);
  while (clock.Sleepers() == 0 && absl::Now() < give_up) std::this_thread::yield();
  {
    absl::MutexLock lock(&mu);
    cancelled = true;
    cv.SignalAll();
  }
  sleeper.join();
  EXPECT_FALSE(reached);
}

}  // namespace clock_test
}  // namespace credledger::common
