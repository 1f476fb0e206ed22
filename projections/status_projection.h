// StatusProjection: the report rollups of the whole fleet, folded from the log
// (docs/reports.md, "Rollups"; docs/design.md, "Projections"). Pure: Apply takes stored events
// in seq order and does no I/O. Each Target's v1::TargetStatus is the fold of its
// target/<ns>/<name> and report/<ns>/<name> events (EvolveStatus) and of its entries in the
// `liveness` stream's LivenessObserved batches (ApplyLiveness); events of other streams are
// ignored.
//
// Items are keyed "<namespace>/<name>" (StatusKey) and kept ordered by namespace, then name.
// Each rests encoded (PackedState); the Targets folded last are held decoded in a bounded
// working set (working_set.h), which a bulk fold (ApplyDeferred) unbounds until
// the next Apply or Compact. The working set changes the memory and the speed, never the
// answers.
// Serialize gives a deterministic byte string (a v1::StatusFleetState in that order), so a
// full rebuild from seq 1, the incremental path and snapshot + tail can be compared byte for
// byte.
//
// Thread-safety: not thread-safe; StatusProjector wraps it with a lock.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/functional/function_ref.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "absl/types/span.h"
#include "credledger/v1/events.pb.h"
#include "credledger/v1/state.pb.h"
#include "projections/condition_tally.h"
#include "projections/key_index.h"
#include "projections/packed_state.h"
#include "projections/report_summary.h"
#include "projections/target_status.h"
#include "projections/working_set.h"
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
  StatusProjection() = default;
  // A projection whose working set holds at most `working_set_bound` rollups decoded
  // (kWorkingSetBound by default). REQUIRES: working_set_bound >= 1.
  explicit StatusProjection(size_t working_set_bound) : working_(working_set_bound) {}
  // Moves keep open runs (ApplyDeferred) and the index by key valid: the map's nodes move
  // with it. A copy would not, hence none.
  StatusProjection(StatusProjection&&) = default;
  StatusProjection& operator=(StatusProjection&&) = default;
  StatusProjection(const StatusProjection&) = delete;
  StatusProjection& operator=(const StatusProjection&) = delete;

  // Folds `event`. REQUIRES: event.seq == seq() + 1 (events in log order, none skipped).
  // Returns the keys (StatusKey) of the Targets whose rollup changed, ordered by namespace
  // then name: the event's own Target, or for LivenessObserved every listed Target of the
  // listed incarnation. An event that changes nothing (for example a credential event) and
  // an event for a Target that was never registered return no key.
  // Events of types that cannot change a rollup (ChangesStatus) are passed over without being
  // decoded.
  // Errors: kDataLoss when the event is out of order, or is one this projection folds and
  // does not decode (nothing changes).
  // Runs ApplyDeferred left open are folded first (Settle), then a bulk fold ends (Compact).
  absl::StatusOr<std::vector<std::string>> Apply(const store::RecordedEvent& event);

  // Folds `event` like Apply, for a fold that reads the projection only when it is done (a
  // catch-up, a rebuild, an as-of answer): a ReportAccepted at the current schema version is
  // read only for its summary (report_summary.h) and joins its Target's run of reports
  // (FoldReportSummary, target_status.h), which is folded in full from its last report at the
  // Target's next event of another type (liveness entries aside), or at Settle. A report whose
  // times carry unknown fields (ReportSummary::plain_times) is folded in full at once. Every
  // other report but the last of a run is thus never decoded: it is checked only to be
  // well-formed wire data, so damage inside it that Apply would refuse (invalid UTF-8, a
  // malformed sub-message the summary skips) goes unnoticed here; `verify` finds it by its
  // digest. The projection must not be read (Get, List, SilentSince, reporting, Serialize)
  // until Settle has returned. The last report of each open run is kept (its stored bytes,
  // about 2 KB) until then. Opens a bulk fold: every rollup it touches stays decoded until
  // Apply or Compact.
  // Errors: those of Apply for events other than reports; kDataLoss for a report that is not
  // well-formed wire data, and for a run's last report that does not decode (then at the
  // event that ends the run, or at Settle).
  absl::Status ApplyDeferred(const store::RecordedEvent& event);
  // Folds the last report of every run ApplyDeferred left open, in full.
  // Errors: kDataLoss when one does not decode (that run stays open, every other is settled;
  // the projection is then unusable).
  absl::Status Settle();
  // Runs each task of `tasks` and returns once all have returned (common::RunAtOnce runs
  // them at once on their own threads).
  using TaskRunner = absl::FunctionRef<void(absl::Span<const std::function<void()>> tasks)>;
  // Settle with the open runs split into up to `shares` tasks handed to `run`, one slice of
  // the runs each (kMinRunsPerShare runs or more per task: fewer than twice that many open
  // runs make one task). Each task decodes and folds its own runs' last reports, touching only
  // those Targets' rollups, so the tasks may run at once; the Reporting tally is updated
  // before and after them on the calling thread. Same result and errors as Settle, and
  // kInternal when `run` returned without running a task (that task's runs stay open).
  absl::Status Settle(int shares, TaskRunner run);
  // Fewest open runs a task of Settle(shares, run) gets: about a millisecond of work, well
  // above the cost of starting a thread.
  static constexpr size_t kMinRunsPerShare = 64;
  // Encodes every rollup held decoded and bounds the working set again: for a projection kept
  // after a bulk fold (Projector's start). Changes no answer. REQUIRES: no open run (Settle
  // has returned OK since the last ApplyDeferred).
  void Compact() { working_.Compact(); }
  // Rollups held decoded now (the working set's size; at most its bound outside a bulk
  // fold).
  size_t decoded_states() const { return working_.size(); }

  // One Target's rollup, including a finalized one (active false); nullopt when the Target
  // was never registered.
  std::optional<v1::TargetStatus> Get(absl::string_view target_namespace,
                                      absl::string_view name) const;
  // The same by key: exactly StatusKey(namespace, name).
  std::optional<v1::TargetStatus> GetKey(absl::string_view key) const;
  // The rollups of active (registered, not finalized) Targets ordered by namespace then
  // name; only `target_namespace` when non-empty.
  std::vector<v1::TargetStatus> List(absl::string_view target_namespace) const;
  // Active Targets with a report or heartbeat (last_seen_at set) received at or before `cutoff`
  // and not already marked stale or refused for clock skew (Reporting not False), ordered by
  // namespace then name: those a ReportingStale is due for when `cutoff` is now minus the
  // stale period (docs/reports.md, "Liveness and staleness"; a Target that never reported
  // stays Reporting=Unknown, docs/reports.md, "Rollups").
  std::vector<SilentTarget> SilentSince(absl::Time cutoff) const;
  // The Reporting (status, reason) of active Targets, counted as events are folded
  // (metrics: False/Stale are the stale Targets).
  const ConditionTally& reporting() const { return reporting_; }
  // The seq of the last event folded; 0 for none.
  int64_t seq() const { return seq_; }

  // Deterministic serialization (a StatusFleetState).
  std::string Serialize() const;
  // Rebuilds a projection from Serialize output, every rollup at rest (encoded), decoding one
  // at a time. Errors: kDataLoss when it does not parse.
  static absl::StatusOr<StatusProjection> Deserialize(absl::string_view bytes);

 private:
  // What SilentSince reads of a rollup, kept beside its bytes so that the scan decodes none.
  struct Silence {
    static Silence Of(const v1::TargetStatus& status);
    // last_seen_at of an active Target with one and with Reporting not False; none otherwise.
    std::optional<absl::Time> last_seen_at;
  };
  using PackedStatus = PackedState<v1::TargetStatus, Silence>;

  // A Target's open run of reports (ApplyDeferred): its tracked conditions and its last
  // report as stored (seq, type, schema version and payload are set).
  struct OpenRun {
    std::optional<ReportRun> run;
    store::RecordedEvent last;
  };

  // Apply without settling open runs first, adding the changed keys to `changed` (as Apply
  // returns them) unless it is null. REQUIRES: no open run of the event's Target, unless the
  // event is a LivenessObserved.
  absl::Status ApplyNow(const store::RecordedEvent& event, std::vector<std::string>* changed);
  // Folds the report `recorded`, whose summary is in summary_, into the run of `status`
  // (FoldReportSummary); a report of another incarnation changes nothing.
  void DeferReport(v1::TargetStatus& status, const store::RecordedEvent& recorded);
  // Folds the open run of `status` (if any) in full and closes it. A run whose last report
  // does not decode stays open (kDataLoss, again at every later call).
  absl::Status SettleRun(v1::TargetStatus& status);
  // Decodes the last report of `open` into `scratch` and ends the run in `status`
  // (FinishReportRun); the tally and runs_ are left to the caller. Errors: kDataLoss when the
  // report does not decode (`status` unchanged). Touches nothing but its arguments.
  static absl::Status FinishRun(v1::TargetStatus& status, const OpenRun& open, v1::Event& scratch);
  // The rollup of the Target with key `key` (StatusKey), opened in working_ (valid until the
  // next Open); nullptr when there is none.
  v1::TargetStatus* Find(absl::string_view key);
  // Adds `status` as the rollup of the Target (namespace, name) `key`, replacing any, to
  // targets_ and by_key_, opened in working_.
  void Insert(std::pair<std::string, std::string> key, v1::TargetStatus status);
  // The item of the Target (namespace, name) `key` in targets_ and by_key_, added empty (and
  // encoded) when it has none.
  PackedStatus& Slot(std::pair<std::string, std::string> key);

  // By (namespace, name).
  std::map<std::pair<std::string, std::string>, PackedStatus> targets_;
  // The same rollups by key (StatusKey), so that a fold finds an event's Target by hashing
  // its stream name instead of comparing strings down the tree (map nodes do not move).
  KeyIndex<PackedStatus> by_key_;
  // The rollups of targets_ held decoded. Unbounded while runs_ has any.
  WorkingSet<PackedStatus> working_;
  // Open runs of ApplyDeferred by their Target's decoded rollup (it stays decoded: the
  // working set is unbounded until they are settled).
  absl::flat_hash_map<v1::TargetStatus*, OpenRun> runs_;
  // The summary ApplyDeferred reads into, kept to reuse its memory; no state.
  ReportSummary summary_;
  int64_t seq_ = 0;
  // Derived from targets_ (not serialized): the Reporting conditions of active Targets.
  ConditionTally reporting_;
  // The message Apply decodes into, kept to reuse its memory (after a report, it holds the
  // report that one replaced); no state.
  v1::Event decoded_;
  // The same for the `liveness` stream's batches.
  v1::Event decoded_liveness_;
  // The key of a liveness entry, kept to reuse its memory; no state.
  std::string key_buffer_;
};

}  // namespace credledger::projections
