// Cancellation: a one-way "stop now" flag for blocking work in the kube bridge (HTTP
// transfers, watch streams, rate-limit and backoff waits).
//
// A Cancellation starts live and becomes cancelled exactly once, by Cancel(). Blocking code
// either polls cancelled() (lock-free) or registers a listener that wakes it (for example a
// libcurl multi handle's wakeup), and waits through SleepUntil so that Cancel() ends the wait
// at once. CancellationLink forwards one Cancellation to another, so an operation can be
// stopped both by its client's Stop() and by a caller's own Cancellation.
//
// Thread-safety: every method may be called from any thread. Listeners run on the thread
// that calls Cancel() (or AddListener, when already cancelled), under an internal lock: they
// must be short, must not block and must not call back into the same Cancellation.
// Invariant: links form no cycle (a link always points from an outer scope to an inner one).
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "common/clock.h"

namespace credledger::kubebridge {

class Cancellation {
 public:
  Cancellation() = default;
  // Cancels, so that listeners still registered are told; owners must have ended all waits
  // on this object before destroying it.
  ~Cancellation();
  Cancellation(const Cancellation&) = delete;
  Cancellation& operator=(const Cancellation&) = delete;

  // Marks this object cancelled, wakes every SleepUntil and calls each registered listener
  // once. Idempotent: later calls do nothing.
  void Cancel();

  // True once Cancel() has been called. Lock-free; safe from libcurl callbacks.
  bool cancelled() const { return cancelled_flag_.load(std::memory_order_acquire); }

  // Blocks until `clock` reaches `deadline` or this object is cancelled, whichever is first.
  // Returns true when the deadline was reached, false when cancelled (also when already
  // cancelled on entry).
  bool SleepUntil(common::Clock& clock, absl::Time deadline);

  // SleepUntil(clock, clock.Now() + duration). A duration <= 0 returns at once (true unless
  // cancelled).
  bool SleepFor(common::Clock& clock, absl::Duration duration);

  // Registers `listener` to run once when this object is cancelled. When it is already
  // cancelled, runs `listener` now and registers nothing. Returns an id for RemoveListener
  // (0 when nothing was registered).
  uint64_t AddListener(std::function<void()> listener);

  // Unregisters the listener `id` (0 and unknown ids are ignored). After it returns, the
  // listener is not running and will not run.
  void RemoveListener(uint64_t id);

 private:
  std::atomic<bool> cancelled_flag_{false};
  // Guards the listener list and serializes Cancel against Add/RemoveListener.
  absl::Mutex listeners_mu_;
  uint64_t next_id_ ABSL_GUARDED_BY(listeners_mu_) = 1;
  std::map<uint64_t, std::function<void()>> listeners_ ABSL_GUARDED_BY(listeners_mu_);
  // Wait state handed to Clock::SleepUntil.
  absl::Mutex sleep_mu_;
  absl::CondVar sleep_cv_;
  bool cancelled_ ABSL_GUARDED_BY(sleep_mu_) = false;
};

// CancellationLink: while alive, cancelling `from` cancels `to` (at once if `from` already
// is). Destroying the link stops the forwarding; it does not undo a cancellation.
// REQUIRES: both objects outlive the link.
class CancellationLink {
 public:
  CancellationLink(Cancellation& from, Cancellation& to);
  ~CancellationLink();
  CancellationLink(const CancellationLink&) = delete;
  CancellationLink& operator=(const CancellationLink&) = delete;

 private:
  Cancellation& from_;
  uint64_t listener_id_;
};

// LinkedCancellation: a Cancellation of its own that fires when `primary` fires or, when
// given, when `*secondary` fires; an operation waits on get() so that both its owner's
// Stop() and its caller can end it. REQUIRES: both sources outlive this object.
class LinkedCancellation {
 public:
  LinkedCancellation(Cancellation& primary, Cancellation* secondary);
  LinkedCancellation(const LinkedCancellation&) = delete;
  LinkedCancellation& operator=(const LinkedCancellation&) = delete;

  Cancellation& get() { return cancellation_; }

 private:
  Cancellation cancellation_;  // declared first: the links below refer to it
  CancellationLink primary_link_;
  std::optional<CancellationLink> secondary_link_;
};

}  // namespace credledger::kubebridge
