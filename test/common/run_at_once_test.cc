// Tests of common::RunAtOnce (common/run_at_once.h): every task runs exactly once, the first on
// the calling thread, and the tasks run at the same time.
#include "common/run_at_once.h"

#include <functional>
#include <set>
#include <thread>
#include <vector>

#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "gtest/gtest.h"

namespace credledger::common {
namespace {

TEST(RunAtOnceTest, RunsEveryTaskOnceAndTheFirstOnTheCallingThread) {
  absl::Mutex mu;
  std::vector<int> runs(5, 0);
  std::set<std::thread::id> threads;
  std::thread::id first;
  std::vector<std::function<void()>> tasks;
  for (int i = 0; i < 5; ++i) {
    tasks.push_back([&, i] {
      absl::MutexLock lock(&mu);
      ++runs[i];
      threads.insert(std::this_thread::get_id());
      if (i == 0) first = std::this_thread::get_id();
    });
  }
  RunAtOnce(tasks);
  EXPECT_EQ(runs, std::vector<int>(5, 1));
  EXPECT_EQ(first, std::this_thread::get_id());
  EXPECT_EQ(threads.size(), 5u);
}

TEST(RunAtOnceTest, TheTasksRunAtTheSameTime) {
  // Each task waits until all three have started: run one after another, the first would
  // give up at its deadline.
  absl::Mutex mu;
  int started = 0;
  int met = 0;
  std::vector<std::function<void()>> tasks(3, [&] {
    absl::MutexLock lock(&mu);
    ++started;
    if (mu.AwaitWithTimeout(absl::Condition(
                                +[](int* n) { return *n == 3; }, &started),
                            absl::Seconds(10))) {
      ++met;
    }
  });
  RunAtOnce(tasks);
  EXPECT_EQ(met, 3);
}

}  // namespace
}  // namespace credledger::common
