// AppendWorkload: threads that append to an event log without pause, and sign a checkpoint
// every so often, recording every answer, for tests that take the database away underneath
// (docs/testing.md, "Database failover").
//
// Each writer thread sends requests "w<writer>-<n>" in order. A request appends one event to
// the writer's own stream `writer/<writer>` at the exact version it expects (no stream for the
// first), and every third one also an event to one of eight streams all writers share
// (`shared/<k>`, any version); each event's payload is its request id. A request answered
// kUnavailable is sent again with the same request id until it is answered otherwise or the
// retry time is up, as a client of the API retries (docs/postgres.md, "Errors"). Any other
// error is a failure, and its writer stops.
//
// A checkpoint thread signs a checkpoint of the newest acknowledged event each time the
// acknowledged head has moved `checkpoint_every` events past the last one it tried, and saves
// it through the store's writer; kUnavailable only skips that checkpoint.
//
// Thread-safety: Start, Stop and the destructor from one thread; the accessors from any thread
// (the recorded answers are complete only after Stop).
#pragma once

#include <cstdint>
#include <string>
#include <thread>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "audit/signing_key.h"
#include "common/clock.h"
#include "credledger/v1/audit.pb.h"
#include "store/event_store.h"

namespace credledger::testing {

// A request the store acknowledged.
struct AcknowledgedAppend {
  std::string request_id;
  // The events the acknowledgement named: seq, event id and hashes.
  std::vector<store::RecordedEvent> events;
  // Appends sent until one was answered OK; every earlier one was answered kUnavailable.
  int attempts = 1;
  // The answer was a replay: an attempt answered kUnavailable had committed after all.
  bool replayed = false;
};

struct AppendWorkloadOptions {
  // Writer threads (>= 1).
  int writers = 8;
  // Acknowledged events between two checkpoints (>= 1).
  int checkpoint_every = 500;
  // How long one request is sent again while the store answers kUnavailable.
  absl::Duration retry_for = absl::Seconds(120);
};

class AppendWorkload {
 public:
  // `store`, `key` and `clock` (the checkpoints' signing time) must outlive the workload.
  AppendWorkload(store::EventStore& store, const audit::SigningKey& key, const common::Clock& clock,
                 AppendWorkloadOptions options = {});
  // Stop.
  ~AppendWorkload();
  AppendWorkload(const AppendWorkload&) = delete;
  AppendWorkload& operator=(const AppendWorkload&) = delete;

  // Starts the writer threads and the checkpoint thread. REQUIRES: called once.
  void Start();
  // Waits until at least `events` events are acknowledged, at most `timeout` and no longer
  // than some writer still appends; whether they were.
  bool AwaitAcknowledged(int64_t events, absl::Duration timeout);
  // Lets every writer finish the request it is sending (answered, or given up after
  // retry_for) and joins the threads. Idempotent.
  void Stop();

  // Events acknowledged so far.
  int64_t acknowledged_events() const;
  // Every acknowledged request, in the order of the acknowledgements (so each writer's in
  // request order).
  std::vector<AcknowledgedAppend> acknowledged() const;
  // Every checkpoint whose save was acknowledged, in seq order.
  std::vector<v1::Checkpoint> checkpoints() const;
  // Answers kUnavailable (appends and checkpoints).
  int64_t unavailable_answers() const;
  // What went wrong otherwise, one line each: the request id or checkpoint and the status.
  std::vector<std::string> failures() const;
  // One line: requests and events acknowledged, requests sent again and how many of those were
  // answered as replays, kUnavailable answers, checkpoints, failures; then the first failures,
  // a line each.
  std::string Summary() const;

 private:
  void Write(int writer);
  void Checkpoint();
  bool stopping() const;

  store::EventStore& store_;
  const audit::SigningKey& key_;
  const common::Clock& clock_;
  const AppendWorkloadOptions options_;
  std::vector<std::thread> threads_;

  mutable absl::Mutex mu_;
  bool stopping_ ABSL_GUARDED_BY(mu_) = false;
  // Writer threads that have not returned (a failure ends one).
  int writers_running_ ABSL_GUARDED_BY(mu_) = 0;
  std::vector<AcknowledgedAppend> acknowledged_ ABSL_GUARDED_BY(mu_);
  int64_t acknowledged_events_ ABSL_GUARDED_BY(mu_) = 0;
  // The acknowledged event with the highest seq: the next checkpoint's seq and chain hash.
  int64_t head_seq_ ABSL_GUARDED_BY(mu_) = 0;
  std::string head_chain_hash_ ABSL_GUARDED_BY(mu_);
  std::vector<v1::Checkpoint> checkpoints_ ABSL_GUARDED_BY(mu_);
  int64_t unavailable_answers_ ABSL_GUARDED_BY(mu_) = 0;
  std::vector<std::string> failures_ ABSL_GUARDED_BY(mu_);
};

}  // namespace credledger::testing
