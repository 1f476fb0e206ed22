#include "service/offline/export_cursor.h"

#include <algorithm>
#include <utility>

#include "absl/strings/str_cat.h"
#include "audit/export_format.h"
#include "common/quote_cut.h"
#include "common/status_macros.h"
#include "service/decide/validation.h"
#include "service/offline/event_pages_internal.h"
#include "store/log_hash.h"

namespace credledger::service {
namespace {

// Longest part of a refused event type quoted in an error.
constexpr size_t kShownTypeBytes = 80;
// Longest stream name or prefix a filter may name: every stream name is printable ASCII, the
// longest the service writes (identity/<DNS-1123 subdomain>) 262 bytes.
constexpr size_t kMaxFilterStreamBytes = 512;
// A response batch is sent once it holds this many bytes of stored event data.
constexpr size_t kBatchBytes = 1 << 20;
// What a batch counts for an event beside its payload and metadata.
constexpr size_t kEventOverheadBytes = 200;

// The rules a filter of AuditApi::StartExport follows (audit_api.h); an error names the field.
absl::Status ValidateFilter(const v1::ExportFilter& filter, const store::EventCodec& codec) {
  if (filter.after_seq() < 0) return absl::InvalidArgumentError("filter.after_seq: negative");
  if (filter.until_seq() < 0) return absl::InvalidArgumentError("filter.until_seq: negative");
  if (filter.until_seq() > 0 && filter.until_seq() < filter.after_seq()) {
    return absl::InvalidArgumentError(absl::StrCat("filter.until_seq: ", filter.until_seq(),
                                                   " is below after_seq ", filter.after_seq()));
  }
  if (filter.from_time_us() < 0 || filter.to_time_us() < 0) {
    return absl::InvalidArgumentError(filter.from_time_us() < 0 ? "filter.from_time_us: negative"
                                                                : "filter.to_time_us: negative");
  }
  if (filter.to_time_us() > 0 && filter.to_time_us() < filter.from_time_us()) {
    return absl::InvalidArgumentError("filter.to_time_us: before from_time_us");
  }
  if (!filter.stream().empty() && !filter.stream_prefix().empty()) {
    return absl::InvalidArgumentError(
        "filter.stream_prefix: not with filter.stream (they exclude each other)");
  }
  if (!filter.stream().empty()) {
    RETURN_IF_ERROR(ValidateToken("filter.stream", filter.stream(), kMaxFilterStreamBytes));
  }
  if (!filter.stream_prefix().empty()) {
    RETURN_IF_ERROR(
        ValidateToken("filter.stream_prefix", filter.stream_prefix(), kMaxFilterStreamBytes));
  }
  for (int i = 0; i < filter.types_size(); ++i) {
    if (!codec.known_types().contains(filter.types(i))) {
      return absl::InvalidArgumentError(
          absl::StrCat("filter.types[", i, "]: unknown event type ",
                       common::QuoteCut(filter.types(i), kShownTypeBytes),
                       " (fully qualified, for example \"credledger.v1.CredentialIssued\")"));
    }
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<std::unique_ptr<ExportCursor>> ExportCursor::Start(
    store::EventStore* store, const audit::SigningKey* signing_key, common::Clock& clock,
    const store::EventCodec& codec, const v1::ExportEventsRequest& request) {
  const v1::ExportFilter& filter = request.filter();
  RETURN_IF_ERROR(ValidateFilter(filter, codec));

  v1::ExportTrailer trailer;
  trailer.set_version(audit::kTrailerVersion);
  *trailer.mutable_filter() = filter;
  trailer.set_exported_at_us(absl::ToUnixMicros(clock.Now()));
  // The checkpoint first: it is never after the head read next.
  ASSIGN_OR_RETURN(std::optional<v1::Checkpoint> checkpoint, store->LatestCheckpoint());
  if (checkpoint.has_value()) *trailer.mutable_checkpoint() = *std::move(checkpoint);
  const int64_t head = store->HeadSeq();
  ASSIGN_OR_RETURN(std::optional<store::RecordedEvent> head_event, store->ReadEvent(head));
  trailer.set_head_seq(head);
  trailer.set_head_chain_hash(head_event.has_value() ? head_event->chain_hash : store::ZeroHash());

  // Time bounds become seq bounds: recorded times increase strictly with seq.
  int64_t after = filter.after_seq();
  int64_t until = head;
  if (filter.until_seq() > 0) until = std::min(until, filter.until_seq());
  if (filter.from_time_us() > 0) {
    ASSIGN_OR_RETURN(int64_t before_from, store->SeqAtTime(filter.from_time_us() - 1));
    after = std::max(after, before_from);
  }
  if (filter.to_time_us() > 0) {
    ASSIGN_OR_RETURN(int64_t at_to, store->SeqAtTime(filter.to_time_us()));
    until = std::min(until, at_to);
  }

  std::unique_ptr<EventPages> pages;
  if (until > after) {
    store::EventFilter selection;
    selection.until_seq = until;
    selection.stream = filter.stream();
    selection.stream_prefix = filter.stream_prefix();
    selection.types.assign(filter.types().begin(), filter.types().end());
    pages = std::make_unique<EventPages>(store, std::move(selection), after);
  }
  return std::unique_ptr<ExportCursor>(
      new ExportCursor(signing_key, std::move(trailer), std::move(pages)));
}

ExportCursor::ExportCursor(const audit::SigningKey* signing_key, v1::ExportTrailer trailer,
                           std::unique_ptr<EventPages> pages)
    : signing_key_(signing_key), trailer_(std::move(trailer)), pages_(std::move(pages)) {}

ExportCursor::~ExportCursor() = default;

absl::StatusOr<std::optional<v1::ExportEventsResponse>> ExportCursor::Next() {
  if (finished_) return std::optional<v1::ExportEventsResponse>();
  absl::StatusOr<v1::ExportEventsResponse> message = NextMessage();
  if (!message.ok()) {
    finished_ = true;
    return message.status();
  }
  if (message->has_trailer()) finished_ = true;
  return std::optional<v1::ExportEventsResponse>(*std::move(message));
}

absl::StatusOr<v1::ExportEventsResponse> ExportCursor::NextMessage() {
  // A batch may take the rest of one page and the start of the next: the batches do not
  // depend on where the pages end. A batch is full within one page read, as pages hold kPage.
  v1::ExportEventsResponse batch;
  size_t batch_bytes = 0;
  while (batch.events_size() < kPage && batch_bytes < kBatchBytes) {
    if (next_ == page_.size()) {
      if (pages_ == nullptr || pages_->done()) break;
      ASSIGN_OR_RETURN(page_, pages_->Next());
      next_ = 0;
      continue;
    }
    const store::RecordedEvent& e = page_[next_++];
    if (trailer_.first_seq() == 0) trailer_.set_first_seq(e.seq);
    trailer_.set_last_seq(e.seq);
    trailer_.set_event_count(trailer_.event_count() + 1);
    v1::StreamHead& stream = streams_[e.stream];
    stream.set_stream(e.stream);
    stream.set_stream_version(e.stream_version);
    stream.set_stream_hash(e.stream_hash);
    lines_.Add(e);
    *batch.add_events() = audit::ToExported(e);
    batch_bytes += e.payload.size() + e.metadata.size() + kEventOverheadBytes;
  }
  if (batch.events_size() > 0) return batch;
  return TrailerMessage();
}

absl::StatusOr<v1::ExportEventsResponse> ExportCursor::TrailerMessage() {
  for (auto& [name, head_of_stream] : streams_) *trailer_.add_streams() = std::move(head_of_stream);
  trailer_.set_lines_hash(lines_.value());
  if (signing_key_ != nullptr) RETURN_IF_ERROR(audit::SignTrailer(*signing_key_, trailer_));
  v1::ExportEventsResponse last;
  *last.mutable_trailer() = std::move(trailer_);
  return last;
}

}  // namespace credledger::service
