// What the audit API's files share (audit_api.cc: the forensic queries; export_cursor.cc: the
// export, docs/audit.md, "Export"): the page size of their reads of the log and the reader
// that pages forward through a filtered selection. Not for use outside them.
//
// Thread-safety: EventPages is thread-compatible (one caller at a time).
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "common/status_macros.h"
#include "store/event_store.h"

namespace credledger::service {

// Events per read transaction, and the most events of an export batch.
inline constexpr int kPage = 512;

// The events `filter` selects with seq > `after_seq`, read forward a page at a time, each page
// one short read transaction (store::EventStore::ReadFiltered).
class EventPages {
 public:
  // `store` is not owned and must outlive the reader. Reads nothing until Next.
  EventPages(store::EventStore* store, store::EventFilter filter, int64_t after_seq)
      : store_(store), filter_(std::move(filter)), after_seq_(after_seq) {}

  // The next page: up to kPage events in seq order, following those of the pages before (the
  // first page follows `after_seq`). A page shorter than kPage is the last: done() turns true.
  // Call only while !done(). Errors: ReadFiltered's; the reader stays where it was.
  absl::StatusOr<std::vector<store::RecordedEvent>> Next() {
    ASSIGN_OR_RETURN(std::vector<store::RecordedEvent> page,
                     store_->ReadFiltered(filter_, after_seq_, kPage));
    done_ = static_cast<int>(page.size()) < kPage;
    if (!page.empty()) after_seq_ = page.back().seq;
    return page;
  }

  // Whether the selection is read to its end (the last page was shorter than kPage).
  bool done() const { return done_; }

 private:
  store::EventStore* store_;
  store::EventFilter filter_;
  int64_t after_seq_;
  bool done_ = false;
};

}  // namespace credledger::service
