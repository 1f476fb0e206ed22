// SnapshotSeal: what binds a projection snapshot to the log (docs/audit.md, "Snapshots").
//
// A sealed snapshot carries the chain_hash of the event at its seq, the SHA-256 of its state
// bytes, and a signature by a key the service trusts over both and its position. The store
// keeps snapshots in a table anyone with the database file can edit, so a snapshot is trusted
// only once Check passes; the projections load them through projections::SnapshotGuard, which
// calls it. The store only declares the seal: audit/snapshot_seal.h implements it with the
// service's Ed25519 key, so that the store and the projections need no cryptography.
//
// Thread-safety: implementations are thread-safe.
#pragma once

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "store/event_store.h"

namespace credledger::store {

class SnapshotSeal {
 public:
  virtual ~SnapshotSeal() = default;

  // Seals `snapshot`, whose projection, seq, schema_version and state are set, as a snapshot
  // of the log whose event at its seq has `chain_hash` (32 bytes): sets its chain_hash,
  // state_sha256, key_id and signature.
  // Errors: kInvalidArgument when seq < 1 or chain_hash is not 32 bytes; kInternal when
  // signing fails.
  virtual absl::Status Seal(absl::string_view chain_hash, Snapshot& snapshot) const = 0;

  // OK when `snapshot` verifies against `chain_hash`, the chain_hash of the event the log
  // holds at the snapshot's seq (empty when the log holds none): signed by a trusted key, the
  // signature valid over its fields, its chain_hash equal to `chain_hash`, its state_sha256
  // the SHA-256 of its state. Errors: kPermissionDenied naming the projection, the seq and
  // the reason; the message never contains the state.
  virtual absl::Status Check(const Snapshot& snapshot, absl::string_view chain_hash) const = 0;
};

}  // namespace credledger::store
