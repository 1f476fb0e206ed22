// Subscription: follows the log in seq order, catch-up then live (docs/design.md,
// "Subscriptions").
//
// Starting after a position (0 for the beginning, or a projection's checkpoint), it pages
// through the stored events (each page one short read transaction, so the WAL can be
// checkpointed), then waits for new commits and hands every event to the handler, on the
// subscription's own thread, strictly in seq order and each exactly once.
//
// Thread-safety: Stop, position, status and WaitForPosition may be called from any thread.
#pragma once

#include <cstdint>
#include <memory>
#include <thread>

#include "absl/base/thread_annotations.h"
#include "absl/functional/any_invocable.h"
#include "absl/status/status.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "store/event_store.h"

namespace credledger::store {

class Subscription {
 public:
  // Called once per event in seq order; an error ends the subscription with that status.
  using Handler = absl::AnyInvocable<absl::Status(const RecordedEvent&)>;

  // Starts following `store` (not owned; must outlive the subscription) after `after_seq`.
  // `page_size` bounds the events read per read transaction.
  Subscription(EventStore* store, int64_t after_seq, Handler handler, int page_size = 512);
  // Stops and joins.
  ~Subscription();
  Subscription(const Subscription&) = delete;
  Subscription& operator=(const Subscription&) = delete;

  // Stops following; returns after the thread has ended (within one poll interval).
  void Stop();
  // The seq of the last event handed to the handler.
  int64_t position() const;
  // OK while running or after Stop; the handler's or a read's error once that ended it.
  absl::Status status() const;
  // Blocks until position() >= `seq`, the subscription ends, or `timeout` passes.
  // Returns true when the position was reached.
  bool WaitForPosition(int64_t seq, absl::Duration timeout) const;

 private:
  void Run();
  bool Stopping() const;

  EventStore* store_;
  Handler handler_;
  const int page_size_;

  mutable absl::Mutex mu_;
  int64_t position_ ABSL_GUARDED_BY(mu_);
  absl::Status status_ ABSL_GUARDED_BY(mu_);
  bool stopping_ ABSL_GUARDED_BY(mu_) = false;
  bool ended_ ABSL_GUARDED_BY(mu_) = false;
  std::thread thread_;
};

}  // namespace credledger::store
