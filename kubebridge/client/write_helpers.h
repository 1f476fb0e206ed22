// Write helpers of the kube bridge (docs/design.md, "Writes"):
//   - ApplyIfDrifted for objects whose fields credledger shares with other managers (the
//     ServiceAccount, Role and RoleBinding): GET, then a forced server-side apply of
//     credledger's fields only when the object is absent or those fields drifted. Fields
//     other managers own survive, and steady state makes no writes.
//   - CreateOnly for objects another party owns after creation (the TargetReport, whose
//     spec the agent owns): GET, then POST only when absent; an existing object counts as
//     success without a write.
//
// Thread-safety: as KubeClient.
#pragma once

#include <functional>
#include <string>

#include "absl/status/statusor.h"
#include "kubebridge/client/cancellation.h"
#include "kubebridge/client/kube_client.h"
#include "kubebridge/client/resource_ref.h"
#include "nlohmann/json.hpp"

namespace credledger::kubebridge {

// Outcome of a helper: the object as the server holds it after the call, whether this
// call wrote it, and whether that write created it rather than changed it.
struct WriteResult {
  nlohmann::json object;
  bool wrote = false;
  bool created = false;
};

// Returns true when `live` (the server's object) already carries every field of
// `configuration` with its value, so that no write is needed.
using MatchesFn =
    std::function<bool(const nlohmann::json& live, const nlohmann::json& configuration)>;

// Makes the object `ref` (name required, or taken from the configuration's metadata.name)
// carry `configuration`, the fields `field_manager` owns: reads it, and when it is absent
// or !matches(live, configuration), applies the configuration with force
// (KubeClient::Apply), which creates the object or changes only those fields. A Conflict
// on the apply reads again and tries again, up to 3 rounds.
// Returns the resulting object; wrote = true when an apply happened, created = true when
// it created the object.
// Errors: kInvalidArgument for a missing name or field manager, or a non-object; kAborted
// when conflicts persist; the client's errors otherwise.
absl::StatusOr<WriteResult> ApplyIfDrifted(KubeClient& client, const ResourceRef& ref,
                                           const nlohmann::json& configuration,
                                           const MatchesFn& matches,
                                           const std::string& field_manager,
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
