// ReportScheduler: the service's own report decisions, taken on a timer (docs/reports.md,
// "Liveness and staleness" and "Rollups").
//
// Every `period` it
//   1. drains the LivenessBuffer into one LivenessObserved event (stream `liveness`), unless
//      free space is below the SpaceReserve (the heartbeats then wait in the buffer),
//   2. appends the held reports that are due (ReportIngest::FlushHeld; docs/reports.md,
//      "Limits"), and
//   3. after the status projector has folded the log up to the head, marks every active
//      Target whose last report or heartbeat is older than `stale_after` with one
//      ReportingStale event (Reporting=False/Stale). A heartbeat still waiting in the buffer
//      or a held report counts as seen.
// Staleness is decided here, by the clock, and recorded; never computed on read, so a replay
// of the log shows exactly when each Target went stale.
//
// Thread-safety: Start/Stop from one thread; RunOnce may be called by tests instead of Start.
#pragma once

#include <memory>
#include <thread>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "common/clock.h"
#include "projections/credential_projector.h"
#include "projections/status_projector.h"
#include "service/api/liveness_buffer.h"
#include "service/api/report_ingest.h"
#include "service/api/space_reserve.h"
#include "service/bus/report_command_bus.h"

namespace credledger::service {

class ReportScheduler {
 public:
  struct Options {
    // How often heartbeats are flushed and staleness is checked (--liveness-flush-interval).
    absl::Duration period = absl::Seconds(5);
    // A Target is stale when nothing arrived for this long (--report-stale-after).
    absl::Duration stale_after = absl::Minutes(10);
    // How long one round waits for the status projector to reach the head.
    absl::Duration projector_wait = absl::Seconds(5);
  };

  // None of the pointers is owned; all must outlive the scheduler.
  ReportScheduler(ReportCommandBus* bus, LivenessBuffer* liveness, ReportIngest* ingest,
                  const SpaceReserve* space, projections::CredentialProjector* targets,
                  projections::StatusProjector* statuses, common::Clock* clock, Options options);
  ~ReportScheduler();

  // Starts the timer thread; the first round runs one period after Start.
  void Start();
  // Stops the thread after the round in progress, then flushes the buffer and every held
  // report, due or not, so that no heartbeat or report received before Stop is lost.
  // Idempotent.
  void Stop();

  // One round: heartbeats, held reports, then staleness. Returns the first error (the round
  // goes on after a failed flush; the heartbeats and reports are put back for the next
  // round).
  absl::Status RunOnce();

  // Appends the waiting heartbeats as one LivenessObserved; nothing when none wait or free
  // space is below the reserve (they keep waiting).
  // Errors: the bus's (kUnavailable when the log cannot be written): the heartbeats are put
  // back.
  absl::Status FlushLiveness();

  // Marks the Targets silent for stale_after at the clock's now.
  // Errors: kDeadlineExceeded when the status projector did not reach the head in time;
  // the bus's for the first failed mark (the others are still tried).
  absl::Status MarkStaleTargets();

 private:
  void Loop();

  ReportCommandBus* bus_;
  LivenessBuffer* liveness_;
  ReportIngest* ingest_;
  const SpaceReserve* space_;
  projections::CredentialProjector* targets_;
  projections::StatusProjector* statuses_;
  common::Clock* clock_;
  const Options options_;

  absl::Mutex mu_;
  absl::CondVar cv_;
  bool stopping_ ABSL_GUARDED_BY(mu_) = false;
  std::thread thread_;
};

}  // namespace credledger::service
