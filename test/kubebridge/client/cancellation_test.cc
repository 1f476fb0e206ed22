#include "kubebridge/client/cancellation.h"

#include <thread>

#include "common/clock.h"
#include "gtest/gtest.h"
#include "test/kubebridge/await_sleepers.h"

namespace credledger::kubebridge {
namespace cancellation_test {

TEST(CancellationTest, ListenersRunOnceAndLateListenersRunAtOnce) {
  Cancellation cancel;
  int calls = 0;
  cancel.AddListener([&] { ++calls; });
  cancel.Cancel();
  cancel.Cancel();
  EXPECT_EQ(calls, 1);
  EXPECT_TRUE(cancel.cancelled());
  int late = 0;
  EXPECT_EQ(cancel.AddListener([&] { ++late; }), 0u);
  EXPECT_EQ(late, 1);
}

TEST(CancellationTest, RemovedListenerDoesNotRun) {
  Cancellation cancel;
  int calls = 0;
  uint64_t id = cancel.AddListener([&] { ++calls; });
  cancel.RemoveListener(id);
  cancel.Cancel();
  EXPECT_EQ(calls, 0);
}

TEST(CancellationTest, LinkForwardsOnlyWhileAlive) {
  Cancellation outer;
  Cancellation inner;
  { CancellationLink link(outer, inner); }
  outer.Cancel();
  EXPECT_FALSE(inner.cancelled());
  Cancellation inner2;
  CancellationLink link(outer, inner2);  // outer already cancelled: forwards at once
  EXPECT_TRUE(inner2.cancelled());
}

TEST(CancellationTest, LinkedCancellationFiresFromEitherSource) {
  Cancellation owner;
  Cancellation caller;
  LinkedCancellation by_owner(owner, &caller);
  LinkedCancellation owner_only(owner, nullptr);
  caller.Cancel();
  EXPECT_TRUE(by_owner.get().cancelled());
  EXPECT_FALSE(owner_only.get().cancelled());
  owner.Cancel();
  EXPECT_TRUE(owner_only.get().cancelled());
}

TEST(CancellationTest, CancelWakesASleeperOnTheFakeClock) {
  common::FakeClock clock;
  Cancellation outer;
  Cancellation inner;
  CancellationLink link(outer, inner);
  bool reached = true;
  std::thread sleeper([&] { reached = inner.SleepFor(clock, absl::Hours(1)); });
  ASSERT_TRUE(AwaitSleepers(clock, 1));
  outer.Cancel();
  sleeper.join();
  EXPECT_FALSE(reached);
}

TEST(CancellationTest, SleepReachesItsDeadlineWhenNotCancelled) {
  common::FakeClock clock;
  Cancellation cancel;
  EXPECT_TRUE(cancel.SleepFor(clock, absl::ZeroDuration()));
  bool reached = false;
  std::thread sleeper([&] { reached = cancel.SleepFor(clock, absl::Seconds(2)); });
  ASSERT_TRUE(AwaitSleepers(clock, 1));
  clock.Advance(absl::Seconds(2));
  sleeper.join();
  EXPECT_TRUE(reached);
}

}  // namespace cancellation_test
}  // namespace credledger::kubebridge
