#include "kubebridge/client/write_helpers.h"

#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "common/status_macros.h"
#include "kubebridge/client/json_util.h"

namespace credledger::kubebridge {
namespace {

constexpr int kApplyRounds = 3;

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

absl::StatusOr<WriteResult> ApplyIfDrifted(KubeClient& client, const ResourceRef& ref,
                                           const nlohmann::json& configuration,
                                           const MatchesFn& matches,
                                           const std::string& field_manager, Cancellation* cancel) {
  ASSIGN_OR_RETURN(ResourceRef named, NamedRef(ref, configuration, "apply"));
  absl::Status last_conflict;
  for (int round = 0; round < kApplyRounds; ++round) {
    absl::StatusOr<nlohmann::json> live = client.Get(named, cancel);
    if (live.ok() && matches(*live, configuration)) {
      return WriteResult{*std::move(live), false, false};
    }
    if (!live.ok() && !absl::IsNotFound(live.status())) return live.status();
    absl::StatusOr<AppliedObject> applied =
        client.Apply(named, configuration, {.field_manager = field_manager, .force = true}, cancel);
    if (applied.ok()) return WriteResult{std::move(applied->object), true, applied->created};
    if (!absl::IsAborted(applied.status())) return applied.status();
    last_conflict = applied.status();
  }
  return absl::AbortedError(absl::StrCat("apply ", named.DebugString(),
                                         ": still conflicting after ", kApplyRounds,
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
