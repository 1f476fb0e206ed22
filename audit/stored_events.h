// StoredEvents: a database copy of the log that an export is compared with, event by event
// (`credledger verify FILE --db DB`; docs/audit.md, "Verifying an export, step by step"). The
// export's events arrive in increasing seq order, so the copy is read forward a page at a
// time, each page one short read transaction.
//
// Thread-safety: not thread-safe; one verifier drives it.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "absl/status/statusor.h"
#include "audit/verification.h"
#include "store/event_store.h"

namespace credledger::audit {

class StoredEvents {
 public:
  // `log` must outlive this object; it is only read.
  explicit StoredEvents(store::EventStore& log) : log_(log) {}

  // The stored event at `seq` (> 0), or nullptr when the log holds none; valid until the next
  // call. Reading forward is cheap: a miss reads the page of events from `seq` on.
  // Errors: the store's read errors.
  absl::StatusOr<const store::RecordedEvent*> At(int64_t seq);

  // `exported`, the event of line `line` of an export, against the stored event at its seq:
  // kProblemDatabaseMismatch at that seq naming the line and the first stored field that
  // differs (stream, stream_version, event_id, type, schema_version, recorded_at_us,
  // metadata, payload, digest, prev_chain_hash, chain_hash, stream_hash), with both values
  // (bytes by length and SHA-256 prefix, hashes by prefix), or saying that the database holds
  // no event at that seq; nullopt when every field is equal. Errors: At's.
  absl::StatusOr<std::optional<Problem>> Compare(const store::RecordedEvent& exported,
                                                 int64_t line);

  // The chain_hash the log holds at `seq` (32 zero bytes at seq 0); nullopt when it holds no
  // event there. Errors: At's.
  absl::StatusOr<std::optional<std::string>> ChainHashAt(int64_t seq);

 private:
  store::EventStore& log_;
  std::vector<store::RecordedEvent> page_;  // consecutive stored events, in seq order
};

}  // namespace credledger::audit
