// LeaseFence: a coordination.k8s.io/v1 Lease that makes one replica the only writer: one
// replica runs with a Lease as a fence, and a replica that loses the Lease stops writing
// (docs/operations.md, "The Lease fence"; docs/design.md, "One writer").
//
// A replica acquires the Lease before it writes anything, renews it every `retry_period`,
// and holds it only while its last successful renewal was sent less than `renew_deadline`
// ago. The event log asks Check() before every commit, so a replica whose renewals stop
// succeeding (API server unreachable, Lease taken over) refuses to commit at the latest
// `renew_deadline` after its last renewal, before any other replica may take the Lease:
// another candidate takes it over only after it has seen the Lease unchanged for the whole
// `duration` (> renew_deadline), measured on its own clock, so clock offsets between machines
// do not matter (only their rates).
//
// The Lease's spec: holderIdentity, leaseDurationSeconds, acquireTime and renewTime
// (MicroTime), leaseTransitions (+1 whenever the holder changes). Release() empties
// holderIdentity so a successor need not wait.
//
// Thread-safety: Check and held are thread-safe; the other methods are called from one
// thread (Acquire, then Start; Stop or Release from the thread that called Start).
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <thread>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "common/clock.h"
#include "kubebridge/client/cancellation.h"
#include "kubebridge/client/kube_client.h"

namespace credledger::kubebridge {

// The longest lease accepted: a crashed holder that never released it keeps every successor
// waiting this long.
inline constexpr absl::Duration kMaxLeaseDuration = absl::Hours(1);
// The shortest lease accepted: renewals every 2/15 of it must still fit in its 2/3.
inline constexpr absl::Duration kMinLeaseDuration = absl::Seconds(2);

// Checks a lease duration (serve --lease-duration): whole seconds from kMinLeaseDuration to
// kMaxLeaseDuration (leaseDurationSeconds is an integer).
// Errors: kInvalidArgument "--lease-duration: <d> is not a whole number of seconds from 2s
// to 1h".
absl::Status ValidateLeaseDuration(absl::Duration duration);

struct LeaseFenceOptions {
  std::string namespace_name;                         // the Lease's namespace (DNS-1123 label)
  std::string name;                                   // the Lease's name (DNS-1123 subdomain)
  std::string identity;                               // this replica's holderIdentity (non-empty)
  absl::Duration duration = absl::Seconds(15);        // leaseDurationSeconds; whole seconds
  absl::Duration renew_deadline = absl::Seconds(10);  // < duration
  absl::Duration retry_period = absl::Seconds(2);     // < renew_deadline
  // Time source for renewals and expiry (not owned).
  common::Clock* clock = common::RealClock::Default();
};

// Checks the options.
// Errors: kInvalidArgument naming the field: empty identity, bad names, a duration that
// ValidateLeaseDuration refuses, retry_period >= renew_deadline or renew_deadline >= duration.
absl::Status ValidateLeaseFenceOptions(const LeaseFenceOptions& options);

class LeaseFence {
 public:
  // `client` is not owned and must outlive the fence. `on_lost` (may be empty) runs once, on
  // the renewing thread, when a held Lease is lost.
  LeaseFence(KubeClient* client, LeaseFenceOptions options, std::function<void()> on_lost = {});
  // Stops renewing (Stop) without releasing.
  ~LeaseFence();
  LeaseFence(const LeaseFence&) = delete;
  LeaseFence& operator=(const LeaseFence&) = delete;

  // One round: reads the Lease and creates, renews or takes it over when this replica may.
  // Returns whether this replica holds the Lease after the round.
  // Errors: the API's (kUnavailable, kPermissionDenied, ...); a Conflict (another replica
  // wrote first) is not an error but `false`.
  absl::StatusOr<bool> TryAcquireOrRenew();

  // Repeats TryAcquireOrRenew every retry_period until it holds the Lease.
  // Errors: kCancelled when `cancel` fires first; kPermissionDenied at once (waiting would not
  // help); other API errors are retried.
  absl::Status Acquire(Cancellation& cancel);

  // Starts renewing on a thread. A renewal that fails is retried every retry_period; once
  // renew_deadline has passed since the last successful one, the Lease counts as lost:
  // Check() fails from then on and `on_lost` runs.
  void Start();

  // OK while this replica holds the Lease; checked by the event log before every commit.
  // Errors: kUnavailable "lease <ns>/<name> is not held by this replica (...)".
  absl::Status Check() const;
  bool held() const { return Check().ok(); }

  // Stops renewing. Idempotent.
  void Stop();
  // Stops renewing and, when held, gives the Lease up (holderIdentity emptied) so the next
  // replica can take it at once. Errors: the API's (the Lease then expires by itself).
  absl::Status Release();

 private:
  ResourceRef Ref() const;
  nlohmann::json Spec(const nlohmann::json& current, absl::Time now, bool takeover) const;
  void Loop();

  KubeClient* const client_;
  const LeaseFenceOptions options_;
  std::function<void()> on_lost_;
  // Held until this time (unix microseconds; 0 = not held). Written by the acquiring or
  // renewing thread, read by Check from any thread.
  std::atomic<int64_t> held_until_us_{0};
  // What this replica last saw of another holder's Lease and when (its own clock): the
  // Lease may be taken over once it has stayed unchanged for `duration`.
  std::string observed_record_;
  absl::Time observed_at_ = absl::InfinitePast();
  Cancellation stop_;
  std::thread thread_;
};

}  // namespace credledger::kubebridge
