#include "kubebridge/client/write_helpers.h"

#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "common/status_macros.h"
#include "kubebridge/client/json_util.h"

namespace credledger::kubebridge {
namespace {

constexpr int kCreateOrUpdateRounds = 3;

// `ref` with its name filled from `object` when missing.
absl::StatusOr<ResourceRef> NamedRef(const ResourceRef& ref, const nlohmann::json& object,
                                     absl::string_view helper) {
  if (!object.is_object()) {
    return absl::InvalidArgumentError(
        absl::StrCat(helper, " ", ref.DebugString(), ": the object is not a JSON object"));
  }
  ResourceRef named = ref;
  if (named.name.empty()) named.name = StringAt(object, {"metadata", "name"});
  if (named.name.empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat(helper, " ", ref.DebugString(), ": the object has no name"));
  }
  return named;
}

}  // namespace

absl::StatusOr<WriteResult> CreateOrUpdate(KubeClient& client, const ResourceRef& ref,
                                           const nlohmann::json& desired, const MatchesFn& matches,
                                           Cancellation* cancel) {
  ASSIGN_OR_RETURN(ResourceRef named, NamedRef(ref, desired, "create-or-update"));
  absl::Status last_conflict;
  for (int round = 0; round < kCreateOrUpdateRounds; ++round) {
    absl::StatusOr<nlohmann::json> live = client.Get(named, cancel);
    if (absl::IsNotFound(live.status())) {
      absl::StatusOr<nlohmann::json> created = client.Create(named, desired, cancel);
      if (created.ok()) return WriteResult{*std::move(created), true, true};
      if (!absl::IsAlreadyExists(created.status())) return created.status();
      last_conflict = created.status();
      continue;
    }
    if (!live.ok()) return live.status();
    if (matches(*live, desired)) return WriteResult{*std::move(live), false, false};
    nlohmann::json update = desired;
    if (!update["metadata"].is_object()) update["metadata"] = nlohmann::json::object();
    update["metadata"]["resourceVersion"] = StringAt(*live, {"metadata", "resourceVersion"});
    absl::StatusOr<nlohmann::json> updated = client.Update(named, update, cancel);
    if (updated.ok()) return WriteResult{*std::move(updated), true, false};
    if (!absl::IsAborted(updated.status()) && !absl::IsNotFound(updated.status())) {
      return updated.status();
    }
    last_conflict = updated.status();
  }
  return absl::AbortedError(absl::StrCat("create-or-update ", named.DebugString(),
                                         ": still conflicting after ", kCreateOrUpdateRounds,
                                         " rounds: ", last_conflict.message()));
}

absl::StatusOr<WriteResult> CreateOnly(KubeClient& client, const ResourceRef& ref,
                                       const nlohmann::json& object, Cancellation* cancel) {
  ASSIGN_OR_RETURN(ResourceRef named, NamedRef(ref, object, "create-only"));
  // Read first, so that a pass over existing objects makes no write at all.
  absl::StatusOr<nlohmann::json> existing = client.Get(named, cancel);
  if (existing.ok()) return WriteResult{*std::move(existing), false};
  if (!absl::IsNotFound(existing.status())) return existing.status();
  absl::StatusOr<nlohmann::json> created = client.Create(named, object, cancel);
  if (created.ok()) return WriteResult{*std::move(created), true, true};
  if (!absl::IsAlreadyExists(created.status())) return created.status();
  // Created by someone else between the read and the POST.
  existing = client.Get(named, cancel);
  if (absl::IsNotFound(existing.status())) {
    return absl::AbortedError(
        absl::StrCat("create-only ", named.DebugString(), ": existed at create but is gone now"));
  }
  if (!existing.ok()) return existing.status();
  return WriteResult{*std::move(existing), false};
}

}  // namespace credledger::kubebridge
