#include "kubebridge/credentials/credential_bridge.h"

#include <set>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "common/log.h"
#include "kubebridge/client/json_util.h"
#include "kubebridge/client/watch.h"
#include "kubebridge/credentials/agent_objects.h"

namespace credledger::kubebridge {

std::string TargetKey(absl::string_view target_namespace, absl::string_view name) {
  return absl::StrCat(target_namespace, "/", name);
}

// Follows every credential Secret in the cluster and turns deletions into hints.
class CredentialBridge::SecretWatch final : public WatchHandler {
 public:
  explicit SecretWatch(CredentialBridge* bridge) : bridge_(bridge) {}

  absl::Status OnSync(const std::vector<nlohmann::json>& items, const std::string&) override {
    // A Secret the log holds but the list lacks was deleted while nobody watched.
    std::set<std::string> present;
    for (const nlohmann::json& s : items) present.insert(StringAt(s, {"metadata", "uid"}));
    const absl::Time now = bridge_->clock_->Now();
    for (const v1::TargetState& t : bridge_->projector_->List("", false, nullptr)) {
      for (const v1::CredentialRecord& c : t.credentials()) {
        if (present.count(c.secret().uid()) == 0) {
          bridge_->AddHint(TargetKey(t.namespace_(), t.name()), {c.secret(), now});
        }
      }
    }
    if (!bridge_->secrets_listed_.HasBeenNotified()) bridge_->secrets_listed_.Notify();
    return absl::OkStatus();
  }

  void OnError(const absl::Status& status) override {
    common::Log(common::LogLevel::kWarning, "credential Secret watch failed; retrying",
                {{"error", status.ToString()}});
  }

  absl::Status OnEvent(const WatchEvent& event) override {
    if (event.type != WatchEventType::kDeleted) return absl::OkStatus();
    const nlohmann::json& s = event.object;
    const std::string target = StringAt(s, {"metadata", "labels", kCredentialLabel});
    if (target.empty()) return absl::OkStatus();
    v1::SecretRef ref;
    ref.set_name(StringAt(s, {"metadata", "name"}));
    ref.set_uid(StringAt(s, {"metadata", "uid"}));
    absl::Time observed = bridge_->clock_->Now();
    absl::Time deletion;
    if (ParseKubeTime(StringAt(s, {"metadata", "deletionTimestamp"}), &deletion)) {
      observed = deletion;
    }
    bridge_->AddHint(TargetKey(StringAt(s, {"metadata", "namespace"}), target), {ref, observed});
    return absl::OkStatus();
  }

