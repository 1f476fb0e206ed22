// ExportCursor: one export of the log (docs/audit.md, "Export"; ExportEvents in
// proto/credledger/v1/api.proto) pulled a message at a time, so that a server stream can send
// each message before asking for the next without holding a thread in between. Built by
// AuditApi::StartExport, which also says what the export selects.
//
// The cursor pages through the log with short read transactions (store::EventStore::
// ReadFiltered), so memory stays constant in the number of events (it grows only with the
// number of exported streams, whose last stream_hash the trailer lists), and signs the trailer
// with the service's key.
//
// Thread-safety: thread-compatible: one caller at a time; successive calls may come from
// different threads.
#pragma once

#include <cstddef>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "audit/signed_records.h"
#include "audit/signing_key.h"
#include "common/clock.h"
#include "credledger/v1/api.pb.h"
#include "store/event_codec.h"
#include "store/event_store.h"

namespace credledger::service {

class EventPages;  // event_pages_internal.h

class ExportCursor {
 public:
  ExportCursor(const ExportCursor&) = delete;
  ExportCursor& operator=(const ExportCursor&) = delete;
  ~ExportCursor();

  // The next message of the export: first the batches of the selected events in seq order (1
  // to 512 events each, a batch closed early once its events hold about 1 MiB of stored data),
  // then one message with the trailer and no events, then nullopt on every later call. Each
  // call reads at most one page of the log (512 events, one read transaction), and the
  // trailer's call signs it. Errors: store read errors; kInternal when signing fails. After an
  // error the cursor is finished: later calls return nullopt.
  absl::StatusOr<std::optional<v1::ExportEventsResponse>> Next();

 private:
  friend class AuditApi;

  // AuditApi::StartExport's work: validates `request`'s filter against `codec`'s types, reads
  // the latest checkpoint and the head, and turns the time bounds into seq bounds. `store` and
  // `signing_key` (null: an unsigned trailer) must outlive the cursor. Errors: as StartExport.
  static absl::StatusOr<std::unique_ptr<ExportCursor>> Start(
      store::EventStore* store, const audit::SigningKey* signing_key, common::Clock& clock,
      const store::EventCodec& codec, const v1::ExportEventsRequest& request);

  // `pages` is null when the selection's bounds leave no event.
  ExportCursor(const audit::SigningKey* signing_key, v1::ExportTrailer trailer,
               std::unique_ptr<EventPages> pages);

  // The next batch, or the message with the trailer once every selected event is in a batch.
  absl::StatusOr<v1::ExportEventsResponse> NextMessage();
  // Completes the trailer with the exported streams and lines_hash, and signs it.
  absl::StatusOr<v1::ExportEventsResponse> TrailerMessage();

  const audit::SigningKey* const signing_key_;
  v1::ExportTrailer trailer_;  // its header from the start; seqs and count of the batches so far
  std::map<std::string, v1::StreamHead> streams_;  // the last exported event of each stream
  audit::LinesHash lines_;                         // over the events in the batches so far
  std::unique_ptr<EventPages> pages_;
  std::vector<store::RecordedEvent> page_;  // the page read last
  size_t next_ = 0;                         // its first event not yet in a batch
  bool finished_ = false;                   // the trailer is out, or an error was
};

}  // namespace credledger::service
