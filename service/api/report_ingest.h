// ReportIngest: the one path every status report takes, whether it comes from the kube
// bridge's TargetReport watch or from the PushReport RPC (docs/reports.md, "Ingest",
// "Limits" and "Liveness and staleness").
//
// A report is decided by the report decider through the ReportCommandBus with the
// service's receive time. A changed report appends one ReportAccepted (and a rollout
// confirmation when it proves the current credential rolled out). A heartbeat (equal to
// the last accepted report apart from lastReportTime) appends nothing here: it is kept in
// the LivenessBuffer and recorded by the next LivenessObserved batch; its lastReportTime is
// the floor the next report must pass.
//
// A plain heartbeat is decided without the writer (docs/reports.md, "How a heartbeat is
// decided"): by the heartbeat rule (service/decide/heartbeat_rule.h) over the Target's
// baseline in a HeartbeatIndex, which every report command this ingest hands to the writer
// keeps current, after a committed read of the log (EventStore::ProbeRequest) finds its
// request id unused and the Target's stream where the baseline was folded. Every other
// report, and a heartbeat whenever any of that does not hold, goes through the writer.
//
// A report whose lastReportTime runs more than 5 minutes ahead of the service's clock is
// refused, and the decider records the clock skew when it starts and when it ends
// (docs/reports.md, "Clock skew").
//
// The limits on reports are enforced here, for both ways in: a report larger than
// Limits::max_report_bytes is refused before anything is read or written; a changed report
// arriving sooner than Limits::min_interval after the Target's last ReportAccepted is held
// (HeldReports, the newest wins) and appended by FlushHeld once due, unless the decider finds
// it urgent; below the SpaceReserve reports and heartbeats are refused, except a report that
// confirms a rollout.
//
// Thread-safety: all methods are thread-safe.
#pragma once

#include <atomic>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "common/clock.h"
#include "credledger/v1/report.pb.h"
#include "projections/credential_projector.h"
#include "service/api/heartbeat_index.h"
#include "service/api/held_reports.h"
#include "service/api/liveness_buffer.h"
#include "service/api/space_reserve.h"
#include "service/bus/prior_request.h"
#include "service/bus/report_command_bus.h"

namespace credledger::service {

class ReportIngest {
 public:
  // The limits on reports (docs/reports.md, "Limits").
  struct Limits {
    // --report-max-bytes: the largest report accepted, in bytes of its protobuf encoding
    // (the TargetReportSpec a ReportAccepted stores). >= 1.
    int64_t max_report_bytes = 256 * 1024;
    // --report-min-interval: the shortest time between two ReportAccepted of one Target, by
    // receive time; changed reports arriving sooner are held. Zero holds nothing.
    absl::Duration min_interval = absl::Seconds(10);
  };
  // What a submitted report did.
  struct PushResult {
    // True for a heartbeat or a retry of the last report: nothing was appended (except the
    // ReportClockSkewCleared a heartbeat may append).
    bool heartbeat = false;
    // True when the request id had been answered before; nothing was appended.
    bool replayed = false;
    // True when the changed report was held: nothing is appended yet; it is appended at
    // `held_until` unless a newer report of the Target supersedes it.
    bool held = false;
    absl::Time held_until = absl::InfinitePast();
    // seq of the last event appended; 0 when none.
    int64_t seq = 0;
    // Older credential Secrets a rollout confirmation released for deletion.
    std::vector<std::string> released_secrets;
  };
  // What SetBoundReleases did.
  struct SetResult {
    bool replayed = false;
    int64_t seq = 0;  // 0 when nothing changed
  };
  // Counts since start, for metrics (docs/operations.md, "Metrics").
  struct Stats {
    int64_t refused_too_large = 0;  // reports over max_report_bytes
    int64_t refused_no_space = 0;   // reports and heartbeats refused below the reserve
    int64_t held = 0;               // reports waiting now
  };

  // Where plain heartbeats are decided. Without the writer they cost a committed read of the
  // log (EventStore::ProbeRequest): a local read on SQLite, a round trip on PostgreSQL, whose
  // writer answers them from its caches instead (docs/reports.md, "How a heartbeat is decided").
  enum class HeartbeatPath { kWithoutWriter, kThroughWriter };

  // None of the pointers is owned; all must outlive the ingest. `projector` gives the
  // service configuration commands decide under.
  ReportIngest(ReportCommandBus* bus, LivenessBuffer* liveness,
               projections::CredentialProjector* projector, const SpaceReserve* space,
               common::Clock* clock, Limits limits,
               HeartbeatPath heartbeats = HeartbeatPath::kWithoutWriter);

