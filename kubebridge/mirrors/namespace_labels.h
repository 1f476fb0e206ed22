// NamespaceLabelCache: the labels of every namespace, kept current by a list-and-watch of
// namespaces (docs/design.md, "Watches"), so that the mirror bridge can evaluate
// allowedNamespaces selectors without a request per namespace and notice a relabelled
// namespace at once (docs/mirrors.md, "Revocation").
//
// It is the WatchHandler of that list-and-watch and the NamespaceLookup of the mirror
// reconciler. Before the first list it knows nothing (Lookup answers nullopt, and the
// reconciler reads the namespace directly). Every namespace whose labels change (appears,
// is relabelled, is deleted, or differs after a re-list) is reported to `on_change`.
//
// Thread-safety: Lookup may be called from any thread; the WatchHandler methods run on the
// watch's thread. `on_change` runs on that thread, outside the cache's lock.
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "kubebridge/client/watch.h"
#include "kubebridge/mirrors/mirror_reconciler.h"

namespace credledger::kubebridge {

class NamespaceLabelCache final : public WatchHandler, public NamespaceLookup {
 public:
  // `on_change` receives the name of every namespace whose labels changed.
  explicit NamespaceLabelCache(std::function<void(const std::string&)> on_change)
      : on_change_(std::move(on_change)) {}

  // {found, labels ordered by key} once the first list arrived; nullopt before. A namespace
  // absent from the cache is reported as not found.
  std::optional<NamespaceLabels> Lookup(const std::string& ns) override;

  absl::Status OnSync(const std::vector<nlohmann::json>& items,
                      const std::string& resource_version) override;
  absl::Status OnEvent(const WatchEvent& event) override;
  void OnError(const absl::Status& status) override;

 private:
  void Notify(const std::vector<std::string>& changed);

  const std::function<void(const std::string&)> on_change_;
  absl::Mutex mu_;
  bool synced_ ABSL_GUARDED_BY(mu_) = false;
  std::map<std::string, std::vector<v1::Label>> labels_ ABSL_GUARDED_BY(mu_);
};

// The labels of a Namespace object, ordered by key.
std::vector<v1::Label> NamespaceLabelsOf(const nlohmann::json& ns);

}  // namespace credledger::kubebridge
