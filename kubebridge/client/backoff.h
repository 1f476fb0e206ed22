// Backoff: the retry schedule of the kube bridge. KubeClient retries kUnavailable failures
// (and only those) on it; watches use it between failed list/watch attempts.
//
// Delay before retry n (n = 0 for the first retry):
//   min(max_delay, initial_delay * multiplier^n) * (1 + jitter * (2u - 1))
// where u in [0, 1) is a random draw supplied by the caller (so tests are deterministic),
// then clamped to [0, max_delay]. A server's Retry-After (429) raises the delay to at least
// that value, capped by max_retry_after.
//
// Thread-safety: a plain value and pure functions.
#pragma once

#include <optional>

#include "absl/time/time.h"

namespace credledger::kubebridge {

struct BackoffPolicy {
  absl::Duration initial_delay = absl::Milliseconds(200);
  double multiplier = 2.0;
  absl::Duration max_delay = absl::Seconds(10);
  // Spread of each delay as a fraction of it (0 = exact schedule), in [0, 1].
  double jitter = 0.2;
  // Total attempts of one request, the first included; values < 1 are treated as 1.
  int max_attempts = 5;
  // Longest Retry-After honoured.
  absl::Duration max_retry_after = absl::Seconds(60);
};

// The delay before retry `retry` (>= 0) under `policy`, with random draw `unit` in [0, 1).
absl::Duration BackoffDelay(const BackoffPolicy& policy, int retry, double unit);

// BackoffDelay, raised to the server's `retry_after` (capped by policy.max_retry_after) when
// one was given.
absl::Duration RetryDelay(const BackoffPolicy& policy, int retry, double unit,
                          std::optional<absl::Duration> retry_after);

}  // namespace credledger::kubebridge
