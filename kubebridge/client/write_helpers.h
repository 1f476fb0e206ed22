// Write helpers of the kube bridge (docs/design.md, "Writes"):
//   - CreateOrUpdate for objects credledger owns outright (ServiceAccount, Role,
//     RoleBinding): GET, then POST when absent, or PUT with the live resourceVersion only
//     when the live object differs from the desired one. Steady state makes no writes.
//   - CreateOnly for objects another party owns after creation (the TargetReport, whose
//     spec the agent owns): GET, then POST only when absent; an existing object counts as
//     success without a write.
//
// Thread-safety: as KubeClient.
#pragma once

#include <functional>

#include "absl/status/statusor.h"
#include "kubebridge/client/cancellation.h"
#include "kubebridge/client/kube_client.h"
#include "kubebridge/client/resource_ref.h"
#include "nlohmann/json.hpp"

namespace credledger::kubebridge {

// Outcome of a helper: the object as the server holds it after the call, whether this
// call wrote it, and whether that write created it (POST) rather than updated it (PUT).
struct WriteResult {
  nlohmann::json object;
  bool wrote = false;
  bool created = false;
};

// Returns true when `live` (the server's object) already matches `desired` in every field
// the caller owns, so that no write is needed.
using MatchesFn = std::function<bool(const nlohmann::json& live, const nlohmann::json& desired)>;

// Makes the object `ref` (name required, or taken from desired's metadata.name) equal to
// `desired`: creates it when absent; when present and !matches(live, desired), PUTs
// `desired` with metadata.resourceVersion set to the live one (desired replaces the whole
// object, so it must be complete). A concurrent change (AlreadyExists on the POST,
// Conflict on the PUT) re-reads and tries again, up to 3 rounds.
// Returns the resulting object and wrote = true when a POST or PUT happened.
// Errors: kInvalidArgument for a missing name or non-object; kAborted when conflicts
// persist; the client's errors otherwise.
absl::StatusOr<WriteResult> CreateOrUpdate(KubeClient& client, const ResourceRef& ref,
                                           const nlohmann::json& desired, const MatchesFn& matches,
                                           Cancellation* cancel = nullptr);

// Creates `object` in the collection of `ref` (name from ref.name or metadata.name) unless
// it exists: GET first, POST only on NotFound. Returns {created object, wrote = true};
// when it already exists (at the GET, or created by another party before the POST),
// {the existing object as read, wrote = false}.
// Errors: kAborted when it existed at the POST but is gone when read back; the client's
// errors otherwise.
absl::StatusOr<WriteResult> CreateOnly(KubeClient& client, const ResourceRef& ref,
                                       const nlohmann::json& object,
                                       Cancellation* cancel = nullptr);

}  // namespace credledger::kubebridge
