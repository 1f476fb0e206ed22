// Tests of common::WorkPool (common/work_pool.h): tasks run on the pool's threads, new work is
// refused once the queue is full while continuations are always queued, and Stop runs what
// was queued before it joins.
#include "common/work_pool.h"

#include <atomic>
#include <thread>
#include <vector>

#include "absl/synchronization/notification.h"
#include "absl/time/time.h"
#include "gtest/gtest.h"

namespace credledger::common {
namespace {

constexpr absl::Duration kWait = absl::Seconds(10);

TEST(WorkPoolTest, RunsTasksOnItsOwnThreads) {
  WorkPool pool({.threads = 2, .max_queued = 8});
  absl::Notification ran;
  std::thread::id where;
  ASSERT_TRUE(pool.TrySchedule([&] {
    where = std::this_thread::get_id();
    ran.Notify();
  }));
  ASSERT_TRUE(ran.WaitForNotificationWithTimeout(kWait));
  EXPECT_NE(where, std::this_thread::get_id());
}

TEST(WorkPoolTest, RefusesNewWorkOnceTheQueueIsFullButQueuesContinuations) {
  WorkPool pool({.threads = 1, .max_queued = 2});
  absl::Notification started;
  absl::Notification release;
  ASSERT_TRUE(pool.TrySchedule([&] {
    started.Notify();
    release.WaitForNotification();
  }));
  ASSERT_TRUE(started.WaitForNotificationWithTimeout(kWait));
  std::atomic<int> runs = 0;
  EXPECT_TRUE(pool.TrySchedule([&] { ++runs; }));
  EXPECT_TRUE(pool.TrySchedule([&] { ++runs; }));
  EXPECT_FALSE(pool.TrySchedule([&] { ++runs; }));
  EXPECT_EQ(pool.queued(), 2u);
  EXPECT_TRUE(pool.Schedule([&] { ++runs; }));
  EXPECT_EQ(pool.queued(), 3u);
  release.Notify();
  pool.Stop();
  EXPECT_EQ(runs.load(), 3);
}

TEST(WorkPoolTest, StopRunsQueuedTasksAndTheirContinuationsThenRefusesMore) {
  WorkPool pool({.threads = 2, .max_queued = 64});
  std::atomic<int> runs = 0;
  for (int i = 0; i < 20; ++i) {
    ASSERT_TRUE(pool.TrySchedule([&] {
      ++runs;
      pool.Schedule([&] { ++runs; });
    }));
  }
  pool.Stop();
  EXPECT_EQ(runs.load(), 40);
  EXPECT_FALSE(pool.TrySchedule([] {}));
  EXPECT_FALSE(pool.Schedule([] {}));
  pool.Stop();  // idempotent
}

}  // namespace
}  // namespace credledger::common
