// CheckpointWriter: signs the head of the global chain while the log grows (docs/audit.md,
// "Checkpoints"): when the head has advanced since the last checkpoint, every
// `every_events` events or every `interval`, whichever comes first, it signs (seq,
// chain_hash, time, key id) with the service's Ed25519 key and stores the checkpoint
// through the single writer.
//
// Thread-safety: Start and Stop from one thread; the writer runs on its own thread.
#pragma once

#include <atomic>
#include <cstdint>
#include <thread>

#include "absl/status/status.h"
#include "absl/time/time.h"
#include "audit/signing_key.h"
#include "common/clock.h"
#include "store/event_store.h"

namespace credledger::service {

struct CheckpointPolicy {
  // Events after the last checkpoint that make the next one due (>= 1).
  int64_t every_events = 1000;
  // Time after the last checkpoint that makes the next one due when the head advanced
  // (>= 10ms).
  absl::Duration interval = absl::Seconds(1);
};

// Whether a checkpoint is due: the head advanced past the last checkpoint, and either
// `every_events` events were appended since, or `interval` passed since it was signed (or no
// checkpoint exists). Pure. Times are the service clock's.
bool CheckpointDue(int64_t head_seq, int64_t last_seq, absl::Time last_signed_at, absl::Time now,
                   const CheckpointPolicy& policy);

class CheckpointWriter {
 public:
  // `store`, `key` and `clock` are not owned and must outlive the writer.
  CheckpointWriter(store::EventStore* store, const audit::SigningKey* key, common::Clock* clock,
                   CheckpointPolicy policy);
  // Stops (Stop).
  ~CheckpointWriter();
  CheckpointWriter(const CheckpointWriter&) = delete;
  CheckpointWriter& operator=(const CheckpointWriter&) = delete;

  // Reads the newest checkpoint and starts the thread. Errors: store read errors.
  absl::Status Start();
  // Signs the head now when it advanced past the last checkpoint; the thread's step, public
  // for shutdown and tests. Returns the seq checkpointed, 0 when nothing was due.
  // Errors: store read and write errors; kInternal when signing fails.
  absl::StatusOr<int64_t> CheckpointHead();
  // Stops the thread, then checkpoints the head once more when it advanced, so a clean
  // shutdown leaves the whole log under a signature. Idempotent; does nothing when Start was
  // not called.
  void Stop();

 private:
  void Loop();

  store::EventStore* const store_;
  const audit::SigningKey* const key_;
  common::Clock* const clock_;
  const CheckpointPolicy policy_;
  // Written by Start before the thread runs, then only by the thread (or by Stop after
  // joining it).
  int64_t last_seq_ = 0;
  absl::Time last_signed_at_ = absl::InfinitePast();
  std::atomic<bool> stopping_{false};
  std::thread thread_;
};

}  // namespace credledger::service
