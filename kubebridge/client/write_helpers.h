// Write helpers of the kube bridge (docs/design.md, "Writes"; docs/kubernetes.md, "Caches"):
//   - ApplyIfDrifted for objects whose fields credledger shares with other managers (the
//     ServiceAccount, Role and RoleBinding): a forced server-side apply of credledger's
//     fields only when the watch-fed cache lacks the object or holds it with other values
//     of those fields. Fields other managers own survive, and steady state makes no call.
//   - CreateOnly for objects another party owns after creation (the TargetReport, whose
//     spec the agent owns): POST only when the cache lacks the object; one that exists
//     after all counts as success without a write.
// Both read the cache, never the API server, and record their writes in it
// (ObjectCache::Observe), so the next pass does not write again.
//
// Thread-safety: as KubeClient and ObjectCache.
#pragma once

#include <string>

#include "absl/status/statusor.h"
#include "kubebridge/client/cancellation.h"
#include "kubebridge/client/kube_client.h"
#include "kubebridge/client/object_cache.h"
#include "kubebridge/client/resource_ref.h"
#include "nlohmann/json.hpp"

namespace credledger::kubebridge {

// Outcome of a helper: whether this call wrote the object, and whether that write created
// it rather than changed it.
struct WriteResult {
  bool wrote = false;
  bool created = false;
};

// Makes the object `ref` (name required, or taken from the configuration's metadata.name)
// carry `configuration`, the fields `field_manager` owns: when `cache` (which follows the
// collection of `ref`) lacks it or holds a digest other than cache.Digest(configuration),
// applies the configuration with force (KubeClient::Apply), which creates the object or
// changes only those fields. A Conflict on the apply tries again, up to 3 rounds.
// Returns wrote = true when an apply happened, created = true when it created the object.
// REQUIRES: cache.WaitSynced() returned true.
// Errors: kInvalidArgument for a missing name or field manager, or a non-object; kAborted
// when conflicts persist; the client's errors otherwise.
absl::StatusOr<WriteResult> ApplyIfDrifted(KubeClient& client, ObjectCache& cache,
                                           const ResourceRef& ref,
                                           const nlohmann::json& configuration,
                                           const std::string& field_manager,
                                           Cancellation* cancel = nullptr);

// Creates `object` in the collection of `ref` (name from ref.name or metadata.name) unless
// `cache` (which follows that collection) holds it. Returns {wrote = true, created = true}
// after a POST; {false, false} when the cache holds it or the server answered AlreadyExists
// (another party created it, or the watch has not delivered it yet).
// REQUIRES: cache.WaitSynced() returned true.
// Errors: kInvalidArgument for a missing name or a non-object; the client's errors otherwise.
absl::StatusOr<WriteResult> CreateOnly(KubeClient& client, ObjectCache& cache,
                                       const ResourceRef& ref, const nlohmann::json& object,
                                       Cancellation* cancel = nullptr);

}  // namespace credledger::kubebridge
