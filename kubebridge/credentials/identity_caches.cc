#include "kubebridge/credentials/identity_caches.h"

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "kubebridge/credentials/agent_objects.h"

namespace credledger::kubebridge {

std::unique_ptr<IdentityCaches> IdentityCaches::Start(KubeClient* client, TargetChangeFn on_change,
                                                      ListWatchOptions options) {
  std::unique_ptr<IdentityCaches> caches(new IdentityCaches());
  // ServiceAccounts, Roles and RoleBindings are named solar-agent-<target>.
  const std::string prefix = AgentIdentityName("");
  ObjectCache::ChangeFn identity_changed = [on_change, prefix](const std::string& ns,
                                                               const std::string& name) {
    if (absl::StartsWith(name, prefix)) on_change(ns, name.substr(prefix.size()));
  };
  ListWatchOptions managed = options;
  managed.label_selector = absl::StrCat(kManagedByLabel, "=", kManagedByValue);
  managed.field_selector.clear();
  caches->service_accounts_ = ObjectCache::Start(client, ServiceAccountResource(""), managed,
                                                 IdentityDigest, identity_changed);
  caches->roles_ =
      ObjectCache::Start(client, RoleResource(""), managed, IdentityDigest, identity_changed);
  caches->role_bindings_ = ObjectCache::Start(client, RoleBindingResource(""), managed,
                                              IdentityDigest, identity_changed);
  ListWatchOptions every = options;
  every.label_selector.clear();
  every.field_selector.clear();
  caches->target_reports_ = ObjectCache::Start(
      client, TargetReportResource(""), every, [](const nlohmann::json&) -> uint64_t { return 0; },
      on_change);
  return caches;
}

bool IdentityCaches::WaitSynced(absl::Duration timeout) const {
  const absl::Time deadline = absl::Now() + timeout;
  for (const auto* cache : {&service_accounts_, &roles_, &role_bindings_, &target_reports_}) {
    if (!(*cache)->WaitSynced(deadline - absl::Now())) return false;
  }
  return true;
}

absl::Status IdentityCaches::SyncStatus() const {
  for (const auto* cache : {&service_accounts_, &roles_, &role_bindings_, &target_reports_}) {
    absl::Status status = (*cache)->SyncStatus();
    if (!status.ok()) return status;
  }
  return absl::OkStatus();
}

void IdentityCaches::Stop() {
  for (auto* cache : {&service_accounts_, &roles_, &role_bindings_, &target_reports_}) {
    (*cache)->Stop();
  }
}

}  // namespace credledger::kubebridge
