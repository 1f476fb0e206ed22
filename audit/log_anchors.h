// What anchors a log's history outside the hands of whoever holds its database file
// (docs/audit.md, "Start-up check" and "Witnesses"): a recent checkpoint signed by a trusted
// key, and agreement with the checkpoints a witness holds. `credledger serve` refuses a log
// that fails either (unless it is adopted); `credledger verify --witness` runs the second.
//
// Thread-safety: stateless functions; the store must be safe to read.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "audit/signing_key.h"
#include "audit/verification.h"
#include "credledger/v1/audit.pb.h"
#include "store/event_store.h"

namespace credledger::audit {

// The head of a log and its newest trusted checkpoint near the head.
struct CheckpointAge {
  int64_t head_seq = 0;
  // chain_hash of the event at head_seq; empty for an empty log.
  std::string head_chain_hash;
  // The newest checkpoint at most `max_unsigned_events` behind the head whose key is in the
  // trusted ring, whose signature verifies and whose chain_hash is the log's at its seq;
  // unset when none.
  std::optional<v1::Checkpoint> trusted;
  // Why the log is not anchored by a recent trusted checkpoint, in words; empty when it is
  // (or the log is empty).
  std::string refusal;
};

// Finds the newest trusted checkpoint no more than `max_unsigned_events` (>= 0) events behind
// the head of `store`. A non-empty log without one gets a refusal naming the head, the newest
// checkpoint (if any) and the limit. Errors: store read errors.
absl::StatusOr<CheckpointAge> CheckCheckpointAge(store::EventStore& store, const KeyRing& trusted,
                                                 int64_t max_unsigned_events);

// Checks `store` against the checkpoints a witness holds (`witnessed`, oldest first; `name`
// the witness spec): every one is signed by a key of `trusted` and names the chain_hash the log
// holds at its seq. Returns the first that fails, newest first, as a problem of kind
// kProblemWitnessMismatch at its seq (a log that ends before it, a different chain_hash, a bad
// signature), or at seq 0 when the witness is empty and the log is not; nullopt when the log
// agrees (an empty witness agrees with an empty log). Errors: store read errors.
absl::StatusOr<std::optional<Problem>> CheckWitnessed(store::EventStore& store,
                                                      const KeyRing& trusted,
                                                      const std::vector<v1::Checkpoint>& witnessed,
                                                      absl::string_view name);

// What `credledger verify --db` adds to a verdict that is still OK: `log` must be anchored by
// a checkpoint of `keys` at most `max_unsigned_events` behind its head (else a problem of kind
// kProblemUnsignedTail naming the refusal), and, when `witnessed` is given (the checkpoints of
// the witness `witness_name`), agree with them (else CheckWitnessed's problem; when it agrees,
// verdict.witnessed is set). A verdict with a problem is left as it is.
// Errors: store read errors.
absl::Status CheckAnchorsOffline(store::EventStore& log, const KeyRing& keys,
                                 int64_t max_unsigned_events,
                                 const std::vector<v1::Checkpoint>* witnessed,
                                 absl::string_view witness_name, Verdict& verdict);

}  // namespace credledger::audit
