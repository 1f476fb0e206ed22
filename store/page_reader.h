// PageReader: reads the log forward page by page (EventStore::ReadAllInto) with the next page
// read on a background thread while the caller folds the current one, so that a long fold (a
// projection's catch-up, a rebuild) overlaps reading with folding. Pages are read into the
// vectors the caller hands back, so that their events' memory is reused page after page.
//
// Thread-safety: one thread calls Next; the store must allow reads from other threads (every
// EventStore does).
#pragma once

#include <cstdint>
#include <future>
#include <vector>

#include "absl/status/status.h"
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

  // Puts the next page in seq order into `page`, empty once the head as of that read is
  // reached, and starts reading the page after it into the vector `page` held before (pass
  // the previous page back to reuse its memory). Errors: those of ReadAllInto (`page` is then
  // empty, and the reader stops: later calls give an empty page).
  absl::Status Next(std::vector<RecordedEvent>& page);

 private:
  void ReadAfter(int64_t after_seq);

  EventStore* const store_;
  const int page_size_;
  // The page being read; touched only by the read in flight while ahead_ is valid.
  std::vector<RecordedEvent> ahead_page_;
  // The read in flight; invalid after an empty page or an error. Declared after ahead_page_
  // so that it is destroyed first: its destructor waits for the read.
  std::future<absl::Status> ahead_;
};

}  // namespace credledger::store
