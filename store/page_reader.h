// PageReader: reads the log forward page by page (EventStore::ReadAll) with the next page read
// on a background thread while the caller folds the current one, so that a long fold (a
// projection's catch-up, a rebuild) overlaps reading with folding.
//
// Thread-safety: one thread calls Next; the store must allow reads from other threads (every
// EventStore does).
#pragma once

#include <cstdint>
#include <future>
#include <vector>

#include "absl/status/statusor.h"
#include "store/event_store.h"

namespace credledger::store {

class PageReader {
 public:
  // Starts reading the events after `after_seq`, `page_size` (> 0) at a time. `store` is not
  // owned and must outlive the reader.
  PageReader(EventStore* store, int64_t after_seq, int page_size);
  // Waits for the read in flight, if any.
  ~PageReader() = default;
  PageReader(const PageReader&) = delete;
  PageReader& operator=(const PageReader&) = delete;

  // The next page in seq order, empty once the head as of that read is reached; starts reading
  // the page after it. Errors: those of ReadAll (the reader then stops: later calls return
  // an empty page).
  absl::StatusOr<std::vector<RecordedEvent>> Next();

 private:
  void ReadAfter(int64_t after_seq);

  EventStore* const store_;
  const int page_size_;
  // The page being read; invalid after an empty page or an error.
  std::future<absl::StatusOr<std::vector<RecordedEvent>>> ahead_;
};

}  // namespace credledger::store
