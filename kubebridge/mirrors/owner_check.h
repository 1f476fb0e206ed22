// OwnerCheck: whether the objects bound to an identity still exist on the cluster that holds
// its mirrors, checked by uid before a mirror is created or rewritten (docs/mirrors.md,
// "Bound objects that are gone" and "Kubernetes permissions"). A mirror must never carry an owner
// reference to an object that does not exist: Kubernetes' garbage collector deletes such a mirror.
//
// An owner {apiVersion, kind, name, uid} bound in namespace `ns` is resolved to a resource
// with the API server's discovery (GET /api/<version> or /apis/<group>/<version>, one request
// per group-version, kept for the checker's life: one pass), then read with a GET: in `ns`
// when the resource is namespaced, by name alone when it is cluster-scoped. It is gone when
// the GET answers 404, when the object found has another metadata.uid, or when the server
// serves no resource of that kind in that group-version (or not the group-version at all).
//
// Thread-safety: Check may be called from several threads at once (one pass's writers); a
// group-version is discovered once, the other callers waiting for it. One instance per pass.
#pragma once

#include <map>
#include <optional>
#include <string>

#include "absl/base/thread_annotations.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "credledger/v1/events.pb.h"
#include "credledger/v1/identity.pb.h"
#include "kubebridge/client/cancellation.h"
#include "kubebridge/client/kube_client.h"

namespace credledger::kubebridge {

class OwnerCheck {
 public:
  // Reads with `client` (not owned; must outlive the check); `cancel` may be null. With
  // `server_free`, error messages carry ServerFreeMessage (status_mapping.h) of the server's
  // answer instead of its words (a registered cluster's API server could echo anything).
  OwnerCheck(KubeClient& client, Cancellation* cancel, bool server_free);

  // How `owner` (uid required), bound in namespace `ns`, is gone; nullopt when it exists with
  // its uid.
  // Errors: a failed discovery or GET other than 404 (kPermissionDenied when the bridge may
  // not `get` that resource, kUnavailable, ...), with the client's code and a message naming
  // the owner, and for kPermissionDenied the missing right (`get` on <resource>.<group>).
  absl::StatusOr<std::optional<v1::BoundObjectAbsence>> Check(const std::string& ns,
                                                              const v1::OwnerReference& owner);

 private:
  // A resource of a served group-version: its plural name and scope.
  struct Served {
    std::string resource;
    bool namespaced = true;
  };
  // The resources of group-version `api_version` by kind; an empty map when the server does
  // not serve it.
  absl::StatusOr<const std::map<std::string, Served>*> Discover(const std::string& api_version)
      ABSL_LOCKS_EXCLUDED(mu_);
  // `status` re-worded for `owner` in `ns` (see Check's errors).
  absl::Status Explain(const absl::Status& status, const std::string& ns,
                       const v1::OwnerReference& owner, const std::string& right) const;

  KubeClient& client_;
  Cancellation* cancel_;
  const bool server_free_;
  absl::Mutex mu_;
  // Entries are never changed once added, so pointers to them are read without the lock.
  std::map<std::string, std::map<std::string, Served>> discovered_ ABSL_GUARDED_BY(mu_);
};

}  // namespace credledger::kubebridge
