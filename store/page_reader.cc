#include "store/page_reader.h"

#include <utility>

namespace credledger::store {

PageReader::PageReader(EventStore* store, int64_t after_seq, int page_size)
    : store_(store), page_size_(page_size) {
  ReadAfter(after_seq);
}

void PageReader::ReadAfter(int64_t after_seq) {
  ahead_ = std::async(std::launch::async, [this, after_seq] {
    return store_->ReadAllInto(after_seq, page_size_, ahead_page_);
  });
}

absl::Status PageReader::Next(std::vector<RecordedEvent>& page) {
  if (!ahead_.valid()) {
    page.clear();
    return absl::OkStatus();
  }
  const absl::Status read = ahead_.get();
  if (!read.ok()) {
    page.clear();
    return read;
  }
  page.swap(ahead_page_);
  if (!page.empty()) ReadAfter(page.back().seq);
  return absl::OkStatus();
}

}  // namespace credledger::store
