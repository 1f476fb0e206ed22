#include "store/page_reader.h"

#include <algorithm>
#include <system_error>
#include <utility>

#include "absl/strings/str_cat.h"

namespace credledger::store {

PageReader::PageReader(EventStore* store, int64_t after_seq, int64_t last_seq, int page_size,
                       EventFields fields, PageHook hook)
    : store_(store),
      last_seq_(last_seq),
      page_size_(page_size),
      fields_(fields),
      hook_(std::move(hook)),
      next_after_(after_seq) {
  try {
    thread_ = std::thread([this] { Loop(); });
  } catch (const std::system_error& e) {
    absl::MutexLock lock(&mu_);
    done_ = true;
    error_ = absl::ResourceExhaustedError(
        absl::StrCat("read: cannot start the thread that reads the log: ", e.what()));
  }
}

PageReader::~PageReader() {
  {
    absl::MutexLock lock(&mu_);
    stopping_ = true;
  }
  if (thread_.joinable()) thread_.join();
}

bool PageReader::ReadOne(std::vector<RecordedEvent>& page) {
  absl::Status read = absl::OkStatus();
  if (next_after_ < last_seq_) {
    const int limit = static_cast<int>(std::min<int64_t>(page_size_, last_seq_ - next_after_));
    read = store_->ReadAllInto(next_after_, limit, fields_, page);
  } else {
    page.clear();
  }
  if (read.ok() && hook_ && !page.empty()) read = hook_(page);
  absl::MutexLock lock(&mu_);
  if (!read.ok() || page.empty()) {
    done_ = true;
    error_ = std::move(read);
    return false;
  }
  next_after_ = page.back().seq;
  ready_.push_back(std::move(page));
  return true;
}

void PageReader::Loop() {
  while (true) {
    std::vector<RecordedEvent> page;
    {
      absl::MutexLock lock(&mu_);
      const auto wake = [this]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
        return stopping_ || static_cast<int>(ready_.size()) < kPagesAhead;
      };
      mu_.Await(absl::Condition(&wake));
      if (stopping_) return;
      if (!spare_.empty()) {
        page = std::move(spare_.back());
        spare_.pop_back();
      }
    }
    if (!ReadOne(page)) return;
  }
}

absl::Status PageReader::Next(std::vector<RecordedEvent>& page) {
  absl::MutexLock lock(&mu_);
  const auto ready = [this]()
                         ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) { return !ready_.empty() || done_; };
  mu_.Await(absl::Condition(&ready));
  if (ready_.empty()) {
    page.clear();
    return std::exchange(error_, absl::OkStatus());
  }
  page.swap(ready_.front());
  spare_.push_back(std::move(ready_.front()));
  ready_.pop_front();
  return absl::OkStatus();
}

}  // namespace credledger::store
