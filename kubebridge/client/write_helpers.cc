#include "kubebridge/client/write_helpers.h"

#include <optional>
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

absl::StatusOr<WriteResult> ApplyIfDrifted(KubeClient& client, ObjectCache& cache,
                                           const ResourceRef& ref,
                                           const nlohmann::json& configuration,
                                           const std::string& field_manager, Cancellation* cancel) {
  ASSIGN_OR_RETURN(ResourceRef named, NamedRef(ref, configuration, "apply"));
  const std::optional<CachedObject> cached = cache.Get(named.namespace_name, named.name);
  if (cached.has_value() && cached->digest == cache.Digest(configuration)) return WriteResult{};
  absl::Status last_conflict;
  for (int round = 0; round < kApplyRounds; ++round) {
    absl::StatusOr<AppliedObject> applied =
        client.Apply(named, configuration, {.field_manager = field_manager, .force = true}, cancel);
    if (applied.ok()) {
      cache.Observe(applied->object);
      return WriteResult{true, applied->created};
    }
    if (!absl::IsAborted(applied.status())) return applied.status();
    last_conflict = applied.status();
  }
  return absl::AbortedError(absl::StrCat("apply ", named.DebugString(),
                                         ": still conflicting after ", kApplyRounds,
                                         " rounds: ", last_conflict.message()));
}

absl::StatusOr<WriteResult> CreateOnly(KubeClient& client, ObjectCache& cache,
                                       const ResourceRef& ref, const nlohmann::json& object,
                                       Cancellation* cancel) {
  ASSIGN_OR_RETURN(ResourceRef named, NamedRef(ref, object, "create-only"));
  if (cache.Get(named.namespace_name, named.name).has_value()) return WriteResult{};
  absl::StatusOr<nlohmann::json> created = client.Create(named, object, cancel);
  if (created.ok()) {
    cache.Observe(*created);
    return WriteResult{true, true};
  }
  if (absl::IsAlreadyExists(created.status())) return WriteResult{};
  return created.status();
}

}  // namespace credledger::kubebridge
