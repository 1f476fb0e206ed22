// WorkPool: a fixed set of threads that run queued tasks in order, so that work which blocks
// (a write waiting for its batch to be durable, a read of the log, a call to a cluster) runs
// on threads of our own instead of the threads that serve gRPC callbacks (docs/api.md,
// "Threads and streams").
//
// New work is admitted with TrySchedule, which refuses once `max_queued` tasks wait, so a
// flood of calls cannot grow the queue without bound. Continuations of work already admitted
// (the next page of a stream) use Schedule, which always queues.
//
// Thread-safety: thread-safe. Tasks may schedule further tasks.
#pragma once

#include <cstddef>
#include <deque>
#include <functional>
#include <string>
#include <thread>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"

namespace credledger::common {

class WorkPool {
 public:
  struct Options {
    int threads = 4;           // >= 1
    size_t max_queued = 1024;  // tasks TrySchedule lets wait; >= 1
  };

  // Starts `options.threads` threads.
  explicit WorkPool(Options options);
  // Stop().
  ~WorkPool();
  WorkPool(const WorkPool&) = delete;
  WorkPool& operator=(const WorkPool&) = delete;

  // Queues `task` unless `max_queued` tasks already wait or the pool is stopping.
  // Returns: whether it was queued.
  bool TrySchedule(std::function<void()> task);

  // Queues `task` however many wait. Returns false only once Stop has begun.
  bool Schedule(std::function<void()> task);

  // Runs the tasks already queued (and those they schedule), then joins the threads. Later
  // Schedule and TrySchedule calls return false. Idempotent.
  void Stop();

  // Tasks waiting to run, and the configured limit.
  size_t queued() const;
  size_t max_queued() const { return options_.max_queued; }

 private:
  void Run();
  bool Queue(std::function<void()> task, bool bounded);

  const Options options_;
  mutable absl::Mutex mu_;
  std::deque<std::function<void()>> tasks_ ABSL_GUARDED_BY(mu_);
  bool stopping_ ABSL_GUARDED_BY(mu_) = false;
  int running_ ABSL_GUARDED_BY(mu_) = 0;  // tasks being run now
  std::vector<std::thread> threads_;
};

}  // namespace credledger::common