 private:
  CredentialBridge* bridge_;
};

CredentialBridge::CredentialBridge(KubeClient* client, OutcomeSink* sink,
                                   projections::CredentialProjector* projector,
                                   common::Clock* clock, CredentialBridgeOptions options)
    : client_(client),
      sink_(sink),
      projector_(projector),
      clock_(clock),
      options_(options),
      queue_(*clock, options.retry) {}

std::unique_ptr<CredentialBridge> CredentialBridge::Start(
    KubeClient* client, OutcomeSink* sink, projections::CredentialProjector* projector,
    common::Clock* clock, CredentialBridgeOptions options) {
  auto bridge = std::unique_ptr<CredentialBridge>(
      new CredentialBridge(client, sink, projector, clock, options));
  CredentialBridge* b = bridge.get();
  b->caches_ = IdentityCaches::Start(client, [b](const std::string& ns, const std::string& target) {
    b->queue_.Add(TargetKey(ns, target));
  });
  b->reconciler_ = std::make_unique<CredentialReconciler>(*client, *b->caches_, *sink, *clock,
                                                          options.token_ttl);
  // Changes are queued from now on; the initial resync covers everything before.
  absl::StatusOr<std::vector<projections::TargetChange>> missed = projector->Listen(
      projector->seq(), &b->listener_id_, [b](const projections::TargetChange& change) {
        b->queue_.Add(TargetKey(change.state.namespace_(), change.state.name()));
      });
  (void)missed;  // listening from the current seq: nothing can be missed
  b->EnqueueAll();
  b->watch_ = std::make_unique<SecretWatch>(b);
  b->threads_.emplace_back([b] {
    ListWatchOptions watch;
    watch.label_selector = kCredentialLabel;
    RunListWatch(*b->client_, SecretResource(""), watch, *b->watch_, &b->stop_).IgnoreError();
  });
  b->threads_.emplace_back([b] { b->ResyncLoop(); });
  for (int i = 0; i < std::max(1, options.workers); ++i) {
    b->threads_.emplace_back([b] { b->Worker(); });
  }
  return bridge;
}

CredentialBridge::~CredentialBridge() { Stop(); }

void CredentialBridge::Stop() {
  if (threads_.empty()) return;
  projector_->RemoveListener(listener_id_);
  stop_.Cancel();
  queue_.ShutDown();
  caches_->Stop();
  for (std::thread& t : threads_) t.join();
  threads_.clear();
}

void CredentialBridge::EnqueueAll() {
  for (const v1::TargetState& t : projector_->List("", /*include_finalized=*/false, nullptr)) {
    queue_.Add(TargetKey(t.namespace_(), t.name()));
  }
}

void CredentialBridge::ResyncLoop() {
  while (stop_.SleepFor(*clock_, options_.resync_period)) {
    EnqueueAll();
    absl::MutexLock lock(&resync_mu_);
    ++resyncs_;
  }
}

bool CredentialBridge::WaitSynced(absl::Duration timeout) const {
  const absl::Time deadline = absl::Now() + timeout;
  return caches_->WaitSynced(timeout) &&
         secrets_listed_.WaitForNotificationWithTimeout(deadline - absl::Now());
}

int64_t CredentialBridge::resyncs() const {
  absl::MutexLock lock(&resync_mu_);
  return resyncs_;
}

bool CredentialBridge::WaitResyncs(int64_t count, absl::Duration timeout) const {
  struct Args {
    const CredentialBridge* b;
    int64_t count;
  } args{this, count};
  absl::MutexLock lock(&resync_mu_);
  return resync_mu_.AwaitWithTimeout(
      absl::Condition(
          +[](Args* a) ABSL_NO_THREAD_SAFETY_ANALYSIS { return a->b->resyncs_ >= a->count; },
          &args),
      timeout);
}

void CredentialBridge::AddHint(const std::string& key, DeletedSecretHint hint) {
  {
    absl::MutexLock lock(&hints_mu_);
    hints_[key].push_back(std::move(hint));
  }
  queue_.Add(key);
}

std::vector<DeletedSecretHint> CredentialBridge::TakeHints(const std::string& key) {
  absl::MutexLock lock(&hints_mu_);
  auto it = hints_.find(key);
  if (it == hints_.end()) return {};
  std::vector<DeletedSecretHint> hints = std::move(it->second);
  hints_.erase(it);
  return hints;
}

void CredentialBridge::Worker() {
  if (!caches_->WaitSynced()) return;  // stopped first
  while (std::optional<std::string> key = queue_.Get()) {
    std::vector<std::string> parts = absl::StrSplit(*key, absl::MaxSplits('/', 1));
    std::vector<DeletedSecretHint> hints = TakeHints(*key);
    absl::StatusOr<v1::TargetState> state = sink_->Load(parts[0], parts[1]);
    absl::StatusOr<ReconcileResult> result =
        state.ok() ? reconciler_->Reconcile(*state, sink_->Service(), hints, &stop_)
                   : absl::StatusOr<ReconcileResult>(state.status());
    if (!result.ok()) {
      if (!stop_.cancelled()) {
        reconcile_errors_.Increment();
        common::Log(common::LogLevel::kWarning, "reconcile failed; retrying with backoff",
                    {{"target", *key}, {"error", result.status().ToString()}});
      }
      for (DeletedSecretHint& h : hints) {
        absl::MutexLock lock(&hints_mu_);
        hints_[*key].push_back(std::move(h));
      }
      queue_.Done(*key, /*failed=*/!stop_.cancelled());
      continue;
    }
    queue_.Done(*key, /*failed=*/false);
    if (result->requeue_at.has_value()) queue_.AddAt(*key, *result->requeue_at);
  }
}

}  // namespace credledger::kubebridge
