#include "kubebridge/reports/report_watcher.h"

#include <map>
#include <optional>
#include <set>
#include <utility>
#include <vector>

#include "common/log.h"
#include "kubebridge/client/json_util.h"
#include "kubebridge/credentials/agent_objects.h"
#include "kubebridge/credentials/credential_bridge.h"
#include "kubebridge/reports/target_report_codec.h"

namespace credledger::kubebridge {

// Decodes each object revision once and submits the reports; runs on the watch thread.
class ReportWatcher::Handler final : public WatchHandler {
 public:
  explicit Handler(ReportSink* sink) : sink_(sink) {}

  absl::Status OnSync(const std::vector<nlohmann::json>& items, const std::string&) override {
    std::set<std::string> present;
    for (const nlohmann::json& item : items) present.insert(Handle(item));
    // Forget objects deleted while nobody watched, so the map stays as large as the fleet.
    for (auto it = handled_.begin(); it != handled_.end();) {
      it = present.count(it->first) > 0 ? std::next(it) : handled_.erase(it);
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
      return;
    }
    if (!report->has_value()) return;  // pre-created, no report yet
    absl::Status submitted =
        sink_->SubmitReport(StringAt(object, {"metadata", "namespace"}),
                            StringAt(object, {"metadata", "name"}), **report, version);
    if (!submitted.ok()) {
      common::Log(common::LogLevel::kWarning, "TargetReport rejected",
                  {{"targetReport", key},
                   {"resourceVersion", version},
                   {"error", submitted.ToString()}});
    }
  }

  ReportSink* sink_;
  // Last resourceVersion handled per "<namespace>/<name>".
  std::map<std::string, std::string> handled_;
};

ReportWatcher::ReportWatcher(KubeClient* client, ReportSink* sink, ListWatchOptions options)
    : client_(client), options_(std::move(options)), handler_(std::make_unique<Handler>(sink)) {}

std::unique_ptr<ReportWatcher> ReportWatcher::Start(KubeClient* client, ReportSink* sink,
                                                    ListWatchOptions options) {
  auto watcher =
      std::unique_ptr<ReportWatcher>(new ReportWatcher(client, sink, std::move(options)));
  ReportWatcher* w = watcher.get();
  w->thread_ = std::thread([w] {
    RunListWatch(*w->client_, TargetReportResource(""), w->options_, *w->handler_, &w->stop_)
        .IgnoreError();
  });
  return watcher;
}

ReportWatcher::~ReportWatcher() { Stop(); }

void ReportWatcher::Stop() {
  stop_.Cancel();
  if (thread_.joinable()) thread_.join();
}

}  // namespace credledger::kubebridge
