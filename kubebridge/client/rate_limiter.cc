#include "kubebridge/client/rate_limiter.h"

#include <algorithm>

namespace credledger::kubebridge {
namespace {

double Burst(const RateLimit& limit) { return std::max(1, limit.burst); }

}  // namespace

RateLimiter::RateLimiter(RateLimit limit, common::Clock* clock)
    : limit_(limit), clock_(clock), tokens_(Burst(limit)), updated_(clock->Now()) {}

absl::Duration RateLimiter::Reserve() {
  if (limit_.qps <= 0) return absl::ZeroDuration();
  absl::MutexLock lock(&mu_);
  absl::Time now = clock_->Now();
  if (now > updated_) {
    tokens_ = std::min(Burst(limit_), tokens_ + absl::ToDoubleSeconds(now - updated_) * limit_.qps);
    updated_ = now;
  }
  tokens_ -= 1;
  if (tokens_ >= 0) return absl::ZeroDuration();
  return absl::Seconds(-tokens_ / limit_.qps);
}

absl::Status RateLimiter::Wait(Cancellation& cancel) {
  if (cancel.cancelled()) return absl::CancelledError("rate limiter: cancelled");
  absl::Duration delay = Reserve();
  if (!cancel.SleepFor(*clock_, delay)) return absl::CancelledError("rate limiter: cancelled");
  return absl::OkStatus();
}

}  // namespace credledger::kubebridge
