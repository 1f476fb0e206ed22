// EventLog (event_log.h): the queue and the thread of a log's single writer.
#include "store/event_log.h"

#include <algorithm>
#include <chrono>

#include "absl/strings/str_cat.h"

namespace credledger::store {

EventLog::~EventLog() { Close(); }

bool EventLog::HasWorkOrClosing() const { return !queue_.empty() || closing_; }

void EventLog::StartWriter() {
  writer_thread_ = std::thread([this] { WriterLoop(); });
}

void EventLog::OpenReadOnly(int64_t head_seq) {
  absl::MutexLock lock(&mu_);
  committed_seq_ = head_seq;
  read_only_ = true;
  closing_ = true;  // no writer: WaitForHead does not wait for one
}

void EventLog::Close() {
  {
    absl::MutexLock lock(&mu_);
    closing_ = true;
  }
  if (writer_thread_.joinable()) writer_thread_.join();
}

absl::Status EventLog::Execute(Command command) {
  const auto queued = std::chrono::steady_clock::now();
  Pending pending{std::move(command), absl::OkStatus(), {}};
  {
    absl::MutexLock lock(&mu_);
    if (read_only_) return absl::FailedPreconditionError("store: the event log is open read-only");
    if (closing_) return absl::CancelledError("store: closing; command not run");
    queue_.push_back(&pending);
  }
  pending.done.WaitForNotification();
  append_latency_.Observe(
      std::chrono::duration<double>(std::chrono::steady_clock::now() - queued).count());
  return pending.result;
}

void EventLog::WriterLoop() {
  while (true) {
    const bool in_flight = BatchInFlight();
    std::vector<Pending*> batch;
    {
      absl::MutexLock lock(&mu_);
      if (!in_flight) mu_.Await(absl::Condition(this, &EventLog::HasWorkOrClosing));
      while (!queue_.empty() && static_cast<int>(batch.size()) < max_batch_commands_) {
        batch.push_back(queue_.front());
        queue_.pop_front();
      }
    }
    if (!batch.empty()) {
      RunBatch(batch);
    } else if (in_flight) {
      FinishBatch();
    } else {
      return;  // closing and drained
    }
  }
}

void EventLog::Complete(const std::vector<Pending*>& batch) {
  batch_sizes_.Observe(static_cast<double>(batch.size()));
  for (Pending* p : batch) p->done.Notify();
}

void EventLog::FailCommands(const std::vector<Pending*>& batch, const absl::Status& cause,
                            absl::string_view what) {
  const absl::Status failed(
      cause.code(),
      absl::StrCat("append: batch of ", batch.size(),
                   batch.size() == 1 ? " command " : " commands ", what, ": ", cause.message()));
  for (Pending* p : batch) {
    if (p->result.ok() || p->result.code() == absl::StatusCode::kUnavailable) p->result = failed;
  }
}

void EventLog::PublishHead(int64_t head_seq) {
  absl::MutexLock lock(&mu_);
  committed_seq_ = head_seq;
}

void EventLog::CountBatch(size_t commands, int64_t events, bool failed) {
  absl::MutexLock lock(&mu_);
  stats_.batches += 1;
  stats_.commands += static_cast<int64_t>(commands);
  stats_.largest_batch = std::max<int64_t>(stats_.largest_batch, commands);
  stats_.events += events;
  if (failed) stats_.failed_batches += 1;
}

int64_t EventLog::HeadSeq() const {
  absl::MutexLock lock(&mu_);
  return committed_seq_;
}

int64_t EventLog::WaitForHead(int64_t after_seq, absl::Duration timeout) const {
  struct Args {
    const EventLog* log;
    int64_t after;
  } args{this, after_seq};
  absl::MutexLock lock(&mu_);
  mu_.AwaitWithTimeout(absl::Condition(
                           +[](Args* a) ABSL_NO_THREAD_SAFETY_ANALYSIS {
                             return a->log->committed_seq_ > a->after || a->log->closing_;
                           },
                           &args),
                       timeout);
  return committed_seq_;
}

WriterStats EventLog::stats() const {
  absl::MutexLock lock(&mu_);
  WriterStats stats = stats_;
  stats.queue_depth = static_cast<int64_t>(queue_.size());
  return stats;
}

}  // namespace credledger::store
