#include "kubebridge/mirrors/mirror_bridge.h"

#include <optional>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "common/log.h"
#include "common/status_macros.h"
#include "kubebridge/client/json_util.h"
#include "kubebridge/client/watch.h"
#include "kubebridge/credentials/agent_objects.h"
#include "kubebridge/mirrors/mirror_objects.h"
#include "kubebridge/model/connection_errors.h"
#include "projections/identity_state.h"

namespace credledger::kubebridge {
namespace {

std::string SourceKey(const v1::SourceSecretRef& ref) {
  return absl::StrCat(ref.namespace_(), "/", ref.name());
}

ResourceRef NamespaceCollection() {
  ResourceRef ref;
  ref.version = "v1";
  ref.resource = "namespaces";
  return ref;
}

}  // namespace

// Follows one source Secret (by name) and queues the identities that mirror it.
class MirrorBridge::SourceWatch final : public WatchHandler {
 public:
  SourceWatch(MirrorBridge* bridge, v1::SourceSecretRef source)
      : bridge_(bridge), source_(std::move(source)), link_(bridge->stop_, cancel_) {
    thread_ = std::thread([this] {
      ListWatchOptions watch;
      watch.field_selector = absl::StrCat("metadata.name=", source_.name());
      watch.backoff = bridge_->options_.watch_backoff;
      RunListWatch(*bridge_->client_, SecretResource(source_.namespace_()), watch, *this, &cancel_)
          .IgnoreError();
    });
  }
  ~SourceWatch() {
    cancel_.Cancel();
    thread_.join();
  }

  absl::Status OnSync(const std::vector<nlohmann::json>&, const std::string&) override {
    bridge_->EnqueueSource(SourceKey(source_));
    return absl::OkStatus();
  }
  absl::Status OnEvent(const WatchEvent& event) override {
    if (event.type != WatchEventType::kBookmark) bridge_->EnqueueSource(SourceKey(source_));
    return absl::OkStatus();
  }
  void OnError(const absl::Status& status) override {
    common::Log(common::LogLevel::kWarning, "source Secret watch failed; retrying",
                {{"secret", SourceKey(source_)}, {"error", status.ToString()}});
  }

 private:
  MirrorBridge* bridge_;
  const v1::SourceSecretRef source_;
  Cancellation cancel_;
  CancellationLink link_;
  std::thread thread_;
};

// Follows every mirror Secret and queues the identity of one that changed or disappeared,
// so that an edit or a deletion by someone else is repaired.
class MirrorBridge::MirrorWatch final : public WatchHandler {
 public:
  explicit MirrorWatch(MirrorBridge* bridge) : bridge_(bridge) {}

  absl::Status OnSync(const std::vector<nlohmann::json>&, const std::string&) override {
    // After a gap in the watch, anything may have happened to any mirror.
    bridge_->EnqueueAll();
    return absl::OkStatus();
  }
  absl::Status OnEvent(const WatchEvent& event) override {
    if (event.type == WatchEventType::kBookmark || event.type == WatchEventType::kAdded) {
      return absl::OkStatus();
    }
    const std::string identity =
        StringAt(event.object, {"metadata", "annotations", kIdentityAnnotation});
    if (identity.empty()) return absl::OkStatus();
    bridge_->mirror_changes_.Increment();
    if (event.type == WatchEventType::kDeleted) {
      bridge_->Enqueue(identity);
    } else if (bridge_->triggers_.MirrorModified(
                   identity, StringAt(event.object, {"metadata", "namespace"}),
                   StringAt(event.object, {"metadata", "resourceVersion"}))) {
      // Not the echo of one of the bridge's own updates.
      bridge_->queue_.Add(identity);
    }
    return absl::OkStatus();
  }
  void OnError(const absl::Status& status) override {
    common::Log(common::LogLevel::kWarning, "mirror Secret watch failed; retrying",
                {{"error", status.ToString()}});
  }

