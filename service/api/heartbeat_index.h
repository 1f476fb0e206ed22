// HeartbeatIndex: per Target, the baseline a heartbeat is decided against without the writer
// (docs/reports.md, "How a heartbeat is decided"), kept current by the report commands that
// go through the writer.
//
// Every report command of a Target that ReportIngest hands to the writer runs inside a Write,
// from Begin to the Write's destruction. The Write is told the Target's fold after the command
// (Decided); when no other Write of the Target overlapped it, its end installs the Target's
// baseline from that fold: the last accepted report's digest and lastReportTime, the newest
// lastReportTime accepted, the Target's uid and the target stream version the fold reached. A
// fold a heartbeat cannot be decided against outside the writer leaves no baseline: a Target
// not active, without a report, with a clock skew in force, whose last report does not pass
// projections::ValidateReportContent (accepted under older rules), or whose uid or times the
// index cannot hold (a uid longer than 16 bytes that is not a lowercase UUID, a target stream
// version beyond int32, a time beyond int64 nanoseconds). Overlapping Writes leave none
// either, since their folds may have been taken in either order.
//
// Find gives a Target's baseline only while no Write of it runs. Commit records a heartbeat
// decided on that baseline in the LivenessBuffer only if no Write of the Target began since
// Find, and only when its lastReportTime is later than the Target's floor there, under the
// index's lock: a report the writer decides after a Begin reads the floor after any heartbeat
// committed before it, and no heartbeat commits after it.
//
// Commands of the Target's own stream (registration, deletion, credentials) do not pass
// through the index: a baseline names the target stream version it was folded at, which the
// caller checks against the log before it commits (EventStore::ProbeRequest).
//
// Memory: one 80-byte slot per Target with a baseline or a running Write (its 72-byte entry
// and key), in a hash table keyed by a 64-bit hash of the Target's namespace and name and
// checked by a second one.
// Thread-safety: all methods are thread-safe.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/strings/string_view.h"
#include "absl/synchronization/mutex.h"
#include "credledger/v1/events.pb.h"
#include "service/api/liveness_buffer.h"
#include "service/bus/report_command_bus.h"
#include "service/decide/heartbeat_rule.h"

namespace credledger::service {

class HeartbeatIndex {
 private:
  // A Target's entry.
  struct Slot {
    uint64_t owner = 0;             // the second hash of the Target's namespace and name
    int64_t last_report_nanos = 0;  // unix nanoseconds
    int64_t newest_report_nanos = 0;
    ReportDigest last_report{};
    // The uid packed (PackUid in the .cc): a UUID's 16 bytes, or a shorter uid's text.
    std::array<uint8_t, 16> target_uid{};
    uint32_t generation = 0;  // generation_ when the Target's last Write began
    int32_t target_version = -1;
    uint16_t writes = 0;  // Writes of the slot running
    uint8_t target_uid_form = 0;
    bool known = false;  // the fields above hold a baseline
  };

 public:
  // A Target's baseline as Find gave it.
  struct Snapshot {
    ReportBaseline baseline;
    std::string target_uid;
    // The version of the Target's stream `target/<namespace>/<name>` the baseline was folded at.
    int64_t target_version = -1;
    // The Target's generation at Find, which Commit checks.
    uint32_t generation = 0;
  };

  // A report command of one Target through the writer. Ends when destroyed: installs the
  // baseline of the fold given to Decided, or leaves none (see the file comment).
  class Write {
   public:
    Write(const Write&) = delete;
    Write& operator=(const Write&) = delete;
    ~Write();

    // The command was decided; `after` is the fold it left (ReportCommandResult::state).
    void Decided(const ReportFolds& after);

   private:
    friend class HeartbeatIndex;
    Write(HeartbeatIndex* index, uint64_t key, uint64_t owner, uint32_t generation, bool overlapped)
        : index_(index),
          key_(key),
          owner_(owner),
          generation_(generation),
          overlapped_(overlapped) {}

    HeartbeatIndex* index_;
    uint64_t key_;
    uint64_t owner_;
    uint32_t generation_;
    bool overlapped_;
    bool decided_ = false;
    std::optional<Slot> baseline_;  // of the fold Decided was given, when the index holds one
  };

  // Starts a Write for Target <target_namespace>/<name>: from now on Find gives nothing for it
  // and no heartbeat found before commits, until the Write ends.
  Write Begin(absl::string_view target_namespace, absl::string_view name);

  // The Target's baseline; nullopt when it has none or a Write of it runs.
  std::optional<Snapshot> Find(absl::string_view target_namespace, absl::string_view name) const;

  // Records `heartbeat` (of the Target and uid `found` is of) with
  // LivenessBuffer::RecordIfNewer when no Write of the Target began since `found` was taken;
  // returns whether it was recorded.
  bool Commit(const Snapshot& found, v1::LivenessEntry heartbeat, LivenessBuffer& liveness);

  // Number of Targets with a baseline or a running Write.
  size_t size() const;

 private:
  // The baseline of `after` as a slot holds it; nullopt when it has none the index can hold.
  static std::optional<Slot> SlotOf(const ReportFolds& after);
  void End(const Write& write);

  mutable absl::Mutex mu_;
  // Counts Begins; wraps after 2^32 of them, far more than can begin between a Find and its
  // Commit.
  uint32_t generation_ ABSL_GUARDED_BY(mu_) = 0;
  absl::flat_hash_map<uint64_t, Slot> slots_ ABSL_GUARDED_BY(mu_);
};

}  // namespace credledger::service
