#include "kubebridge/mirrors/recreation_damper.h"

#include "kubebridge/client/backoff.h"

namespace credledger::kubebridge {

RecreationDamper::RecreationDamper(common::Clock& clock, RecreationDamping damping)
    : clock_(clock), damping_(damping) {}

std::set<std::string> RecreationDamper::HeldBack(
    const std::string& identity, const std::vector<std::string>& deleted_externally) {
  const absl::Time now = clock_.Now();
  absl::MutexLock lock(&mu_);
  for (const std::string& ns : deleted_externally) {
    Deletions& d = deletions_[{identity, ns}];
    if (d.count > 0 && now - d.last >= damping_.quiet) d.count = 0;
    const BackoffPolicy doubling{.initial_delay = damping_.initial,
                                 .multiplier = 2.0,
                                 .max_delay = damping_.max,
                                 .jitter = 0};
    const absl::Duration hold = BackoffDelay(doubling, d.count, /*unit=*/0);
    ++d.count;
    d.last = now;
    d.held_until = now + hold;
  }
  std::set<std::string> held;
  for (auto it = deletions_.lower_bound({identity, ""});
       it != deletions_.end() && it->first.first == identity;) {
    if (it->second.held_until > now) held.insert(it->first.second);
    // Quiet long enough: the next deletion starts over anyway.
    if (it->second.held_until <= now && now - it->second.last >= damping_.quiet) {
      it = deletions_.erase(it);
    } else {
      ++it;
    }
  }
  return held;
}

std::optional<absl::Time> RecreationDamper::NextRelease(const std::string& identity) const {
  const absl::Time now = clock_.Now();
  absl::MutexLock lock(&mu_);
  std::optional<absl::Time> next;
  for (auto it = deletions_.lower_bound({identity, ""});
       it != deletions_.end() && it->first.first == identity; ++it) {
    if (it->second.held_until > now && (!next.has_value() || it->second.held_until < *next)) {
      next = it->second.held_until;
    }
  }
  return next;
}

}  // namespace credledger::kubebridge
