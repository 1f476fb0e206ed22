// ReportCommandBus: runs report commands through the single writer (docs/design.md,
// "Group commit" and "Deciders"; docs/reports.md, "Ingest" and "Rollups").
//
// For a command addressed to a Target, inside the writer's transaction: the Target's folds
// are loaded (its target-stream state, and its status over the target, report and liveness
// events in seq order); a request id seen before returns its original events; otherwise the
// report decider runs and its events for the report stream and the target stream (a rollout
// confirmation) are appended in one atomic append, under the exact versions both streams
// were read at. RecordLiveness appends one LivenessObserved to stream `liveness` with the
// entries whose Target is still registered with the entry's uid.
//
// Cost: folding whole streams per command would grow with history, so the bus keeps, per
// Target it has served, the folds and the position (stream_version, stream_hash) of the
// last event of each stream they include, and, for the whole fleet, the newest liveness entry
// of each Target. Inside the transaction each cached position is checked against the stored
// event (tx.ReadStream from the cached version) and only the events after it are folded; a
// position that does not match refolds the stream from the start. The caches are updated
// only after the store reports the batch durable, so a batch rolled back after a command
// decided never reaches them. Memory is proportional to the number of Targets (one folded
// state and status each, plus one liveness entry), not to history. A heartbeat costs one
// transaction with a few single-row reads and no append.
//
// Liveness: a status includes, of all liveness entries of its Target, only the newest one
// (merged at its seq). Everything a decision reads (Reporting, last_seen_at,
// last_report_time) is then exact; only Reporting.last_transition_time can be later than in
// the status projection, when heartbeats alone brought a stale Target back. The newest
// entries are read once per process from the liveness stream (paged, outside any
// transaction), then kept up to date from the stream's tail.
//
// RecordLiveness checks each entry's Target by its cached target-stream state plus the
// events after it (one indexed read per entry; a full fold of the short target stream for a
// Target not served yet). The flusher sends at most one batch per interval, so a batch of
// thousands of entries costs thousands of single-row reads every few seconds.
//
// Thread-safety: Execute may be called from any thread.
#pragma once

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "credledger/v1/state.pb.h"
#include "service/bus/liveness_index.h"
#include "service/bus/report_fold_cache.h"
#include "service/decide/report_commands.h"
#include "service/decide/target_commands.h"
#include "store/event_store.h"

namespace credledger::service {

struct ReportCommandResult {
  // The events the command appended (report stream first, then target stream), or on a
  // retried request id the ones it appended then.
  std::vector<store::RecordedEvent> events;
  bool replayed = false;
  // The report was a heartbeat or a retry: nothing was appended (ReportDecision::heartbeat).
  bool heartbeat = false;
  // Superseded credential Secrets a rollout confirmation among `events` released.
  std::vector<std::string> released_secrets;
  // The Target's status after the command (the current one on a replay or when nothing was
  // appended); empty for RecordLiveness.
  v1::TargetStatus status;
};

class ReportCommandBus {
 public:
  // `store` is not owned and must outlive the bus.
  explicit ReportCommandBus(store::EventStore* store);

  // Runs `command` for the Target named in `context` (RecordLiveness: for stream
  // `liveness`; the context's Target names are ignored).
  // Errors: the decider's (kNotFound, kFailedPrecondition, kInvalidArgument); kInvalidArgument
  // for an empty request id; kFailedPrecondition when the request id was already used for
  // another stream or command; kDataLoss when a stored event does not decode; store errors
  // (kAborted on a concurrent append, kUnavailable when the log cannot be written).
  absl::StatusOr<ReportCommandResult> Execute(const ReportCommand& command,
                                              const CommandContext& context);

  store::EventStore* store() const { return store_; }

 private:
  absl::StatusOr<ReportCommandResult> ExecuteForTarget(const ReportCommand& command,
                                                       const CommandContext& context);
  absl::StatusOr<ReportCommandResult> ExecuteLiveness(const RecordLiveness& command,
                                                      const CommandContext& context);

  store::EventStore* store_;
  LivenessIndex liveness_;
  ReportFoldCache folds_;
};

}  // namespace credledger::service
