// StatusProjection: the report rollups of the whole fleet, folded from the log (issue 3,
// "Rollups"; DESIGN section 4). Pure: Apply takes stored events in seq order and does no
// I/O. Each Target's v1::TargetStatus is the fold of its target/<ns>/<name> and
// report/<ns>/<name> events (EvolveStatus) and of its entries in the `liveness` stream's
// LivenessObserved batches (ApplyLiveness); events of other streams are ignored.
//
// Items are keyed "<namespace>/<name>" (StatusKey) and kept ordered by namespace, then name.
// Serialize gives a deterministic byte string (a v1::StatusFleetState in that order), so a
// full rebuild from seq 1, the incremental path and snapshot + tail can be compared byte for
// byte.
//
// Thread-safety: not thread-safe; StatusProjector wraps it with a lock.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "credledger/v1/events.pb.h"
#include "credledger/v1/state.pb.h"
#include "projections/condition_tally.h"
#include "store/event_store.h"

namespace credledger::projections {

// Snapshot name and state version of this projection in `projection_snapshots`.
inline constexpr char kStatusProjectionName[] = "status";
inline constexpr uint32_t kStatusProjectionVersion = 1;

// "<namespace>/<name>": the key of a Target's rollup.
std::string StatusKey(absl::string_view target_namespace, absl::string_view name);

// An active Target that has reported but has been silent since before some cutoff.
struct SilentTarget {
  std::string target_namespace;
  std::string name;
  absl::Time last_seen_at;  // receive time of its last report or heartbeat
};

class StatusProjection {
 public:
  // Folds `event`. REQUIRES: event.seq == seq() + 1 (events in log order, none skipped).
  // Returns the keys (StatusKey) of the Targets whose rollup changed, ordered by namespace
  // then name: the event's own Target, or for LivenessObserved every listed Target of the
  // listed incarnation. An event that changes nothing (for example a credential event) and
  // an event for a Target that was never registered return no key.
  // Events of types that cannot change a rollup (ChangesStatus) are passed over without being
  // decoded.
  // Errors: kDataLoss when the event is out of order, or is one this projection folds and
  // does not decode (nothing changes).
  absl::StatusOr<std::vector<std::string>> Apply(const store::RecordedEvent& event);

  // One Target's rollup, including a finalized one (active false); nullopt when the Target
  // was never registered.
  std::optional<v1::TargetStatus> Get(absl::string_view target_namespace,
                                      absl::string_view name) const;
  // The same by key ("<namespace>/<name>").
  std::optional<v1::TargetStatus> GetKey(absl::string_view key) const;
  // The rollups of active (registered, not finalized) Targets ordered by namespace then
  // name; only `target_namespace` when non-empty.
  std::vector<v1::TargetStatus> List(absl::string_view target_namespace) const;
  // Active Targets with a report or heartbeat (last_seen_at set) received at or before `cutoff`
  // and not already marked stale (Reporting not False), ordered by namespace then name:
  // those a ReportingStale is due for when `cutoff` is now minus the stale period (issue 3,
  // "Rollups": a Target that never reported stays Reporting=Unknown).
  std::vector<SilentTarget> SilentSince(absl::Time cutoff) const;
  // The Reporting (status, reason) of active Targets, counted as events are folded
  // (metrics: False/Stale are the stale Targets).
  const ConditionTally& reporting() const { return reporting_; }
  // The seq of the last event folded; 0 for none.
  int64_t seq() const { return seq_; }

  // Deterministic serialization (a StatusFleetState).
  std::string Serialize() const;
  // Rebuilds a projection from Serialize output. Errors: kDataLoss when it does not parse.
  static absl::StatusOr<StatusProjection> Deserialize(absl::string_view bytes);

 private:
  // By (namespace, name).
  std::map<std::pair<std::string, std::string>, v1::TargetStatus> targets_;
  int64_t seq_ = 0;
  // Derived from targets_ (not serialized): the Reporting conditions of active Targets.
  ConditionTally reporting_;
  // The message Apply decodes into, kept to reuse its memory (after a report, it holds the
  // report that one replaced); no state.
  v1::Event decoded_;
};

}  // namespace credledger::projections
