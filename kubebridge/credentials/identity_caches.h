// IdentityCaches: the watch-fed caches of the objects the credential reconciler keeps for
// every Target (docs/kubernetes.md, "Caches"): ServiceAccounts, Roles and RoleBindings that
// carry app.kubernetes.io/managed-by=credledger, kept as the digest of credledger's fields
// (IdentityDigest), and every TargetReport, kept for its presence alone. All namespaces.
// A change the watches bring (an object deleted, created by someone else, or with other
// values of credledger's fields) is passed on as the Target it belongs to.
//
// Thread-safety: as ObjectCache.
#pragma once

#include <functional>
#include <memory>
#include <string>

#include "absl/status/status.h"
#include "absl/time/time.h"
#include "kubebridge/client/kube_client.h"
#include "kubebridge/client/object_cache.h"
#include "kubebridge/client/watch.h"

namespace credledger::kubebridge {

class IdentityCaches {
 public:
  // Told of a change of Target <ns>/<target>'s objects, on a cache's thread; must not block.
  using TargetChangeFn = std::function<void(const std::string& ns, const std::string& target)>;

  // Starts the four caches over `client` (not owned; must outlive them) with `options`'
  // page size, watch timeout and backoff (its selectors are replaced).
  static std::unique_ptr<IdentityCaches> Start(KubeClient* client, TargetChangeFn on_change,
                                               ListWatchOptions options = {});

  // Blocks until every cache has its first list (true), or `timeout` passed or Stop was
  // called (false).
  bool WaitSynced(absl::Duration timeout = absl::InfiniteDuration()) const;
  // OK once every cache has its first list; otherwise the first unsynced cache's
  // ObjectCache::SyncStatus.
  absl::Status SyncStatus() const;
  // Stops the four caches and wakes WaitSynced. Idempotent.
  void Stop();

  ObjectCache& service_accounts() { return *service_accounts_; }
  ObjectCache& roles() { return *roles_; }
  ObjectCache& role_bindings() { return *role_bindings_; }
  ObjectCache& target_reports() { return *target_reports_; }

 private:
  IdentityCaches() = default;

  std::unique_ptr<ObjectCache> service_accounts_;
  std::unique_ptr<ObjectCache> roles_;
  std::unique_ptr<ObjectCache> role_bindings_;
  std::unique_ptr<ObjectCache> target_reports_;
};

}  // namespace credledger::kubebridge
