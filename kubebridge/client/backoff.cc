#include "kubebridge/client/backoff.h"

#include <algorithm>
#include <cmath>

namespace credledger::kubebridge {

absl::Duration BackoffDelay(const BackoffPolicy& policy, int retry, double unit) {
  double max_seconds = std::max(0.0, absl::ToDoubleSeconds(policy.max_delay));
  double base = std::max(0.0, absl::ToDoubleSeconds(policy.initial_delay)) *
                std::pow(std::max(1.0, policy.multiplier), std::max(0, retry));
  base = std::min(base, max_seconds);
  double jitter = std::clamp(policy.jitter, 0.0, 1.0);
  double u = std::clamp(unit, 0.0, 1.0);
  double seconds = std::clamp(base * (1 + jitter * (2 * u - 1)), 0.0, max_seconds);
  return absl::Seconds(seconds);
}

absl::Duration RetryDelay(const BackoffPolicy& policy, int retry, double unit,
                          std::optional<absl::Duration> retry_after) {
  absl::Duration delay = BackoffDelay(policy, retry, unit);
  if (retry_after.has_value()) {
    delay = std::max(delay, std::min(*retry_after, policy.max_retry_after));
  }
  return delay;
}

}  // namespace credledger::kubebridge
