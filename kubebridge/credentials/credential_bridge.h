// CredentialBridge: runs the credential reconcilers (docs/design.md, "Reconcilers").
//
// The reconcilers compare the Targets' ServiceAccounts, Roles, RoleBindings and
// TargetReports against watch-fed caches (IdentityCaches), which the bridge starts first;
// no pass runs before every cache has its first list.
//
// Work arrives as Target keys ("<namespace>/<name>") on a WorkQueue from four sources:
// changes of the credential projection, a watch on credential Secrets (every Secret with the
// solar.opendefense.cloud/agent-credential label, all namespaces; deletions become hints the
// reconciler confirms with a direct GET), and a periodic resync of every Target (also run
// once at start, which resumes mint attempts open at a crash), and the caches' changes (an
// object of the Target deleted or drifted). Worker threads take keys and
// run CredentialReconciler on the Target's state as read from the log; failures retry with
// per-key exponential backoff; a pass that leaves a rotation due time or a superseded
// credential's expiry requeues the key for then.
//
// Thread-safety: Start/Stop from one thread; everything else is internal.
#pragma once

#include <map>
#include <memory>
#include <thread>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "absl/synchronization/notification.h"
#include "common/clock.h"
#include "common/metric_values.h"
#include "kubebridge/client/cancellation.h"
#include "kubebridge/client/kube_client.h"
#include "kubebridge/client/work_queue.h"
#include "kubebridge/credentials/credential_reconciler.h"
#include "kubebridge/credentials/identity_caches.h"
#include "kubebridge/model/outcomes.h"
#include "projections/credential_projector.h"

namespace credledger::kubebridge {

struct CredentialBridgeOptions {
  // TokenRequest expirationSeconds (--agent-token-ttl).
  absl::Duration token_ttl = absl::Hours(24);
  // Every Target is reconciled at least this often.
  absl::Duration resync_period = absl::Minutes(10);
  int workers = 4;
  // Retry pacing of a Target whose pass failed.
  BackoffPolicy retry = {absl::Seconds(1), 2.0, absl::Minutes(5), 0.0, 1, absl::Minutes(5)};
};

class CredentialBridge {
 public:
  // Starts the caches, workers, the Secret watch and the resync loop. None of the pointers is
  // owned; all must outlive the bridge. Every Target known to `projector` is queued once at
  // start.
  static std::unique_ptr<CredentialBridge> Start(KubeClient* client, OutcomeSink* sink,
                                                 projections::CredentialProjector* projector,
                                                 common::Clock* clock,
                                                 CredentialBridgeOptions options);
  // Stops and joins (Stop).
  ~CredentialBridge();
  // Cancels running Kubernetes calls, stops the threads and joins them. Idempotent.
  void Stop();

  // Blocks until every cache and the Secret watch have their first list (true), or
  // `timeout` passed or the bridge stopped (false) (tests, benchmarks).
  bool WaitSynced(absl::Duration timeout) const;
  // OK once every cache has its first list, otherwise why passes wait (readiness notices;
  // see IdentityCaches::SyncStatus).
  absl::Status CacheStatus() const { return caches_->SyncStatus(); }
  // Keys waiting in the queue, due or delayed (metrics, tests).
  size_t QueueDepth() const { return queue_.Depth(); }
  // Passes that failed (and were retried with backoff) since Start; passes cut short by
  // Stop are not counted (metrics).
  int64_t reconcile_errors() const { return reconcile_errors_.Value(); }
  // Blocks until no pass runs and none is due, or `timeout`; true when idle (tests).
  bool WaitIdle(absl::Duration timeout) const { return queue_.WaitIdle(timeout); }
  // Periodic resyncs done so far, and a bounded wait for a count (tests).
  int64_t resyncs() const;
  bool WaitResyncs(int64_t count, absl::Duration timeout) const;

 private:
  class SecretWatch;

  CredentialBridge(KubeClient* client, OutcomeSink* sink,
                   projections::CredentialProjector* projector, common::Clock* clock,
                   CredentialBridgeOptions options);
  void Worker();
  void ResyncLoop();
  void EnqueueAll();
  void AddHint(const std::string& key, DeletedSecretHint hint);
  std::vector<DeletedSecretHint> TakeHints(const std::string& key);

  KubeClient* client_;
  OutcomeSink* sink_;
  projections::CredentialProjector* projector_;
  common::Clock* clock_;
  const CredentialBridgeOptions options_;
  std::unique_ptr<IdentityCaches> caches_;            // set by Start
  std::unique_ptr<CredentialReconciler> reconciler_;  // set by Start
  WorkQueue queue_;
  Cancellation stop_;
  int listener_id_ = 0;
  common::Counter reconcile_errors_;

  mutable absl::Mutex resync_mu_;
  int64_t resyncs_ ABSL_GUARDED_BY(resync_mu_) = 0;

  absl::Mutex hints_mu_;
  std::map<std::string, std::vector<DeletedSecretHint>> hints_ ABSL_GUARDED_BY(hints_mu_);

  std::unique_ptr<SecretWatch> watch_;
  absl::Notification secrets_listed_;  // the Secret watch's first OnSync
  std::vector<std::thread> threads_;
};

// "<namespace>/<name>", the work queue key of a Target.
std::string TargetKey(absl::string_view target_namespace, absl::string_view name);

}  // namespace credledger::kubebridge
