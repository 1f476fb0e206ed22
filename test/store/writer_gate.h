// Helpers that make queued commands form one group commit (docs/design.md, "Group commit"):
// WriterGate holds the store's single writer inside a command until released, and
// WaitQueueDepth waits until the commands meant for the next batch are queued behind it. For
// tests only.
//
// Thread-safety: WriterGate's methods may be called from any thread.
#pragma once

#include <thread>
#include <utility>

#include "absl/synchronization/notification.h"
#include "absl/time/clock.h"
#include "gtest/gtest.h"
#include "store/event_store.h"

namespace credledger::testing {

class WriterGate {
 public:
  // A command that signals it entered, waits for Release and then appends `request`.
  store::Command Blocker(store::AppendRequest request) {
    return [this, request = std::move(request)](store::WriteTransaction& tx) -> absl::Status {
      entered_.Notify();
      release_.WaitForNotification();
      return tx.Append(request).status();
    };
  }
  // Blocks until the writer runs the Blocker.
  void WaitEntered() { entered_.WaitForNotification(); }
  // Lets the Blocker go on.
  void Release() { release_.Notify(); }

 private:
  absl::Notification entered_, release_;
};

// Waits (at most 30 s, reached only when a test fails) until `depth` commands are queued
// behind the writer of `store` (a store with stats().queue_depth); a fatal test failure when
// they are not.
template <typename Store>
void WaitQueueDepth(const Store& store, int64_t depth) {
  const absl::Time give_up = absl::Now() + absl::Seconds(30);
  while (store.stats().queue_depth < depth && absl::Now() < give_up) std::this_thread::yield();
  ASSERT_EQ(store.stats().queue_depth, depth);
}

}  // namespace credledger::testing
