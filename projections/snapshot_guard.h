// SnapshotGuard: how projectors write and read projection snapshots (docs/audit.md,
// "Snapshots"; docs/design.md, "Snapshots"). Every snapshot it writes is sealed
// (store/snapshot_seal.h); every snapshot it hands out has passed the seal's Check against the
// event the log holds at its seq. A snapshot that does not pass is never handed out: the
// guard goes on to the nearest earlier one that does (or to none, a fold from seq 1), logs a
// warning naming the projection, the seq and the reason (never the state), and counts it per
// projection for the metric credledger_snapshots_rejected_total (docs/operations.md,
// "Metrics").
//
// Projectors take the guard through their options (projector.h: Projector<P>::Options,
// AsOf, AsOfTogether); without one they neither write nor read snapshots.
//
// Thread-safety: all methods are thread-safe.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/synchronization/mutex.h"
#include "store/event_store.h"
#include "store/snapshot_seal.h"

namespace credledger::projections {

class SnapshotGuard {
 public:
  // `seal` is not owned and must outlive the guard.
  explicit SnapshotGuard(const store::SnapshotSeal* seal) : seal_(seal) {}
  SnapshotGuard(const SnapshotGuard&) = delete;
  SnapshotGuard& operator=(const SnapshotGuard&) = delete;

  // Seals `snapshot` (projection, seq, schema_version and state set) for the event at its seq
  // with `chain_hash` (32 bytes) and writes it to `store`.
  // Errors: the seal's (store::SnapshotSeal::Seal); store::EventStore::SaveSnapshot's.
  absl::Status Save(store::EventStore& store, store::Snapshot snapshot,
                    absl::string_view chain_hash) const;

  // The newest snapshot of `projection` with seq <= `max_seq` whose seal verifies against the
  // log of `store`; nullopt when there is none. Every newer one that does not verify is
  // skipped, logged and counted. Errors: store read errors.
  absl::StatusOr<std::optional<store::Snapshot>> LoadNewestVerified(store::EventStore& store,
                                                                    absl::string_view projection,
                                                                    int64_t max_seq);

  // The snapshots refused since construction, by projection name (only names with one).
  std::map<std::string, int64_t> Rejected() const;

 private:
  const store::SnapshotSeal* const seal_;
  mutable absl::Mutex mu_;
  std::map<std::string, int64_t> rejected_ ABSL_GUARDED_BY(mu_);
};

}  // namespace credledger::projections
