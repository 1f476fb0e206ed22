// MirrorBridge: runs the mirror reconciler for every identity (docs/design.md,
// "Reconcilers"; docs/mirrors.md, "How a change propagates").
//
// Work arrives as identity names on a WorkQueue from:
//   - changes of the identity projection (a create, update, binding, or an outcome);
//   - a watch on each source Secret, one per distinct secretRef of the active identities,
//     narrowed by name with a field selector (so credledger reads no other Secret): a source
//     change reaches every mirror within seconds instead of at a sync period;
//   - a watch on every namespace: a relabelled namespace re-evaluates the selectors of the
//     identities bound there (NamespaceLabelCache also answers the reconciler's label reads);
//   - a watch on mirror Secrets (label captf.io/mirrored=true): a mirror edited or deleted by
//     someone else is repaired;
//   - a periodic resync of every identity (also once at start, which finishes passes a crash
//     interrupted).
// An identity whose spec names a registered cluster (spec.cluster) has its mirrors written
// there, over a client made for each pass (options.cluster_clients); its source is still
// watched on the home cluster, but its namespaces and mirrors are read at each pass, which
// the resync and source changes trigger. A cluster that cannot be connected to is recorded
// as a failure in every bound namespace: Unsupported ones (CLUSTER_UNSUPPORTED) wait for the
// next change or resync, others (CLUSTER_UNREACHABLE) are retried with backoff.
// A pass is not run again for its own echoes alone: the events its outcomes appended (the
// projection's changes) and the mirror updates it made (the mirror watch) (PassTriggers).
// Workers run MirrorReconciler on the identity's state as read from the log; a failed pass,
// and one that left a namespace waiting on a conflict or on a missing or colliding source
// (MirrorReconcileResult::retry), retries with per-key exponential backoff. A mirror deleted
// by someone else is re-created after a hold that grows with each such deletion of it
// (RecreationDamper, options.recreation); the identity is queued again when a hold ends.
//
// Thread-safety: Start/Stop from one thread; everything else is internal.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "common/clock.h"
#include "common/fingerprint_key.h"
#include "common/metric_values.h"
#include "kubebridge/client/cancellation.h"
#include "kubebridge/client/kube_client.h"
#include "kubebridge/client/work_queue.h"
#include "kubebridge/mirrors/mirror_reconciler.h"
#include "kubebridge/mirrors/namespace_labels.h"
#include "kubebridge/mirrors/pass_triggers.h"
#include "kubebridge/mirrors/recreation_damper.h"
#include "kubebridge/model/mirror_outcomes.h"
#include "projections/identity_projector.h"

namespace credledger::kubebridge {

// Connects to the registered cluster `cluster` (by name) for one pass: a new client each
// time, so nothing about a connection is cached (docs/connections.md).
// Errors: UnsupportedError (connection_errors.h) when the cluster's configuration cannot be
// used; any other error when it is not registered or cannot be connected to now. Each
// message names the cluster once (`cluster "edge-1": ...`); the bridge records it as is.
using ClusterClientFactory = std::function<absl::StatusOr<std::unique_ptr<KubeClient>>(
    const std::string& cluster, Cancellation* cancel)>;

struct MirrorBridgeOptions {
  // Every identity is reconciled at least this often.
  absl::Duration resync_period = absl::Minutes(10);
  // Identities reconciled at once.
  int workers = 2;
  // Namespaces of one identity written at once (MirrorReconciler's `writers`); the client's
  // rate limit paces them together.
  int writers_per_pass = 8;
  // Retry pacing of an identity whose pass failed or left a namespace waiting.
  BackoffPolicy retry = {absl::Seconds(1), 2.0, absl::Minutes(5), 0.0, 1, absl::Minutes(5)};
  // Wait between failed attempts of a watch.
  BackoffPolicy watch_backoff;
  // Pacing of the re-creation of mirrors deleted by someone else.
  RecreationDamping recreation;
  // Clients for identities whose spec names a registered cluster; unset: such identities
  // fail with MIRROR_FAILURE_KIND_CLUSTER_UNREACHABLE.
  ClusterClientFactory cluster_clients;
};

class MirrorBridge {
 public:
  // Starts the watches, the workers and the resync loop; every identity known to
  // `projector` is queued once. Sources are fingerprinted under `fingerprint_key` in every
  // outcome (MirrorReconciler). None of the pointers is owned; all must be non-null and
  // outlive the bridge.
  static std::unique_ptr<MirrorBridge> Start(KubeClient* client, MirrorOutcomeSink* sink,
                                             projections::IdentityProjector* projector,
                                             const common::FingerprintKey* fingerprint_key,
                                             common::Clock* clock, MirrorBridgeOptions options);
  // Stops and joins (Stop).
  ~MirrorBridge();
  // Cancels running Kubernetes calls, stops every thread and joins them. Idempotent.
  void Stop();

