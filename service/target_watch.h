// TargetWatch: one WatchTargets stream's source of items, independent of gRPC (DESIGN
// section 6, "Watch RPCs send a snapshot, then changes, each with its seq").
//
// With after_seq 0 it lists the Targets (SNAPSHOT items, then one SNAPSHOT_END marker, all at
// the seq the list is consistent with) and then follows the projector from that seq; with
// after_seq > 0 it follows from there without a snapshot. Live changes wait in a bounded
// queue: the projector's listener never blocks, and a consumer that lets more than
// `queue_limit` changes pile up gets kResourceExhausted instead of unbounded memory use.
// Changes replayed from the projector's history at start are not counted against the limit.
//
// Thread-safety: Next is for one consumer thread; the projector's listener pushes from the
// projector's thread.
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <memory>
#include <optional>
#include <string>

#include "absl/base/thread_annotations.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "credledger/v1/api.pb.h"
#include "projections/credential_projector.h"

namespace credledger::service {

class TargetWatch {
 public:
  struct Options {
    // Only Targets of this namespace; all when empty. REQUIRES: empty or a DNS-1123 label.
    std::string target_namespace;
    // 0: snapshot first; > 0: changes after this seq only. REQUIRES: >= 0.
    int64_t after_seq = 0;
    // Live changes allowed to wait for the consumer (>= 1).
    size_t queue_limit = 1024;
  };

  // Starts following `projector` (not owned; must outlive the watch).
  // Errors: kResourceExhausted when the projector no longer keeps the changes after
  // `after_seq` (its history was trimmed, or the service restarted since): list again.
  static absl::StatusOr<std::unique_ptr<TargetWatch>> Start(
      projections::CredentialProjector* projector, Options options);
  // Stops listening; no listener call runs after it returns.
  ~TargetWatch();
  TargetWatch(const TargetWatch&) = delete;
  TargetWatch& operator=(const TargetWatch&) = delete;

  // The next item, waiting at most `timeout`; nullopt when none arrived in time.
  // Errors: kResourceExhausted once more than queue_limit live changes were waiting (the
  // watch is over; the message names the last seq delivered for resuming).
  absl::StatusOr<std::optional<v1::WatchTargetsResponse>> Next(absl::Duration timeout);

 private:
  struct Item {
    v1::WatchTargetsResponse::Kind kind = v1::WatchTargetsResponse::KIND_UNSPECIFIED;
    int64_t seq = 0;
    std::optional<v1::TargetState> state;
    bool live = false;
  };

  TargetWatch(projections::CredentialProjector* projector, Options options);
  void OnChange(const projections::TargetChange& change);
  bool Wanted(const v1::TargetState& state) const;

  projections::CredentialProjector* const projector_;
  const Options options_;
  int listener_id_ = 0;
  int64_t last_delivered_seq_ = 0;  // consumer thread only

  absl::Mutex mu_;
  std::deque<Item> queue_ ABSL_GUARDED_BY(mu_);
  size_t live_queued_ ABSL_GUARDED_BY(mu_) = 0;
  bool overflowed_ ABSL_GUARDED_BY(mu_) = false;
};

}  // namespace credledger::service