 private:
  MirrorBridge* bridge_;
};

MirrorBridge::MirrorBridge(KubeClient* client, MirrorOutcomeSink* sink,
                           projections::IdentityProjector* projector, common::Clock* clock,
                           MirrorBridgeOptions options)
    : client_(client),
      sink_(sink),
      projector_(projector),
      clock_(clock),
      options_(options),
      queue_(*clock, options.retry),
      damper_(*clock, options.recreation) {}

std::unique_ptr<MirrorBridge> MirrorBridge::Start(KubeClient* client, MirrorOutcomeSink* sink,
                                                  projections::IdentityProjector* projector,
                                                  const common::FingerprintKey* fingerprint_key,
                                                  common::Clock* clock,
                                                  MirrorBridgeOptions options) {
  auto bridge =
      std::unique_ptr<MirrorBridge>(new MirrorBridge(client, sink, projector, clock, options));
  MirrorBridge* b = bridge.get();
  b->namespaces_ = std::make_unique<NamespaceLabelCache>(
      [b](const std::string& ns) { b->EnqueueNamespace(ns); });
  b->reconciler_ =
      std::make_unique<MirrorReconciler>(*client, *sink, b->namespaces_.get(), *fingerprint_key,
                                         &b->damper_, options.writers_per_pass);
  // Changes are queued from now on; the initial EnqueueAll covers everything before.
  b->listener_id_ = projector->AddKeyListener([b](const std::string& stream) {
    absl::string_view name = stream;
    if (!absl::ConsumePrefix(&name, "identity/")) return;
    b->queue_.Add(std::string(name));
    b->MarkSourcesDirty();
  });
  b->EnqueueAll();
  b->threads_.emplace_back([b] {
    ListWatchOptions watch;
    watch.backoff = b->options_.watch_backoff;
    RunListWatch(*b->client_, NamespaceCollection(), watch, *b->namespaces_, &b->stop_)
        .IgnoreError();
  });
  b->mirror_watch_ = std::make_unique<MirrorWatch>(b);
  b->threads_.emplace_back([b] {
    ListWatchOptions watch;
    watch.label_selector = absl::StrCat(kMirroredLabel, "=true");
    watch.backoff = b->options_.watch_backoff;
    RunListWatch(*b->client_, SecretResource(""), watch, *b->mirror_watch_, &b->stop_)
        .IgnoreError();
  });
  b->threads_.emplace_back([b] { b->SourceWatchLoop(); });
  b->threads_.emplace_back([b] { b->ResyncLoop(); });
  for (int i = 0; i < std::max(1, options.workers); ++i) {
    b->threads_.emplace_back([b] { b->Worker(); });
  }
  return bridge;
}

MirrorBridge::~MirrorBridge() { Stop(); }

void MirrorBridge::Stop() {
  if (threads_.empty()) return;
  projector_->RemoveListener(listener_id_);
  stop_.Cancel();
  queue_.ShutDown();
  for (std::thread& t : threads_) t.join();
  threads_.clear();
  absl::MutexLock lock(&sources_mu_);
  source_watches_.clear();
}

std::set<std::string> MirrorBridge::WatchedSources() const {
  absl::MutexLock lock(&sources_mu_);
  std::set<std::string> out;
  for (const auto& [key, watch] : source_watches_) out.insert(key);
  return out;
}

void MirrorBridge::MarkSourcesDirty() {
  absl::MutexLock lock(&sources_mu_);
  sources_dirty_ = true;
}

// Starts a watch for every source Secret an active identity names and stops the watches of
// sources no identity names any more, whenever the identities changed.
void MirrorBridge::SourceWatchLoop() {
  while (!stop_.cancelled()) {
    {
      absl::MutexLock lock(&sources_mu_);
      // Wakes at least every 100 ms to notice Stop.
      sources_mu_.AwaitWithTimeout(absl::Condition(&sources_dirty_), absl::Milliseconds(100));
      if (!sources_dirty_) continue;
      sources_dirty_ = false;
    }
    SyncSourceWatches();
  }
}

void MirrorBridge::SyncSourceWatches() {
  std::map<std::string, v1::SourceSecretRef> wanted;
  projector_->VisitActive([&](const v1::IdentityState& identity) {
    wanted[SourceKey(identity.spec().secret_ref())] = identity.spec().secret_ref();
  });
  // Stopped watches join their threads after the lock is released.
  std::vector<std::unique_ptr<SourceWatch>> stopped;
  {
    absl::MutexLock lock(&sources_mu_);
    for (auto it = source_watches_.begin(); it != source_watches_.end();) {
      if (wanted.count(it->first) == 0) {
        stopped.push_back(std::move(it->second));
        it = source_watches_.erase(it);
      } else {
        ++it;
      }
    }
    for (const auto& [key, ref] : wanted) {
      if (source_watches_.count(key) == 0 && !stop_.cancelled()) {
        source_watches_[key] = std::make_unique<SourceWatch>(this, ref);
      }
    }
  }
}

void MirrorBridge::Enqueue(const std::string& identity) {
  triggers_.Outside(identity);
  queue_.Add(identity);
}

void MirrorBridge::EnqueueAll() {
  projector_->VisitActive([&](const v1::IdentityState& identity) { Enqueue(identity.name()); });
}

void MirrorBridge::EnqueueSource(const std::string& source) {
  projector_->VisitActive([&](const v1::IdentityState& identity) {
    if (SourceKey(identity.spec().secret_ref()) == source) Enqueue(identity.name());
  });
}

void MirrorBridge::EnqueueNamespace(const std::string& ns) {
  projector_->VisitActive([&](const v1::IdentityState& identity) {
    if (!identity.spec().allowed_namespaces().has_selector()) return;
    if (projections::FindIdentityNamespace(identity, ns) != nullptr) Enqueue(identity.name());
  });
}

void MirrorBridge::ClusterChanged(const std::string& cluster) {
  projector_->VisitActive([&](const v1::IdentityState& identity) {
    if (identity.spec().cluster() == cluster) Enqueue(identity.name());
  });
}

void MirrorBridge::ResyncLoop() {
  while (stop_.SleepFor(*clock_, options_.resync_period)) EnqueueAll();
}

absl::StatusOr<MirrorReconcileResult> MirrorBridge::Pass(const v1::IdentityState& state) {
  const std::string& cluster = state.spec().cluster();
  if (cluster.empty() || state.phase() != v1::IdentityState::PHASE_ACTIVE) {
    return reconciler_->Reconcile(state, &stop_);
  }
  absl::StatusOr<std::unique_ptr<KubeClient>> target =
      options_.cluster_clients
          ? options_.cluster_clients(cluster, &stop_)
          : absl::StatusOr<std::unique_ptr<KubeClient>>(absl::FailedPreconditionError(absl::StrCat(
                "cluster \"", cluster, "\": this service mirrors into no registered cluster")));
  if (target.ok()) return reconciler_->Reconcile(state, &stop_, target->get());
  if (stop_.cancelled()) return absl::CancelledError("mirror bridge stopped");
  const bool unsupported = IsUnsupported(target.status());
  RETURN_IF_ERROR(
      reconciler_->RecordClusterFailure(state,
                                        unsupported ? v1::MIRROR_FAILURE_KIND_CLUSTER_UNSUPPORTED
                                                    : v1::MIRROR_FAILURE_KIND_CLUSTER_UNREACHABLE,
                                        // The factory's errors name the cluster already.
                                        std::string(target.status().message())));
  // Unsupported waits for a change of the identity or the next resync; anything else is
  // retried with backoff.
  if (unsupported) return MirrorReconcileResult{};
  return target.status();
}

void MirrorBridge::Worker() {
  while (std::optional<std::string> name = queue_.Get()) {
    absl::StatusOr<v1::IdentityState> state = sink_->Load(*name);
    // Queued only by the echoes of its last pass's own writes and records: nothing to do.
    if (!triggers_.Begin(*name, state.ok() ? state->stream_version() : -1)) {
      queue_.Done(*name, /*failed=*/false);
      continue;
    }
    absl::StatusOr<MirrorReconcileResult> result =
        state.ok() ? Pass(*state) : absl::StatusOr<MirrorReconcileResult>(state.status());
    if (triggers_.End(*name, result.ok() ? &*result : nullptr)) queue_.Add(*name);
    const bool failed = !result.ok() && !stop_.cancelled();
    if (failed) {
      reconcile_errors_.Increment();
      common::Log(common::LogLevel::kWarning, "mirror reconcile failed; retrying with backoff",
                  {{"identity", *name}, {"error", result.status().ToString()}});
    }
    // A namespace left waiting (a conflict, a missing or colliding source) is no failure of
    // the pass and is not logged: its condition says why. It is retried with the same
    // backoff, since removing the cause is not always seen by a watch; a pass that leaves
    // none waiting resets the backoff.
    const bool waiting = result.ok() && result->retry;
    // A namespace held back is written when its hold ends.
    if (std::optional<absl::Time> release = damper_.NextRelease(*name)) {
      triggers_.Outside(*name);
      queue_.AddAt(*name, *release);
    }
    queue_.Done(*name, /*failed=*/failed || waiting);
  }
}

}  // namespace credledger::kubebridge
