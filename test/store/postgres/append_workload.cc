#include "test/store/postgres/append_workload.h"

#include <algorithm>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/time/clock.h"
#include "audit/signed_records.h"

namespace credledger::testing {
namespace {

// Streams every writer appends to, besides its own.
constexpr int kSharedStreams = 8;
// Failures Summary lists.
constexpr size_t kFailuresShown = 5;

// The n-th request (from 0) of writer `writer`, as the header describes it.
store::AppendRequest RequestOf(int writer, int n) {
  const std::string request_id = absl::StrCat("w", writer, "-", n);
  const store::NewEvent event{"credledger.v1.ServiceConfigured", 1, "m", request_id};
  store::AppendRequest request{request_id, {}};
  request.streams.push_back(store::StreamAppend{
      absl::StrCat("writer/", writer),
      n == 0 ? store::ExpectedVersion::NoStream() : store::ExpectedVersion::Exactly(n - 1),
      {event}});
  if (n % 3 == 0) {
    request.streams.push_back(store::StreamAppend{
        absl::StrCat("shared/", (n / 3) % kSharedStreams), store::ExpectedVersion::Any(), {event}});
  }
  return request;
}

}  // namespace

AppendWorkload::AppendWorkload(store::EventStore& store, const audit::SigningKey& key,
                               const common::Clock& clock, AppendWorkloadOptions options)
    : store_(store), key_(key), clock_(clock), options_(options) {}

AppendWorkload::~AppendWorkload() { Stop(); }

void AppendWorkload::Start() {
  {
    absl::MutexLock lock(&mu_);
    writers_running_ = options_.writers;
  }
  for (int writer = 0; writer < options_.writers; ++writer) {
    threads_.emplace_back([this, writer] { Write(writer); });
  }
  threads_.emplace_back([this] { Checkpoint(); });
}

bool AppendWorkload::AwaitAcknowledged(int64_t events, absl::Duration timeout) {
  absl::MutexLock lock(&mu_);
  const auto enough = [this, events]() ABSL_SHARED_LOCKS_REQUIRED(mu_) {
    return acknowledged_events_ >= events || writers_running_ == 0;
  };
  mu_.AwaitWithTimeout(absl::Condition(&enough), timeout);
  return acknowledged_events_ >= events;
}

void AppendWorkload::Stop() {
  {
    absl::MutexLock lock(&mu_);
    stopping_ = true;
  }
  for (std::thread& thread : threads_) thread.join();
  threads_.clear();
}

bool AppendWorkload::stopping() const {
  absl::MutexLock lock(&mu_);
  return stopping_;
}

void AppendWorkload::Write(int writer) {
  for (int n = 0; !stopping(); ++n) {
    const store::AppendRequest request = RequestOf(writer, n);
    AcknowledgedAppend answer;
    answer.request_id = request.request_id;
    const absl::Time give_up = absl::Now() + options_.retry_for;
    absl::StatusOr<store::AppendResult> appended = store_.Append(request);
    while (!appended.ok() && appended.status().code() == absl::StatusCode::kUnavailable &&
           absl::Now() < give_up) {
      {
        absl::MutexLock lock(&mu_);
        ++unavailable_answers_;
      }
      ++answer.attempts;
      appended = store_.Append(request);
    }
    if (!appended.ok()) {
      absl::MutexLock lock(&mu_);
      failures_.push_back(absl::StrCat("request ", request.request_id, " (attempt ",
                                       answer.attempts, "): ", appended.status().ToString()));
      --writers_running_;
      return;
    }
    answer.events = std::move(appended->events);
    answer.replayed = appended->replayed;
    absl::MutexLock lock(&mu_);
    for (const store::RecordedEvent& event : answer.events) {
      if (event.seq > head_seq_) {
        head_seq_ = event.seq;
        head_chain_hash_ = event.chain_hash;
      }
    }
    acknowledged_events_ += static_cast<int64_t>(answer.events.size());
    acknowledged_.push_back(std::move(answer));
  }
  absl::MutexLock lock(&mu_);
  --writers_running_;
}

void AppendWorkload::Checkpoint() {
  int64_t last_tried = 0;
  for (;;) {
    int64_t seq = 0;
    std::string chain_hash;
    {
      absl::MutexLock lock(&mu_);
      const auto due = [this, &last_tried]() ABSL_SHARED_LOCKS_REQUIRED(mu_) {
        return stopping_ || head_seq_ >= last_tried + options_.checkpoint_every;
      };
      mu_.Await(absl::Condition(&due));
      if (stopping_) return;
      seq = head_seq_;
      chain_hash = head_chain_hash_;
    }
    last_tried = seq;
    absl::StatusOr<v1::Checkpoint> checkpoint =
        audit::SignCheckpoint(key_, seq, chain_hash, absl::ToUnixMicros(clock_.Now()));
    const absl::Status saved =
        checkpoint.ok() ? store_.SaveCheckpoint(*checkpoint) : checkpoint.status();
    absl::MutexLock lock(&mu_);
    if (saved.ok()) {
      checkpoints_.push_back(*checkpoint);
    } else if (saved.code() == absl::StatusCode::kUnavailable) {
      ++unavailable_answers_;
    } else {
      failures_.push_back(absl::StrCat("checkpoint at seq ", seq, ": ", saved.ToString()));
    }
  }
}

int64_t AppendWorkload::acknowledged_events() const {
  absl::MutexLock lock(&mu_);
  return acknowledged_events_;
}

std::vector<AcknowledgedAppend> AppendWorkload::acknowledged() const {
  absl::MutexLock lock(&mu_);
  return acknowledged_;
}

std::vector<v1::Checkpoint> AppendWorkload::checkpoints() const {
  absl::MutexLock lock(&mu_);
  return checkpoints_;
}

int64_t AppendWorkload::unavailable_answers() const {
  absl::MutexLock lock(&mu_);
  return unavailable_answers_;
}

std::vector<std::string> AppendWorkload::failures() const {
  absl::MutexLock lock(&mu_);
  return failures_;
}

std::string AppendWorkload::Summary() const {
  absl::MutexLock lock(&mu_);
  int64_t sent_again = 0;
  int64_t replayed = 0;
  for (const AcknowledgedAppend& answer : acknowledged_) {
    if (answer.attempts > 1) ++sent_again;
    if (answer.replayed) ++replayed;
  }
  return absl::StrCat(
      acknowledged_.size(), " requests (", acknowledged_events_, " events) acknowledged, ",
      sent_again, " of them sent again (", replayed, " answered as a replay), ",
      unavailable_answers_, " UNAVAILABLE answers, ", checkpoints_.size(),
      " checkpoints acknowledged, ", failures_.size(), " failures",
      failures_.empty() ? "" : ":\n  ",
      absl::StrJoin(failures_.begin(),
                    failures_.begin() + std::min<size_t>(failures_.size(), kFailuresShown),
                    "\n  "));
}

}  // namespace credledger::testing
