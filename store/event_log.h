// EventLog: an EventStore with one writer thread that group-commits queued commands
// (docs/design.md, "Group commit"), the base of SqliteEventStore and PostgresEventStore.
//
// Execute queues a command and waits; the writer thread takes whatever is queued (no timer, at
// most `max_batch_commands`) and hands the batch to the backend's RunBatch, which runs each
// command, commits, sets each command's result and publishes the committed head. A backend may
// keep a batch in flight (sent, its commit not yet confirmed) while the writer takes the next
// one; batches complete in order. HeadSeq and WaitForHead answer from the published head, so a
// reader never asks for rows that are not committed.
//
// Thread-safety: all public methods are thread-safe. RunBatch runs on the writer thread.
#pragma once

#include <cstdint>
#include <deque>
#include <map>
#include <string>
#include <thread>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "absl/synchronization/mutex.h"
#include "absl/synchronization/notification.h"
#include "common/histogram.h"
#include "store/event_store.h"

namespace credledger::store {

// The writer's counters since the log was opened, for tests and metrics.
struct WriterStats {
  int64_t batches = 0;   // group commits run, committed or not
  int64_t commands = 0;  // commands run
  int64_t largest_batch = 0;
  int64_t queue_depth = 0;     // commands waiting for the writer right now
  int64_t events = 0;          // events appended by committed batches
  int64_t failed_batches = 0;  // group commits that committed nothing (busy, full disk, I/O
                               // error, a lost connection, a closed write fence)
};

class EventLog : public EventStore {
 public:
  using Stats = WriterStats;

  // Stops the writer (Close). A backend's destructor calls Close first, so that the writer
  // thread never runs into a half-destroyed backend.
  ~EventLog() override;

  // Stops accepting commands (later ones get kCancelled), finishes the queued ones, joins the
  // writer and wakes WaitForHead callers. Idempotent; not to be called from two threads at
  // once.
  void Close();

  // Queues `command` for the writer and waits for its answer (EventStore::Execute).
  // Errors: kFailedPrecondition when the log is open read-only; kCancelled once closing;
  // else what the backend's RunBatch set.
  absl::Status Execute(Command command) final;
  int64_t HeadSeq() const final;
  int64_t WaitForHead(int64_t after_seq, absl::Duration timeout) const final;

  WriterStats stats() const;
  // The writer's epoch on a backend that fences writers by epoch (PostgreSQL); 0 otherwise.
  virtual int64_t writer_epoch() const { return 0; }
  // Errors of the database server by class (PostgreSQL's SQLSTATE classes); empty otherwise.
  virtual std::map<std::string, int64_t> database_errors() const { return {}; }
  // Seconds from Execute to each command's answer, and commands per group commit, since the
  // log was opened; read by the service's metrics (docs/operations.md, "Metrics and health").
  const common::Histogram& append_latency() const { return append_latency_; }
  const common::Histogram& batch_sizes() const { return batch_sizes_; }

 protected:
  // A command waiting for the writer. Lives on the caller's stack until `done` is notified.
  struct Pending {
    Command command;
    absl::Status result;
    absl::Notification done;
  };

  explicit EventLog(int max_batch_commands) : max_batch_commands_(max_batch_commands) {}

  // Takes `batch` (1 to max_batch_commands commands; it may be moved from): sets every
  // command's result, publishes the head after it (PublishHead) and hands it to Complete, either
  // before returning or later from FinishBatch, batches in the order they were taken. Called on
  // the writer thread only.
  virtual void RunBatch(std::vector<Pending*>& batch) = 0;
  // Whether a batch RunBatch took is not complete yet: the writer then takes the next batch
  // without waiting, or calls FinishBatch when none is queued. Writer thread only.
  virtual bool BatchInFlight() const { return false; }
  // Waits for the oldest batch in flight and completes it. Writer thread only.
  virtual void FinishBatch() {}
  // Answers every command of `batch` (their results set) and counts the batch's size.
  void Complete(const std::vector<Pending*>& batch);
  // Sets the result of every command of `batch` that succeeded on its own, or failed
  // kUnavailable, to `cause`'s code with the message "append: batch of N commands <what>:
  // <cause's message>". Commands that failed on their own keep their error.
  static void FailCommands(const std::vector<Pending*>& batch, const absl::Status& cause,
                           absl::string_view what);

  // Starts the writer thread. Called once, by the backend's Open, after the head is loaded.
  void StartWriter();
  // For a log opened read-only: publishes `head_seq`, refuses every command
  // (kFailedPrecondition) and never waits in WaitForHead.
  void OpenReadOnly(int64_t head_seq);
  // Sets the committed head (at open, after a reload, and by RunBatch after each batch).
  void PublishHead(int64_t head_seq);
  // Counts one batch of `commands` commands that appended `events` events (0 when it failed).
  void CountBatch(size_t commands, int64_t events, bool failed);

 private:
  bool HasWorkOrClosing() const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void WriterLoop();

  const int max_batch_commands_;
  mutable absl::Mutex mu_;
  std::deque<Pending*> queue_ ABSL_GUARDED_BY(mu_);
  bool closing_ ABSL_GUARDED_BY(mu_) = false;
  bool read_only_ ABSL_GUARDED_BY(mu_) = false;
  int64_t committed_seq_ ABSL_GUARDED_BY(mu_) = 0;
  WriterStats stats_ ABSL_GUARDED_BY(mu_);
  // 0.5 ms to about 8 s, doubling; 1 to 1024 commands, doubling.
  common::Histogram append_latency_{common::ExponentialBuckets(0.0005, 2, 15)};
  common::Histogram batch_sizes_{common::ExponentialBuckets(1, 2, 11)};
  std::thread writer_thread_;
};

}  // namespace credledger::store
