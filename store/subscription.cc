#include "store/subscription.h"

#include <utility>

namespace credledger::store {
namespace {

// How long a live subscription waits for a commit before re-checking whether it was stopped.
constexpr absl::Duration kLivePoll = absl::Milliseconds(50);
// Pause after a transient read error (database busy) before trying again.
constexpr absl::Duration kRetryPause = absl::Milliseconds(100);

}  // namespace

Subscription::Subscription(EventStore* store, int64_t after_seq, Handler handler, int page_size)
    : store_(store), handler_(std::move(handler)), page_size_(page_size), position_(after_seq) {
  thread_ = std::thread([this] { Run(); });
}

Subscription::~Subscription() { Stop(); }

void Subscription::Stop() {
  {
    absl::MutexLock lock(&mu_);
    stopping_ = true;
  }
  if (thread_.joinable()) thread_.join();
}

int64_t Subscription::position() const {
  absl::MutexLock lock(&mu_);
  return position_;
}

absl::Status Subscription::status() const {
  absl::MutexLock lock(&mu_);
  return status_;
}

bool Subscription::Stopping() const {
  absl::MutexLock lock(&mu_);
  return stopping_;
}

bool Subscription::WaitForPosition(int64_t seq, absl::Duration timeout) const {
  struct Args {
    const Subscription* s;
    int64_t seq;
  } args{this, seq};
  absl::MutexLock lock(&mu_);
  mu_.AwaitWithTimeout(absl::Condition(
                           +[](Args* a) ABSL_NO_THREAD_SAFETY_ANALYSIS {
                             return a->s->position_ >= a->seq || a->s->ended_;
                           },
                           &args),
                       timeout);
  return position_ >= seq;
}

void Subscription::Run() {
  int64_t position = this->position();
  absl::Status end = absl::OkStatus();
  while (!Stopping()) {
    absl::StatusOr<std::vector<RecordedEvent>> page = store_->ReadAll(position, page_size_);
    if (!page.ok()) {
      if (page.status().code() != absl::StatusCode::kUnavailable) {
        end = page.status();
        break;
      }
      absl::MutexLock lock(&mu_);
      mu_.AwaitWithTimeout(absl::Condition(&stopping_), kRetryPause);
      continue;
    }
    if (page->empty()) {
      store_->WaitForHead(position, kLivePoll);
      continue;
    }
    for (const RecordedEvent& event : *page) {
      absl::Status handled = handler_(event);
      if (!handled.ok()) {
        end = handled;
        break;
      }
      position = event.seq;
      absl::MutexLock lock(&mu_);
      position_ = position;
    }
    if (!end.ok()) break;
  }
  absl::MutexLock lock(&mu_);
  status_ = end;
  ended_ = true;
}

}  // namespace credledger::store
