// PageReader: reads the log forward page by page (EventStore::ReadAllInto) up to a last seq,
// on a thread of its own, up to kPagesAhead pages ahead of the caller, so that a long fold (a
// projection's catch-up, a rebuild) overlaps reading with folding. Pages are read into the vectors
// the caller hands back, so that their events' memory is reused page after page.
//
// An optional page hook runs on the reading thread right after each page is read, before the
// page is handed over: a second fold over the same pages (CatchUpTogether in
// projections/projector.h) then runs beside the caller's. Several pages ahead, the two folds
// do not wait for each other on every page whose share of work differs.
//
// One thread reads every page, so that what it allocates comes from its own warm caches of
// the allocator.
//
// Thread-safety: one thread calls Next; the store must allow reads from other threads (every
// EventStore does). The hook runs on the reading thread, one page at a time in seq order,
// each run finished before Next returns that page: what it touches must not be touched by
// anyone else while the reader lives.
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <limits>
#include <thread>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/synchronization/mutex.h"
#include "store/event_store.h"

namespace credledger::store {

class PageReader {
 public:
  // Pages read and waiting for Next at most.
  static constexpr int kPagesAhead = 4;
  // A last seq that reads to the head.
  static constexpr int64_t kToTheHead = std::numeric_limits<int64_t>::max();

  // Runs on the reading thread on each non-empty page read; an error stops the reader and is
  // what Next returns once the pages read before it are handed over.
  using PageHook = std::function<absl::Status(const std::vector<RecordedEvent>& page)>;

  // Starts reading the events with after_seq < seq <= last_seq (kToTheHead: up to the head
  // as of each read), `page_size` (> 0) at a time, with `fields` set (EventStore::ReadAllInto),
  // running `hook` (when set) on each page read. `store` is not owned and must outlive the
  // reader. When no thread can be started, the first Next returns kResourceExhausted.
  PageReader(EventStore* store, int64_t after_seq, int64_t last_seq, int page_size,
             EventFields fields, PageHook hook = nullptr);
  // Stops reading: waits for the page being read and its hook, if any, and for the reading
  // thread.
  ~PageReader();
  PageReader(const PageReader&) = delete;
  PageReader& operator=(const PageReader&) = delete;

  // Puts the next page in seq order into `page`, empty once the last seq or the head as of
  // that read is reached, and keeps the vector `page` held before to read a later page into
  // (pass the previous page back to reuse its memory). Errors: those of ReadAllInto or the
  // hook, after the pages read before it, or kResourceExhausted when the reading thread could
  // not start (`page` is then empty, and the reader stops: later calls give an empty page).
  absl::Status Next(std::vector<RecordedEvent>& page);

 private:
  // Reads the page after next_after_ into `page` and runs the hook on it; hands the page to
  // ready_, or records the end or the error. Returns false once the reader is done.
  bool ReadOne(std::vector<RecordedEvent>& page);
  // The reading thread: reads while fewer than kPagesAhead pages wait, until done or stopping.
  void Loop();

  EventStore* const store_;
  const int64_t last_seq_;
  const int page_size_;
  const EventFields fields_;
  const PageHook hook_;
  // The seq the next page is read after; only the reading side touches it.
  int64_t next_after_;

  absl::Mutex mu_;
  // Pages read and hooked, in seq order, for Next.
  std::deque<std::vector<RecordedEvent>> ready_ ABSL_GUARDED_BY(mu_);
  // Vectors handed back by Next, to read into.
  std::vector<std::vector<RecordedEvent>> spare_ ABSL_GUARDED_BY(mu_);
  // Set once an empty page was read or a read failed: nothing more is read.
  bool done_ ABSL_GUARDED_BY(mu_) = false;
  // The failure that ended the reading, until Next returns it.
  absl::Status error_ ABSL_GUARDED_BY(mu_);
  bool stopping_ ABSL_GUARDED_BY(mu_) = false;
  std::thread thread_;
};

}  // namespace credledger::store
