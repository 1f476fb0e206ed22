// RecreationDamper: paces the re-creation of a mirror that someone else keeps deleting
// (docs/mirrors.md, "How a change propagates"). Kubernetes' garbage collector, or any
// controller that disagrees with credledger, can delete a mirror as soon as it is written; a
// bridge that re-created it at once would loop, writing and recording every second.
//
// Per identity and namespace: the first external deletion holds the namespace back for
// `initial` (1 s), each further one doubles the hold up to `max` (5 min), and a deletion that
// comes `quiet` (10 min) or more after the previous one starts over at `initial`. Time comes
// from the injected Clock. A held-back namespace writes nothing (PlanMirrors); the bridge
// queues the identity again for NextRelease.
//
// Thread-safety: all methods are thread-safe.
#pragma once

#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "common/clock.h"
#include "kubebridge/mirrors/mirror_reconciler.h"

namespace credledger::kubebridge {

struct RecreationDamping {
  absl::Duration initial = absl::Seconds(1);
  absl::Duration max = absl::Minutes(5);
  absl::Duration quiet = absl::Minutes(10);
};

class RecreationDamper final : public RecreationPacer {
 public:
  // `clock` is not owned and must outlive the damper.
  RecreationDamper(common::Clock& clock, RecreationDamping damping);

  // Counts each namespace of `deleted_externally` as one more external deletion of
  // `identity`'s mirror there, now; returns the namespaces of `identity` held back now.
  std::set<std::string> HeldBack(const std::string& identity,
                                 const std::vector<std::string>& deleted_externally) override;

  // The earliest end of a hold of `identity` still running; nullopt when none runs.
  std::optional<absl::Time> NextRelease(const std::string& identity) const;

 private:
  struct Deletions {
    int count = 0;
    absl::Time last;        // of the latest deletion
    absl::Time held_until;  // last + the hold it started
  };
  using Key = std::pair<std::string, std::string>;  // identity, namespace

  common::Clock& clock_;
  const RecreationDamping damping_;
  mutable absl::Mutex mu_;
  std::map<Key, Deletions> deletions_ ABSL_GUARDED_BY(mu_);
};

}  // namespace credledger::kubebridge
