#include "kubebridge/reports/report_watcher.h"

#include <map>
#include <optional>
#include <set>
#include <utility>
#include <vector>

#include "absl/strings/strip.h"
#include "common/log.h"
#include "kubebridge/client/json_util.h"
#include "kubebridge/credentials/agent_objects.h"
#include "kubebridge/credentials/credential_bridge.h"
#include "kubebridge/reports/target_report_codec.h"

namespace credledger::kubebridge {

// Decodes each object revision once and submits the reports; runs on the watch thread.
class ReportWatcher::Handler final : public WatchHandler {
 public:
  explicit Handler(ReportWatcher* watcher) : watcher_(watcher) {}

  absl::Status OnSync(const std::vector<nlohmann::json>& items, const std::string&) override {
    std::set<std::string> present;
    for (const nlohmann::json& item : items) present.insert(Handle(item));
    // Forget objects deleted while nobody watched, so the map stays as large as the fleet.
    for (auto it = handled_.begin(); it != handled_.end();) {
      if (present.count(it->first) > 0) {
        ++it;
        continue;
      }
      watcher_->Forget(it->first);
      it = handled_.erase(it);
    }
    return absl::OkStatus();
  }

  absl::Status OnEvent(const WatchEvent& event) override {
    switch (event.type) {
      case WatchEventType::kAdded:
      case WatchEventType::kModified:
        Handle(event.object);
        break;
      case WatchEventType::kDeleted:
        handled_.erase(Key(event.object));
        watcher_->Forget(Key(event.object));
        break;
      case WatchEventType::kBookmark:
        break;
    }
    return absl::OkStatus();
  }

  void OnError(const absl::Status& status) override {
    common::Log(common::LogLevel::kWarning, "TargetReport watch failed; retrying",
                {{"error", status.ToString()}});
  }

 private:
  static std::string Key(const nlohmann::json& object) {
    return TargetKey(StringAt(object, {"metadata", "namespace"}),
                     StringAt(object, {"metadata", "name"}));
  }

  // Submits the report of `object` unless this revision was handled before. Returns its key.
  std::string Handle(const nlohmann::json& object) {
    std::string key = Key(object);
    const std::string version = StringAt(object, {"metadata", "resourceVersion"});
    auto [it, inserted] = handled_.try_emplace(key, version);
    if (!inserted && it->second == version) return key;
    it->second = version;
    Submit(object, key, version);
    return key;
  }

  void Submit(const nlohmann::json& object, const std::string& key, const std::string& version) {
    absl::StatusOr<std::optional<v1::TargetReportSpec>> report = DecodeTargetReport(object);
    if (!report.ok()) {
      common::Log(common::LogLevel::kWarning, "TargetReport skipped: undecodable",
                  {{"targetReport", key},
                   {"resourceVersion", version},
                   {"error", report.status().ToString()}});
    }
    if (!report.ok() || !report->has_value()) {  // undecodable, or pre-created: no report yet
      watcher_->Forget(key);                     // an older revision is no longer the newest report
      return;
    }
    watcher_->Submit(StringAt(object, {"metadata", "namespace"}),
                     StringAt(object, {"metadata", "name"}), **report, version);
  }

