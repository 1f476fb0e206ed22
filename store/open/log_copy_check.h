// The check of a copied log against its source (docs/operations.md, "Moving a log between
// SQLite and PostgreSQL"): what CopyLog (store/open/log_copy.h) wrote, read back through the
// copy's own store and compared with the source, row by row, and the copy's chains recomputed
// from its stored bytes (store/log_hash.h).
//
// Thread-safety: the functions are thread-safe; the stores must allow reads from several
// threads (every EventStore does).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "credledger/v1/audit.pb.h"
#include "store/event_store.h"

namespace credledger::store {

// What a copy holds: the source's rows up to the head seen when the copy began.
struct CopiedLog {
  // The last event copied and its chain_hash; 0 and 32 zero bytes for an empty log. The
  // copy holds the events 1..head_seq.
  int64_t head_seq = 0;
  std::string head_chain_hash;
  // The checkpoints copied, in seq order.
  std::vector<v1::Checkpoint> checkpoints;
  // The snapshots copied, ordered as ListSnapshots orders them.
  std::vector<SnapshotId> snapshots;
};

// Every checkpoint of `log` with seq <= `max_seq`, in seq order, read in pages.
// Errors: the store's read errors.
absl::StatusOr<std::vector<v1::Checkpoint>> CheckpointsUpTo(EventStore& log, int64_t max_seq);

// Checks `copy` against `source` and `copied`: the copy's head is copied.head_seq; each of its
// events equals the source's in every field, its digest is that of its stored bytes, and its
// prev_chain_hash, chain_hash and stream_hash link as docs/log-format.md says; its checkpoints
// are copied.checkpoints and its snapshots copied.snapshots, each equal to the source's.
// Errors: kDataLoss "the copy does not verify: ..." naming the first seq, field, checkpoint or
// snapshot that differs; the stores' read errors.
absl::Status CheckCopy(EventStore& source, EventStore& copy, const CopiedLog& copied);

}  // namespace credledger::store
