// DenialRecorder: turns the refusals a DenialLedger counted into CallsDenied events on stream
// `access` (docs/api.md, "Refused calls in the log"; docs/events.md, "CallsDenied"). Every
// `interval` it records the minutes that have ended, in one append; Stop records the rest, the
// current minute included. A minute whose append fails goes back into the ledger and is tried
// again next time. Refusals counted after the last Stop, or lost with the process, are only in
// the service's log lines.
//
// Thread-safety: Start and Stop from one thread; RecordEnded is thread-safe.
#pragma once

#include <atomic>
#include <cstdint>
#include <thread>

#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "common/clock.h"
#include "service/bus/access_command_bus.h"
#include "service/decide/access_decider.h"
#include "service/grpc/auth/denial_ledger.h"
#include "store/event_store.h"

namespace credledger::service {

class DenialRecorder {
 public:
  // `ledger`, `store` and `clock` are not owned and must outlive the recorder. `interval` is
  // how often ended minutes are recorded (> 0; real time).
  DenialRecorder(DenialLedger* ledger, store::EventStore* store, common::Clock* clock,
                 absl::Duration interval = absl::Seconds(10));
  // Stops (Stop).
  ~DenialRecorder();
  DenialRecorder(const DenialRecorder&) = delete;
  DenialRecorder& operator=(const DenialRecorder&) = delete;

  // Starts the thread.
  void Start();

  // Appends one CallsDenied per entry of the minutes that ended at or before `now` (all
  // minutes with absl::InfiniteFuture()), in one append to stream `access` as actor
  // "credledger". Returns the number of events appended (0 when nothing was waiting).
  // Errors: the store's; the entries then wait in the ledger for the next call.
  absl::StatusOr<int64_t> Record(absl::Time now);

  // Stops the thread, then records every waiting entry once. Idempotent.
  void Stop();

 private:
  void Loop();

  DenialLedger* const ledger_;
  AccessCommandBus bus_;
  common::Clock* const clock_;
  const absl::Duration interval_;
  absl::Mutex mu_;
  bool stopping_ ABSL_GUARDED_BY(mu_) = false;
  std::atomic<bool> stopped_{false};
  std::thread thread_;
};

}  // namespace credledger::service