  // Submits `report` for Target <target_namespace>/<name> on behalf of `actor` under
  // `request` (its id and digest; an empty digest for the service's own reports), as it came
  // in from `source`. Names, request id and actor must already be validated. A retry of a
  // held report's request answers held again.
  // Errors: kInvalidArgument "target "<ns>/<name>": report is <n> bytes, above the limit of
  // <max> bytes (--report-max-bytes)" before anything is read; kResourceExhausted
  // (SpaceReserve::Check's message) for a report or heartbeat below the reserve that
  // confirms no rollout; the decider's (kInvalidArgument naming "<prefix>.<field path>" with
  // ReportFieldPrefix(source), kNotFound, kFailedPrecondition); kFailedPrecondition for a
  // request id used for another command or request; kUnavailable when the log cannot be
  // written. Nothing is changed on error, except that the refusal of a lastReportTime more
  // than 5 minutes ahead records the clock skew (ReportClockSkewDetected, once per skew;
  // docs/reports.md, "Clock skew"); a retry of that request is refused the same way.
  absl::StatusOr<PushResult> Push(absl::string_view target_namespace, absl::string_view name,
                                  const v1::TargetReportSpec& report, absl::string_view actor,
                                  const RequestKey& request, ReportSource source);

  // Appends the held reports due by `due_by` (the clock's now; InfiniteFuture at shutdown,
  // so that nothing held is lost), each under its own request id
  // and actor with its original receive time. A report that cannot be appended for lack of
  // space, or because the log is unavailable, is kept for the next call; one the decider
  // now refuses (the Target was deleted, a newer report was accepted) is dropped with a
  // warning in the log.
  // Errors: the first kUnavailable or kResourceExhausted (the others are still tried).
  absl::Status FlushHeld(absl::Time due_by);

  // Whether Target <target_namespace>/<name> has a report held.
  bool HasHeld(absl::string_view target_namespace, absl::string_view name) const;

  // Sets the releases bound to the Target and their bootstrap version.
  // Errors: as Push, with kInvalidArgument naming "releases[i].<field>" or
  // "bootstrap_version"; no limit of reports applies.
  absl::StatusOr<SetResult> SetBoundReleases(absl::string_view target_namespace,
                                             absl::string_view name,
                                             const std::vector<v1::BoundRelease>& releases,
                                             absl::string_view bootstrap_version,
                                             absl::string_view actor, const RequestKey& request);

  // The counts behind the report metrics.
  Stats stats() const;

 private:
  // The context of a command for the Target at the clock's now, under the configuration the
  // projector holds.
  CommandContext Context(absl::string_view target_namespace, absl::string_view name,
                         absl::string_view actor, const RequestKey& request) const;
  // The lastReportTime a report of the Target must pass beyond the logged ones: the newest
  // of its heartbeats (LivenessBuffer::Floor, for the uid the projector holds, or
  // `target_uid`; none without a uid) and its held report; nullopt when neither.
  std::optional<absl::Time> Floor(absl::string_view target_namespace, absl::string_view name) const;
  std::optional<absl::Time> Floor(absl::string_view target_namespace, absl::string_view name,
                                  std::optional<absl::string_view> target_uid) const;
  // Runs SubmitReport for `report` (its received_at, actor and request) over `floor`, with
  // `min_interval` and the reserve's verdict `space`, inside `write`, which it tells the
  // result. Errors: the bus's.
  absl::StatusOr<ReportCommandResult> Submit(const HeldReports::Held& report,
                                             std::optional<absl::Time> floor,
                                             absl::Duration min_interval, const absl::Status& space,
                                             HeartbeatIndex::Write& write);
  // Decides `report` without the writer when it is a plain heartbeat of the Target, received
  // at `received_at`: records it in the LivenessBuffer, drops a held report it supersedes and
  // returns true. Returns false, having changed nothing, when the writer must decide it: the
  // Target has no baseline or a report command of it runs, the report is invalid or not a
  // heartbeat by the heartbeat rule, its request id appended events before, the Target's
  // stream moved since the baseline, or the log cannot be read.
  bool RecordHeartbeat(absl::string_view target_namespace, absl::string_view name,
                       const v1::TargetReportSpec& report, const RequestKey& request,
                       ReportSource source, absl::Time received_at);

  ReportCommandBus* bus_;
  LivenessBuffer* liveness_;
  projections::CredentialProjector* projector_;
  const SpaceReserve* space_;
  common::Clock* clock_;
  const Limits limits_;
  const HeartbeatPath heartbeat_path_;
  HeldReports held_;
  HeartbeatIndex heartbeats_;
  std::atomic<int64_t> refused_too_large_{0};
  std::atomic<int64_t> refused_no_space_{0};
};

}  // namespace credledger::service
