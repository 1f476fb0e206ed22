// AuditApi: the AuditService RPCs (proto/credledger/v1/api.proto) without gRPC (docs/api.md,
// "AuditService"; docs/audit.md, "Export"; docs/forensics.md). Read-only: every call answers
// from the log and appends nothing, so it also runs on a log opened read-only
// (`serve --read-only`, and the CLI's `--db` mode).
//
// Export is an ExportCursor (export_cursor.h), which pages through the log with short read
// transactions, so memory stays constant in the number of events, and signs the trailer with
// the service's key; ExportEvents drives one to its end.
//
// As-of answers fold the credential and status projections from their nearest earlier
// snapshots that verify (projections::SnapshotGuard; from seq 1 without a guard), side by side
// in one pass over the events after them (projections::AsOfTogether); valid-credentials and
// diffs fold only the event types they need, selected by the store.
//
// Thread-safety: all methods are thread-safe; an ExportCursor is thread-compatible.
#pragma once

#include <functional>
#include <memory>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "audit/signing_key.h"
#include "common/clock.h"
#include "credledger/v1/api.pb.h"
#include "projections/snapshot_guard.h"
#include "service/offline/export_cursor.h"
#include "store/event_codec.h"
#include "store/event_store.h"

namespace credledger::service {

class AuditApi {
 public:
  // `store`, `clock` and `snapshots` are not owned and must outlive the api. `signing_key`
  // may be null: trailers are then unsigned (key_id and signature empty), and such exports do
  // not verify. `snapshots` may be null: as-of answers then fold from seq 1 (docs/audit.md,
  // "Snapshots").
  AuditApi(store::EventStore* store, const audit::SigningKey* signing_key, common::Clock* clock,
           projections::SnapshotGuard* snapshots = nullptr,
           const store::EventCodec* codec = &store::EventCodec::Default());

  // Starts the export of the events `request.filter()` selects: validates the filter, reads
  // the latest checkpoint and the head (the export covers events up to it) and turns the time
  // bounds into seq bounds; the cursor's Next then gives every batch of events (at most 512
  // events and about 1 MiB each) and then the message with the trailer. The trailer is
  // version 2, whose lines_hash commits to every exported event (docs/audit.md, "Trailer").
  // The cursor reads the store and signs with the key this api was given, which must outlive
  // it; the api need not. Errors: kInvalidArgument naming the filter field and the rule
  // (negative bounds, "filter.until_seq: below after_seq", "filter.to_time_us: before
  // from_time_us", "filter.stream_prefix: not with filter.stream", a stream or prefix that is
  // not 1-512 bytes of printable ASCII without spaces, "filter.types[i]: unknown event
  // type"); store read errors.
  absl::StatusOr<std::unique_ptr<ExportCursor>> StartExport(const v1::ExportEventsRequest& request);

  // Streams the export of StartExport: `write` gets every message of the cursor in turn; it
  // returns false when the client went away. Errors: StartExport's and ExportCursor::Next's;
  // kCancelled "export: the client went away" when `write` returned false.
  absl::Status ExportEvents(const v1::ExportEventsRequest& request,
                            const std::function<bool(const v1::ExportEventsResponse&)>& write);

  // State as of a point. Errors: kInvalidArgument for "as_of: required", "as_of.seq: N is
  // beyond the head H" or negative, an "as_of.time" that is not a valid Timestamp
  // (projections/timestamp_validation.h), a bad namespace or name ("name: requires namespace");
  // kNotFound "Target <ns>/<name> did not exist at seq N" when a named Target has no state
  // then; kDataLoss for an undecodable event; kResourceExhausted when no thread can be
  // started to read the log; store read errors.
  absl::StatusOr<v1::GetStateAtResponse> GetStateAt(const v1::GetStateAtRequest& request);

  // A Target's history from the start of its streams. Errors: kInvalidArgument (namespace,
  // name, "limit: must be 0..10000", negative after_seq); kNotFound when neither of the
  // Target's streams has an event; kDataLoss for an undecodable event.
  absl::StatusOr<v1::TimelineResponse> Timeline(const v1::TimelineRequest& request);

  // Changes between two points. Errors: kInvalidArgument ("from: required", "to: required",
  // beyond the head, an invalid "from.time" or "to.time", "to: seq T is before from seq F",
  // namespace, name); kDataLoss; kResourceExhausted as GetStateAt; store read errors.
  absl::StatusOr<v1::DiffResponse> Diff(const v1::DiffRequest& request);

  // Credentials valid at a time. Errors: kInvalidArgument ("time: required", an invalid
  // Timestamp, namespace, name); kDataLoss.
  absl::StatusOr<v1::ValidCredentialsAtResponse> ValidCredentialsAt(
      const v1::ValidCredentialsAtRequest& request);

 private:
  // The seq a point names: a seq as given (0..head), a time the last event at or before it.
  absl::StatusOr<int64_t> Resolve(const v1::LogPoint& point, absl::string_view field);

  store::EventStore* const store_;
  const audit::SigningKey* const signing_key_;
  common::Clock* const clock_;
  projections::SnapshotGuard* const snapshots_;
  const store::EventCodec* const codec_;
};

}  // namespace credledger::service
