// RateLimiter: the client-side token bucket of a KubeClient: QPS and burst, client-go's
// 5/10 defaults, configurable (docs/design.md, "Client").
//
// The bucket holds up to `burst` tokens and refills at `qps` tokens per second of the
// injected clock. Each request takes one token; when none is left the request reserves the
// next one and waits for it, so waiting callers are served in reservation order and the
// long-run rate never exceeds `qps`. A qps <= 0 disables limiting.
//
// Thread-safety: Reserve and Wait may be called concurrently.
#pragma once

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "common/clock.h"
#include "kubebridge/client/cancellation.h"

namespace credledger::kubebridge {

struct RateLimit {
  // Sustained requests per second; <= 0 means unlimited.
  double qps = 5;
  // Requests that may go at once after a quiet period; values < 1 are treated as 1.
  int burst = 10;
};

class RateLimiter {
 public:
  // The bucket starts full. REQUIRES: `clock` outlives the limiter.
  RateLimiter(RateLimit limit, common::Clock* clock);

  // Takes one token and returns how long the caller must wait before using it (zero when
  // a token was available). Never blocks.
  absl::Duration Reserve();

  // Reserve(), then waits out the delay on the clock.
  // Errors: kCancelled when `cancel` is cancelled before or during the wait (the reserved
  // token is not returned).
  absl::Status Wait(Cancellation& cancel);

 private:
  const RateLimit limit_;
  common::Clock* const clock_;
  absl::Mutex mu_;
  // Tokens in the bucket at `updated_`; negative while callers hold reservations.
  double tokens_ ABSL_GUARDED_BY(mu_);
  absl::Time updated_ ABSL_GUARDED_BY(mu_);
};

}  // namespace credledger::kubebridge