  // Queues every active identity that mirrors into registered cluster `cluster`: its
  // connection may work now (a spec change, a probe that succeeded). Thread-safe.
  void ClusterChanged(const std::string& cluster);

  // Identities waiting in the queue (metrics, tests).
  size_t QueueDepth() const { return queue_.Depth(); }
  // Passes that failed since Start (a namespace left waiting is no failure; passes cut
  // short by Stop are not counted) (metrics).
  int64_t reconcile_errors() const { return reconcile_errors_.Value(); }
  // Blocks until no pass runs and none is due, or `timeout`; true when idle (tests).
  bool WaitIdle(absl::Duration timeout) const { return queue_.WaitIdle(timeout); }
  // Passes of `identity` in a row that failed or left a namespace waiting; 0 after one that
  // did neither (tests).
  int Retries(const std::string& identity) const { return queue_.Failures(identity); }
  // Changes (updates and deletions) of mirror Secrets the mirror watch reported since Start,
  // the bridge's own updates included (tests).
  int64_t mirror_changes() const { return mirror_changes_.Value(); }
  // The source Secrets watched now, as "<namespace>/<name>" (tests).
  std::set<std::string> WatchedSources() const;

 private:
  class SourceWatch;
  class MirrorWatch;

  MirrorBridge(KubeClient* client, MirrorOutcomeSink* sink,
               projections::IdentityProjector* projector, common::Clock* clock,
               MirrorBridgeOptions options);
  void Worker();
  // One pass for `state`: on the home cluster, or on its registered cluster.
  absl::StatusOr<MirrorReconcileResult> Pass(const v1::IdentityState& state);
  void ResyncLoop();
  void SourceWatchLoop();
  void SyncSourceWatches();
  // Queues `identity` for a trigger other than its own stream (PassTriggers::Outside).
  void Enqueue(const std::string& identity);
  void EnqueueAll();
  // Queues every active identity whose secretRef is `source` ("<namespace>/<name>").
  void EnqueueSource(const std::string& source);
  // Queues every active identity with a selector and an entry for namespace `ns`.
  void EnqueueNamespace(const std::string& ns);
  void MarkSourcesDirty();

  KubeClient* client_;
  MirrorOutcomeSink* sink_;
  projections::IdentityProjector* projector_;
  common::Clock* clock_;
  const MirrorBridgeOptions options_;
  WorkQueue queue_;
  Cancellation stop_;
  int listener_id_ = 0;
  common::Counter reconcile_errors_;
  common::Counter mirror_changes_;
  RecreationDamper damper_;
  PassTriggers triggers_;
  std::unique_ptr<NamespaceLabelCache> namespaces_;
  std::unique_ptr<MirrorReconciler> reconciler_;
  std::unique_ptr<MirrorWatch> mirror_watch_;

  mutable absl::Mutex sources_mu_;
  bool sources_dirty_ ABSL_GUARDED_BY(sources_mu_) = true;
  std::map<std::string, std::unique_ptr<SourceWatch>> source_watches_ ABSL_GUARDED_BY(sources_mu_);

  std::vector<std::thread> threads_;
};

}  // namespace credledger::kubebridge
