// WorkQueue: the reconcilers' queue of keys (one key per Target), with delayed adds and
// per-key exponential backoff (docs/design.md, "Reconcilers").
//
// A key is pending at most once (an earlier due time wins), is handed to one worker at a
// time, and a key added while its worker runs is handed out again after Done. Done(key,
// failed=true) re-adds the key after the key's next backoff delay; Done(key, false) resets
// its backoff. Time comes from the injected Clock, so tests drive delays with a FakeClock.
//
// Thread-safety: all methods are thread-safe.
#pragma once

#include <map>
#include <optional>
#include <set>
#include <string>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "common/clock.h"
#include "kubebridge/client/backoff.h"

namespace credledger::kubebridge {

class WorkQueue {
 public:
  // `clock` is not owned and must outlive the queue.
  WorkQueue(common::Clock& clock, BackoffPolicy backoff);

  // Makes `key` due now.
  void Add(const std::string& key);
  // Makes `key` due at `when` unless it is already due earlier.
  void AddAt(const std::string& key, absl::Time when);
  // Blocks until a key is due and no worker holds it, then hands it out. Returns nullopt
  // once ShutDown was called.
  std::optional<std::string> Get();
  // Ends the worker's hold on `key` (REQUIRES: handed out by Get). When `failed`, the key is
  // due again after its backoff delay (initial, doubling, capped); otherwise its failure
  // count is reset.
  void Done(const std::string& key, bool failed);
  // Wakes every Get with nullopt; later Adds are ignored.
  void ShutDown();

  // Blocks until no worker holds a key and no key is due yet, or `timeout` passes. Returns
  // true when idle. For tests and orderly shutdown.
  bool WaitIdle(absl::Duration timeout) const;

  // Keys pending (due or delayed), for metrics and tests.
  size_t Depth() const;
  // Failures in a row of `key` (0 after a success).
  int Failures(const std::string& key) const;

 private:
  void AddLocked(const std::string& key, absl::Time when) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  bool IdleLocked() const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  common::Clock& clock_;
  const BackoffPolicy backoff_;
  mutable absl::Mutex mu_;
  absl::CondVar cv_;
  // Due time of each pending key, and the same ordered by time.
  std::map<std::string, absl::Time> due_ ABSL_GUARDED_BY(mu_);
  std::set<std::pair<absl::Time, std::string>> by_time_ ABSL_GUARDED_BY(mu_);
  std::set<std::string> active_ ABSL_GUARDED_BY(mu_);
  std::map<std::string, int> failures_ ABSL_GUARDED_BY(mu_);
  bool shut_down_ ABSL_GUARDED_BY(mu_) = false;
  // Set by an Add to end a Get's timed wait early, so it re-reads the earliest due time.
  bool wake_ ABSL_GUARDED_BY(mu_) = false;
};

}  // namespace credledger::kubebridge
