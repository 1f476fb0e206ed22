// ClusterBridge: probes every registered cluster and records the outcomes
// (docs/connections.md, "Clusters", "Error classes" and
// "Probes and the Reachable condition").
//
// Work arrives as cluster names on a WorkQueue from changes of the cluster projection (a
// registration or spec change is probed at once), from a periodic re-probe of every active
// cluster (probe_period), and once for every cluster at start. A pass runs ProbeCluster and
// hands the result to the sink, which appends a ClusterProbed event when the outcome
// differs from the last recorded one or the last record is older than the record interval.
// ProbeFailed is retried with the queue's backoff; Unsupported is not retried (the next
// attempt follows a spec change or the periodic re-probe); ProbeSucceeded waits for the
// period.
//
// Thread-safety: Start/Stop from one thread; ProbeNow and LastProbe from any thread.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "common/clock.h"
#include "common/metric_values.h"
#include "credledger/v1/events.pb.h"
#include "credledger/v1/state.pb.h"
#include "kubebridge/client/backoff.h"
#include "kubebridge/client/cancellation.h"
#include "kubebridge/client/kube_client.h"
#include "kubebridge/client/work_queue.h"
#include "kubebridge/clusters/cluster_connector.h"
#include "projections/cluster_projector.h"

namespace credledger::kubebridge {

// Where probe outcomes go (service/bridge/bridge_cluster_sink.h records them in the log).
// Thread-safety: RecordProbe may be called from several threads.
class ClusterProbeSink {
 public:
  virtual ~ClusterProbeSink() = default;
  // Records `probe` of cluster `name` when it changes what the log says or refreshes a
  // record older than the record interval. Returns the cluster's state afterwards.
  // Errors: kNotFound when the cluster is not registered (any more); kUnavailable when the
  // log cannot be written.
  virtual absl::StatusOr<v1::ClusterState> RecordProbe(const std::string& name,
                                                       const v1::ClusterProbed& probe) = 0;
};

struct ClusterBridgeOptions {
  // Every active cluster is probed at least this often.
  absl::Duration probe_period = absl::Minutes(5);
  int workers = 2;
  // Retry pacing of a cluster whose probe failed (ProbeFailed).
  BackoffPolicy retry = {absl::Seconds(1), 2.0, absl::Minutes(5), 0.0, 1, absl::Minutes(5)};
  // Options of the probe's client; retry.max_attempts is forced to 1 and the request
  // timeout is probe_timeout.
  KubeClientOptions client;
  absl::Duration probe_timeout = absl::Seconds(10);
};

class ClusterBridge {
 public:
  // Starts the workers and the period loop; every active cluster is queued once. None of
  // the pointers is owned; all must outlive the bridge.
  static std::unique_ptr<ClusterBridge> Start(ClusterConnector* connector,
                                              ClusterProbeSink* sink,
                                              projections::ClusterProjector* projector,
                                              common::Clock* clock, ClusterBridgeOptions options);
  ~ClusterBridge();
  // Cancels running probes, stops every thread and joins them. Idempotent.
  void Stop();

  // Probes `name` now on the calling thread and records the outcome through the sink.
  // Returns the cluster's state afterwards.
  // Errors: kNotFound when the cluster is not active; the sink's errors; kCancelled.
  absl::StatusOr<v1::ClusterState> ProbeNow(const std::string& name, Cancellation* cancel);

  // When this process last finished a probe of `name` (recorded or not); nullopt when it
  // has not yet.
  std::optional<absl::Time> LastProbe(const std::string& name) const;

  // Blocks until no probe runs and none is due, or `timeout`; true when idle (tests).
  bool WaitIdle(absl::Duration timeout) const { return queue_.WaitIdle(timeout); }
  // Probes of `name` in a row that failed (tests).
  int Retries(const std::string& name) const { return queue_.Failures(name); }
  // Passes that failed since Start: a ProbeFailed outcome or an outcome that could not be
  // recorded (both retried with backoff); Unsupported, a deregistered cluster and passes cut
  // short by Stop are not counted (metrics).
  int64_t reconcile_errors() const { return reconcile_errors_.Value(); }

 private:
  ClusterBridge(ClusterConnector* connector, ClusterProbeSink* sink,
                projections::ClusterProjector* projector, common::Clock* clock,
                ClusterBridgeOptions options);
  void Worker();
  void PeriodLoop();
  // Queues the clusters whose incarnation or spec changed among those the projector
  // listener reported (other events of a cluster's stream, like its own ClusterProbed
  // records, queue nothing).
  void ChangeLoop();
  // Queues every active cluster and notes its spec.
  void EnqueueAll();
  // Notes the incarnation and spec version of `state`; true when they differ from the ones
  // noted before (or none were).
  bool NoteSpec(const v1::ClusterState& state);
  // Probes `name` and records the outcome; `probe` receives what the probe found.
  // Errors: as ProbeNow.
  absl::StatusOr<v1::ClusterState> Pass(const std::string& name, Cancellation& cancel,
                                        v1::ClusterProbed* probe);

  ClusterConnector* connector_;
  ClusterProbeSink* sink_;
  projections::ClusterProjector* projector_;
  common::Clock* clock_;
  const ClusterBridgeOptions options_;
  WorkQueue queue_;
  Cancellation stop_;
  common::Counter reconcile_errors_;
  mutable absl::Mutex mu_;
  std::map<std::string, absl::Time> last_probe_ ABSL_GUARDED_BY(mu_);
  // Cluster names the projector listener reported, not yet looked at by ChangeLoop.
  std::set<std::string> changed_ ABSL_GUARDED_BY(mu_);
  // (incarnation_version, spec_version) of every active cluster, as last seen.
  std::map<std::string, std::pair<int64_t, int64_t>> known_spec_ ABSL_GUARDED_BY(mu_);
  bool stopping_ ABSL_GUARDED_BY(mu_) = false;
  std::vector<std::thread> threads_;
  int listener_id_ = -1;
};

}  // namespace credledger::kubebridge
