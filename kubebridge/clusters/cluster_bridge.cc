#include "kubebridge/clusters/cluster_bridge.h"

#include <algorithm>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "common/log.h"
#include "common/status_macros.h"
#include "kubebridge/clusters/cluster_prober.h"
#include "kubebridge/model/connection_errors.h"

namespace credledger::kubebridge {

ClusterBridge::ClusterBridge(ClusterConnector* connector, ClusterProbeSink* sink,
                             projections::ClusterProjector* projector, common::Clock* clock,
                             ClusterBridgeOptions options)
    : connector_(connector),
      sink_(sink),
      projector_(projector),
      clock_(clock),
      options_(std::move(options)),
      queue_(*clock, options_.retry) {}

std::unique_ptr<ClusterBridge> ClusterBridge::Start(ClusterConnector* connector,
                                                    ClusterProbeSink* sink,
                                                    projections::ClusterProjector* projector,
                                                    common::Clock* clock,
                                                    ClusterBridgeOptions options) {
  auto bridge = std::unique_ptr<ClusterBridge>(
      new ClusterBridge(connector, sink, projector, clock, std::move(options)));
  ClusterBridge* b = bridge.get();
  // Changes are looked at from now on; the EnqueueAll below covers everything before.
  b->listener_id_ = projector->AddKeyListener([b](const std::string& stream) {
    absl::string_view name = stream;
    if (!absl::ConsumePrefix(&name, "cluster/")) return;
    absl::MutexLock lock(&b->mu_);
    b->changed_.insert(std::string(name));
  });
  b->EnqueueAll();
  b->threads_.emplace_back([b] { b->ChangeLoop(); });
  b->threads_.emplace_back([b] { b->PeriodLoop(); });
  for (int i = 0; i < std::max(1, b->options_.workers); ++i) {
    b->threads_.emplace_back([b] { b->Worker(); });
  }
  return bridge;
}

ClusterBridge::~ClusterBridge() { Stop(); }

void ClusterBridge::Stop() {
  if (threads_.empty()) return;
  projector_->RemoveListener(listener_id_);
  stop_.Cancel();
  {
    absl::MutexLock lock(&mu_);
    stopping_ = true;
  }
  queue_.ShutDown();
  for (std::thread& t : threads_) t.join();
  threads_.clear();
}

std::optional<absl::Time> ClusterBridge::LastProbe(const std::string& name) const {
  absl::MutexLock lock(&mu_);
  const auto it = last_probe_.find(name);
  if (it == last_probe_.end()) return std::nullopt;
  return it->second;
}

absl::StatusOr<v1::ClusterState> ClusterBridge::ProbeNow(const std::string& name,
                                                         Cancellation* cancel) {
  LinkedCancellation linked(stop_, cancel);
  v1::ClusterProbed probe;
  return Pass(name, linked.get(), &probe);
}

absl::StatusOr<v1::ClusterState> ClusterBridge::Pass(const std::string& name, Cancellation& cancel,
                                                     v1::ClusterProbed* probe) {
  ASSIGN_OR_RETURN(const v1::ClusterState state, projector_->GetActive(name));
  KubeClientOptions client = options_.client;
  // One short attempt: the queue's backoff paces the retries of a failed probe.
  client.retry.max_attempts = 1;
  client.request_timeout = options_.probe_timeout;
  *probe = ProbeCluster(*connector_, state, client, &cancel);
  // A probe cut short by Stop or the caller says nothing about the cluster.
  if (cancel.cancelled()) {
    return absl::CancelledError(absl::StrCat("probe of cluster \"", name, "\" cancelled"));
  }
  {
    absl::MutexLock lock(&mu_);
    last_probe_[name] = clock_->Now();
  }
  return sink_->RecordProbe(name, *probe);
}

void ClusterBridge::Worker() {
  while (std::optional<std::string> name = queue_.Get()) {
    v1::ClusterProbed probe;
    const absl::StatusOr<v1::ClusterState> state = Pass(*name, stop_, &probe);
    bool failed = false;
    if (stop_.cancelled() || absl::IsNotFound(state.status())) {
      // Stopping, or the cluster is gone: nothing to retry.
    } else if (!state.ok()) {
      failed = true;
      common::Log(common::LogLevel::kWarning, "recording a cluster probe failed; retrying",
                  {{"cluster", *name}, {"error", state.status().ToString()}});
    } else if (probe.reason() == kReasonProbeFailed) {
      failed = true;
      common::Log(common::LogLevel::kWarning, "cluster probe failed; retrying with backoff",
                  {{"cluster", *name}, {"error", probe.message()}});
    }
    // Unsupported and ProbeSucceeded wait for a spec change or the period.
    if (failed) reconcile_errors_.Increment();
    queue_.Done(*name, failed);
  }
}

void ClusterBridge::PeriodLoop() {
  while (stop_.SleepFor(*clock_, options_.probe_period)) EnqueueAll();
}

void ClusterBridge::ChangeLoop() {
  while (true) {
    std::set<std::string> changed;
    {
      absl::MutexLock lock(&mu_);
      mu_.Await(absl::Condition(
          +[](ClusterBridge* b) { return b->stopping_ || !b->changed_.empty(); }, this));
      if (stopping_) return;
      changed.swap(changed_);
    }
    // The projector is read without mu_ held: its listener takes mu_ under its own lock.
    for (const std::string& name : changed) {
      const absl::StatusOr<v1::ClusterState> state = projector_->GetActive(name);
      if (!state.ok()) {
        absl::MutexLock lock(&mu_);
        known_spec_.erase(name);
        continue;
      }
      if (NoteSpec(*state)) queue_.Add(name);
    }
  }
}

void ClusterBridge::EnqueueAll() {
  for (const v1::ClusterState& state : projector_->List(/*include_deregistered=*/false, nullptr)) {
    NoteSpec(state);
    queue_.Add(state.name());
  }
}

bool ClusterBridge::NoteSpec(const v1::ClusterState& state) {
  const std::pair<int64_t, int64_t> spec{state.incarnation_version(), state.spec_version()};
  absl::MutexLock lock(&mu_);
  auto [it, inserted] = known_spec_.emplace(state.name(), spec);
  if (inserted) return true;
  if (it->second == spec) return false;
  it->second = spec;
  return true;
}

}  // namespace credledger::kubebridge
