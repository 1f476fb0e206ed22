// CheckpointWriter: signs the head of the global chain while the log grows (docs/audit.md,
// "Checkpoints"): when the head has advanced since the last checkpoint, every
// `every_events` events or every `interval`, whichever comes first, it signs (seq,
// chain_hash, time, key id) with the service's Ed25519 key and stores the checkpoint
// through the single writer. With a witness, it then publishes checkpoints there
// (docs/audit.md, "Witnesses"): the first one after Start, then the newest at most once per
// witness interval (also when no new checkpoint follows), and the last one at Stop.
//
// Thread-safety: Start and Stop from one thread; the writer runs on its own thread.
#pragma once

#include <atomic>
#include <cstdint>
#include <optional>
#include <thread>

#include "absl/status/status.h"
#include "absl/time/time.h"
#include "audit/signing_key.h"
#include "audit/witness.h"
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

// Where checkpoints are published outside the database.
struct CheckpointWitness {
  // Not owned; null: no witness.
  audit::WitnessStore* keeper = nullptr;
  // Time between two publications (the first and the last are not held back).
  absl::Duration interval = absl::Minutes(1);
};

// Whether a checkpoint is due: the head advanced past the last checkpoint, and either
// `every_events` events were appended since, or `interval` passed since it was signed (or no
// checkpoint exists). Pure. Times are the service clock's.
bool CheckpointDue(int64_t head_seq, int64_t last_seq, absl::Time last_signed_at, absl::Time now,
                   const CheckpointPolicy& policy);

class CheckpointWriter {
 public:
  // `store`, `key`, `clock` and the witness are not owned and must outlive the writer.
  CheckpointWriter(store::EventStore* store, const audit::SigningKey* key, common::Clock* clock,
                   CheckpointPolicy policy, CheckpointWitness witness = {});
  // Stops (Stop).
  ~CheckpointWriter();
  CheckpointWriter(const CheckpointWriter&) = delete;
  CheckpointWriter& operator=(const CheckpointWriter&) = delete;

  // Reads the newest checkpoint and starts the thread. Errors: store read errors.
  absl::Status Start();
  // Signs the head now when it advanced past the last checkpoint, and publishes it to the
  // witness when one is due; the thread's step, public for shutdown and tests. Returns the seq
  // checkpointed, 0 when nothing was due. A failed publication is logged and retried with the
  // next checkpoint. Errors: store read and write errors; kInternal when signing fails.
  absl::StatusOr<int64_t> CheckpointHead();
  // Stops the thread, then checkpoints the head once more when it advanced and publishes the
  // last checkpoint when the witness has not got it, so a clean shutdown leaves the whole log
  // under a signature and witnessed. Idempotent; does nothing when Start was not called.
  void Stop();

 private:
  void Loop();
  // Publishes `checkpoint` to the witness when it is due, or always when `force`.
  void Publish(const v1::Checkpoint& checkpoint, bool force);

  store::EventStore* const store_;
  const audit::SigningKey* const key_;
  common::Clock* const clock_;
  const CheckpointPolicy policy_;
  const CheckpointWitness witness_;
  // Written by Start before the thread runs, then only by the thread (or by Stop after
  // joining it).
  int64_t last_seq_ = 0;
  absl::Time last_signed_at_ = absl::InfinitePast();
  // The last publication to the witness (InfinitePast: none since Start), and the newest
  // checkpoint the witness has not got.
  absl::Time last_published_at_ = absl::InfinitePast();
  std::optional<v1::Checkpoint> unpublished_;
  std::atomic<bool> stopping_{false};
  std::thread thread_;
};

}  // namespace credledger::service
