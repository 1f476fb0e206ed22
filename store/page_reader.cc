#include "store/page_reader.h"

#include <utility>

namespace credledger::store {

PageReader::PageReader(EventStore* store, int64_t after_seq, int page_size)
    : store_(store), page_size_(page_size) {
  ReadAfter(after_seq);
}

void PageReader::ReadAfter(int64_t after_seq) {
  ahead_ = std::async(std::launch::async, [store = store_, after_seq, limit = page_size_] {
    return store->ReadAll(after_seq, limit);
  });
}

absl::StatusOr<std::vector<RecordedEvent>> PageReader::Next() {
  if (!ahead_.valid()) return std::vector<RecordedEvent>();
  absl::StatusOr<std::vector<RecordedEvent>> page = ahead_.get();
  if (page.ok() && !page->empty()) ReadAfter(page->back().seq);
  return page;
}

}  // namespace credledger::store
