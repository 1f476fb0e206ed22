#include "kubebridge/mirrors/namespace_labels.h"

#include <set>

#include "common/log.h"
#include "kubebridge/client/json_util.h"

namespace credledger::kubebridge {
namespace {

bool SameLabels(const std::vector<v1::Label>& a, const std::vector<v1::Label>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (a[i].key() != b[i].key() || a[i].value() != b[i].value()) return false;
  }
  return true;
}

}  // namespace

std::vector<v1::Label> NamespaceLabelsOf(const nlohmann::json& ns) {
  std::vector<v1::Label> out;
  const nlohmann::json* metadata = ns.is_object() && ns.contains("metadata") ? &ns["metadata"]
                                                                            : nullptr;
  if (metadata == nullptr || !metadata->is_object() || !metadata->contains("labels")) return out;
  const nlohmann::json& labels = (*metadata)["labels"];
  if (!labels.is_object()) return out;
  // nlohmann's object keeps keys ordered (std::map), so the result is ordered by key.
  for (const auto& [key, value] : labels.items()) {
    if (!value.is_string()) continue;
    v1::Label label;
    label.set_key(key);
    label.set_value(value.get<std::string>());
    out.push_back(std::move(label));
  }
  return out;
}

std::optional<NamespaceLabels> NamespaceLabelCache::Lookup(const std::string& ns) {
  absl::MutexLock lock(&mu_);
  if (!synced_) return std::nullopt;
  auto it = labels_.find(ns);
  if (it == labels_.end()) return NamespaceLabels{false, {}};
  return NamespaceLabels{true, it->second};
}

absl::Status NamespaceLabelCache::OnSync(const std::vector<nlohmann::json>& items,
                                         const std::string&) {
  std::map<std::string, std::vector<v1::Label>> fresh;
  for (const nlohmann::json& ns : items) {
    fresh[StringAt(ns, {"metadata", "name"})] = NamespaceLabelsOf(ns);
  }
  std::vector<std::string> changed;
  {
    absl::MutexLock lock(&mu_);
    std::set<std::string> names;
    for (const auto& [name, labels] : labels_) names.insert(name);
    for (const auto& [name, labels] : fresh) names.insert(name);
    for (const std::string& name : names) {
      auto before = labels_.find(name);
      auto after = fresh.find(name);
      const bool same = before != labels_.end() && after != fresh.end() &&
                        SameLabels(before->second, after->second);
      if (!same) changed.push_back(name);
    }
    labels_ = std::move(fresh);
    // The first list tells nobody anything new: nothing was known before it.
    if (!synced_) changed.clear();
    synced_ = true;
  }
  Notify(changed);
  return absl::OkStatus();
}

absl::Status NamespaceLabelCache::OnEvent(const WatchEvent& event) {
  if (event.type == WatchEventType::kBookmark) return absl::OkStatus();
  const std::string name = StringAt(event.object, {"metadata", "name"});
  bool changed = false;
  {
    absl::MutexLock lock(&mu_);
    auto it = labels_.find(name);
    if (event.type == WatchEventType::kDeleted) {
      changed = it != labels_.end();
      if (changed) labels_.erase(it);
    } else {
      std::vector<v1::Label> labels = NamespaceLabelsOf(event.object);
      changed = it == labels_.end() || !SameLabels(it->second, labels);
      labels_[name] = std::move(labels);
    }
  }
  if (changed) Notify({name});
  return absl::OkStatus();
}

void NamespaceLabelCache::OnError(const absl::Status& status) {
  common::Log(common::LogLevel::kWarning, "namespace watch failed; retrying",
              {{"error", status.ToString()}});
}

void NamespaceLabelCache::Notify(const std::vector<std::string>& changed) {
  for (const std::string& name : changed) on_change_(name);
}

}  // namespace credledger::kubebridge