  ReportWatcher* watcher_;
  // Last resourceVersion handled per "<namespace>/<name>".
  std::map<std::string, std::string> handled_;
};

ReportWatcher::ReportWatcher(KubeClient* client, ReportSink* sink,
                             projections::CredentialProjector* targets, ListWatchOptions options)
    : client_(client),
      sink_(sink),
      targets_(targets),
      options_(std::move(options)),
      handler_(std::make_unique<Handler>(this)),
      retries_(client->clock(), BackoffPolicy()) {}

std::unique_ptr<ReportWatcher> ReportWatcher::Start(KubeClient* client, ReportSink* sink,
                                                    projections::CredentialProjector* targets,
                                                    ListWatchOptions options) {
  auto watcher =
      std::unique_ptr<ReportWatcher>(new ReportWatcher(client, sink, targets, std::move(options)));
  ReportWatcher* w = watcher.get();
  w->listener_id_ =
      targets->AddKeyListener([w](const std::string& stream) { w->TargetChanged(stream); });
  w->watch_thread_ = std::thread([w] {
    RunListWatch(*w->client_, TargetReportResource(""), w->options_, *w->handler_, &w->stop_)
        .IgnoreError();
  });
  w->retry_thread_ = std::thread([w] { w->Resubmit(); });
  return watcher;
}

ReportWatcher::~ReportWatcher() { Stop(); }

void ReportWatcher::Stop() {
  if (listener_id_ >= 0) {
    targets_->RemoveListener(listener_id_);
    listener_id_ = -1;
  }
  stop_.Cancel();
  retries_.ShutDown();
  if (watch_thread_.joinable()) watch_thread_.join();
  if (retry_thread_.joinable()) retry_thread_.join();
}

void ReportWatcher::Submit(const std::string& target_namespace, const std::string& name,
                           const v1::TargetReportSpec& report, const std::string& version) {
  const std::string key = TargetKey(target_namespace, name);
  absl::MutexLock submitting(&submit_mu_);
  const absl::Status submitted = sink_->SubmitReport(target_namespace, name, report, version);
  if (!absl::IsNotFound(submitted)) {
    Settle(key, version, submitted);
    return;
  }
  {
    absl::MutexLock lock(&mu_);
    waiting_[key] = Waiting{target_namespace, name, report, version};
  }
  common::Log(
      common::LogLevel::kInfo, "TargetReport waits for its Target to be registered",
      {{"targetReport", key}, {"resourceVersion", version}, {"error", submitted.ToString()}});
  // The Target may have been registered after the sink looked and before the report waited:
  // its change then came too early to find the report.
  const std::optional<v1::TargetState> target = targets_->Get(target_namespace, name);
  if (target.has_value() && target->phase() == v1::TargetState::PHASE_ACTIVE) retries_.Add(key);
}

void ReportWatcher::Settle(const std::string& key, const std::string& version,
                           const absl::Status& submitted) {
  Forget(key);
  if (submitted.ok()) return;
  common::Log(
      common::LogLevel::kWarning, "TargetReport rejected",
      {{"targetReport", key}, {"resourceVersion", version}, {"error", submitted.ToString()}});
}

void ReportWatcher::Forget(const std::string& key) {
  absl::MutexLock lock(&mu_);
  waiting_.erase(key);
}

void ReportWatcher::TargetChanged(const std::string& stream) {
  absl::string_view key = stream;
  if (!absl::ConsumePrefix(&key, "target/")) return;
  absl::MutexLock lock(&mu_);
  if (waiting_.count(std::string(key)) > 0) retries_.Add(std::string(key));
}

void ReportWatcher::Resubmit() {
  while (std::optional<std::string> key = retries_.Get()) {
    {
      absl::MutexLock submitting(&submit_mu_);
      std::optional<Waiting> waiting;
      {
        absl::MutexLock lock(&mu_);
        if (auto it = waiting_.find(*key); it != waiting_.end()) waiting = it->second;
      }
      if (waiting.has_value()) {
        const absl::Status submitted = sink_->SubmitReport(
            waiting->target_namespace, waiting->name, waiting->report, waiting->resource_version);
        if (submitted.ok()) {
          common::Log(common::LogLevel::kInfo,
                      "TargetReport applied now that its Target is registered",
                      {{"targetReport", *key}, {"resourceVersion", waiting->resource_version}});
        }
        if (!absl::IsNotFound(submitted)) Settle(*key, waiting->resource_version, submitted);
      }
    }
    retries_.Done(*key, /*failed=*/false);
  }
}

}  // namespace credledger::kubebridge
