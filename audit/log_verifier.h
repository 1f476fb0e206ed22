// Verifying a database (`credledger verify --db`) and the start-up tail check (docs/audit.md,
// "Verifying an export, step by step" and "Start-up check").
//
// VerifyLog reads the whole log page by page (no long read transaction) and checks it with
// ChainVerifier under the strictest expectations: seqs consecutive from 1, every stream's
// versions consecutive from 0, the events reaching the head the store reports. Every stored
// checkpoint is checked as its event passes (so the verdict names the first bad seq, and
// memory does not grow with the log): its chain_hash equals the event's at its seq, and its
// signature and key id verify with `public_key`; a checkpoint naming a seq the log lacks (a
// deleted tail) fails. Then every projection snapshot's seal verifies against the log and
// `public_key` (docs/audit.md, "Snapshots"), and the head reaches `min_seq`.
//
// VerifyLogTail checks only the last `events` events (their digests and links, each to its
// predecessor, anchored on the first one's prev_chain_hash; no skipped stream version) and
// the newest checkpoint against the event at its seq (read on its own when it lies before
// the window): cheap enough for every start-up. Tampering before the window goes unseen
// unless it touches that checkpoint's event.
//
// Problem kinds: those of ChainVerifier, kProblemGap, kProblemTruncated,
// kProblemCheckpointMismatch, kProblemBadSignature, kProblemSnapshotMismatch and kProblemStale
// (VerifyLog only).
//
// Thread-safety: thread-safe (reads go through the store).
#pragma once

#include <cstdint>

#include "absl/status/statusor.h"
#include "audit/signing_key.h"
#include "audit/verification.h"
#include "store/event_store.h"

namespace credledger::audit {

// The whole log, each checkpoint verified with the key of `public_key` its key id names (a
// log signed before and after a key rotation needs both keys); `min_seq` is the head the
// auditor saw last (0: no requirement). Errors: store read errors (the verdict reports what
// the data says, the status what kept it from being read).
absl::StatusOr<Verdict> VerifyLog(store::EventStore& store, const KeyRing& public_key,
                                  int64_t min_seq);

// The last `events` (> 0) events and the newest checkpoint; its signature only when
// `public_key` is non-null (and only then is it counted in checkpoints_checked). The service
// passes only its own key, and a null ring when the newest checkpoint names another key (it
// was signed before a key rotation).
// Errors: kInvalidArgument when events <= 0; store read errors.
absl::StatusOr<Verdict> VerifyLogTail(store::EventStore& store, int64_t events,
                                      const KeyRing* public_key);

}  // namespace credledger::audit
