// LivenessBuffer: heartbeats between LivenessObserved batches (docs/reports.md,
// "Liveness and staleness"). A heartbeat (a report equal to the last accepted one apart from
// lastReportTime) refreshes liveness here, in memory; the scheduler drains the buffer every
// few seconds into one LivenessObserved event, so the log stays the only truth at a cost
// independent of fleet size.
//
// The buffer also remembers, per Target incarnation, the newest heartbeat lastReportTime
// since the process started: the floor the next report's lastReportTime must pass, also
// for heartbeats already drained into the log.
//
// Thread-safety: all methods are thread-safe.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/strings/string_view.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "credledger/v1/events.pb.h"

namespace credledger::service {

class LivenessBuffer {
 public:
  // Records a heartbeat of the Target in `entry` (namespace, name, target_uid, received_at by
  // the service's clock, last_report_time by the agent's). A later heartbeat of the same
  // Target replaces an earlier pending one; one of another uid replaces it too (the Target
  // was re-created).
  void Record(const v1::LivenessEntry& entry);

  // Records `entry` as Record does only when its last_report_time is later than the floor of
  // its Target and uid; returns whether it did. A heartbeat decided outside the writer
  // (HeartbeatIndex::Commit) is recorded this way, so that of two heartbeats of one Target
  // decided at once the older is never recorded after the newer.
  bool RecordIfNewer(v1::LivenessEntry entry);

  // The newest heartbeat lastReportTime recorded for Target <ns>/<name> with `target_uid`
  // since start; nullopt when none.
  std::optional<absl::Time> Floor(absl::string_view target_namespace, absl::string_view name,
                                  absl::string_view target_uid) const;

  // Receive time of the Target's heartbeat waiting for the next batch; nullopt when none.
  std::optional<absl::Time> PendingSeenAt(absl::string_view target_namespace,
                                          absl::string_view name) const;

  // Removes and returns the waiting heartbeats, ordered by namespace, then name.
  std::vector<v1::LivenessEntry> Drain();

  // Puts back heartbeats of a batch that could not be appended; a heartbeat recorded since
  // the drain for the same Target wins.
  void Restore(std::vector<v1::LivenessEntry> entries);

  // Number of heartbeats waiting.
  size_t pending() const;

 private:
  using Key = std::pair<std::string, std::string>;  // namespace, name
  struct FloorEntry {
    std::string target_uid;
    absl::Time last_report_time;
  };

  // Keeps `entry` as the Target's pending heartbeat and raises `floor` (the Target's entry of
  // floors_) to it.
  void RecordLocked(Key key, FloorEntry& floor, v1::LivenessEntry entry, absl::Time report_time)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  mutable absl::Mutex mu_;
  std::map<Key, v1::LivenessEntry> pending_ ABSL_GUARDED_BY(mu_);
  std::map<Key, FloorEntry> floors_ ABSL_GUARDED_BY(mu_);
};

}  // namespace credledger::service
