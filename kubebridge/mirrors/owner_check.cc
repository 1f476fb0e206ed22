#include "kubebridge/mirrors/owner_check.h"

#include <tuple>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "common/status_macros.h"
#include "kubebridge/client/json_util.h"
#include "kubebridge/client/status_mapping.h"

namespace credledger::kubebridge {
namespace {

// {group, version} of an apiVersion ("v1" -> {"", "v1"}, "batch/v1" -> {"batch", "v1"}).
std::pair<std::string, std::string> SplitApiVersion(const std::string& api_version) {
  std::vector<std::string> parts = absl::StrSplit(api_version, absl::MaxSplits('/', 1));
  if (parts.size() == 1) return {"", parts[0]};
  return {parts[0], parts[1]};
}

// The discovery document of a group-version: /api/v1 for the core group, else
// /apis/<group>/<version>.
std::string DiscoveryPath(const std::string& group, const std::string& version) {
  if (group.empty()) return absl::StrCat("/api/", QueryEscape(version));
  return absl::StrCat("/apis/", QueryEscape(group), "/", QueryEscape(version));
}

}  // namespace

OwnerCheck::OwnerCheck(KubeClient& client, Cancellation* cancel, bool server_free)
    : client_(client), cancel_(cancel), server_free_(server_free) {}

absl::Status OwnerCheck::Explain(const absl::Status& status, const std::string& ns,
                                 const v1::OwnerReference& owner, const std::string& right) const {
  std::string message =
      absl::StrCat("bound object ", owner.kind(), " \"", owner.name(), "\" (", owner.api_version(),
                   ", uid ", owner.uid(), ") in namespace ", ns, " could not be read");
  if (absl::IsPermissionDenied(status) && !right.empty()) {
    absl::StrAppend(&message, ": credledger needs `get` on ", right);
  }
  absl::StrAppend(&message, ": ",
                  server_free_ ? ServerFreeMessage(status) : std::string(status.message()));
  return absl::Status(status.code(), message);
}

absl::StatusOr<const std::map<std::string, OwnerCheck::Served>*> OwnerCheck::Discover(
    const std::string& api_version) {
  absl::MutexLock lock(&mu_);
  auto cached = discovered_.find(api_version);
  if (cached != discovered_.end()) return &cached->second;
  const auto [group, version] = SplitApiVersion(api_version);
  const std::string path = DiscoveryPath(group, version);
  absl::StatusOr<std::string> body = client_.RawGet(path, cancel_);
  std::map<std::string, Served> by_kind;
  if (body.ok()) {
    ASSIGN_OR_RETURN(nlohmann::json list, ParseJson(*body, absl::StrCat("GET ", path)));
    const nlohmann::json resources = list.is_object()
                                         ? list.value("resources", nlohmann::json::array())
                                         : nlohmann::json::array();
    for (const nlohmann::json& r : resources.is_array() ? resources : nlohmann::json::array()) {
      const std::string name = StringAt(r, {"name"});
      const std::string kind = StringAt(r, {"kind"});
      // Subresources ("jobs/status") share their parent's kind.
      if (name.empty() || kind.empty() || name.find('/') != std::string::npos) continue;
      const auto namespaced = r.find("namespaced");
      by_kind.emplace(kind, Served{name, namespaced == r.end() || !namespaced->is_boolean() ||
                                             namespaced->get<bool>()});
    }
  } else if (!absl::IsNotFound(body.status())) {
    return body.status();
  }
  return &discovered_.emplace(api_version, std::move(by_kind)).first->second;
}

absl::StatusOr<std::optional<v1::BoundObjectAbsence>> OwnerCheck::Check(
    const std::string& ns, const v1::OwnerReference& owner) {
  absl::StatusOr<const std::map<std::string, Served>*> served = Discover(owner.api_version());
  if (!served.ok()) return Explain(served.status(), ns, owner, "");
  auto it = (*served)->find(owner.kind());
  if (it == (*served)->end()) return v1::BOUND_OBJECT_ABSENCE_KIND_NOT_SERVED;
  ResourceRef ref;
  std::tie(ref.group, ref.version) = SplitApiVersion(owner.api_version());
  ref.resource = it->second.resource;
  ref.namespace_name = it->second.namespaced ? ns : "";
  ref.name = owner.name();
  absl::StatusOr<nlohmann::json> live = client_.Get(ref, cancel_);
  if (absl::IsNotFound(live.status())) return v1::BOUND_OBJECT_ABSENCE_NOT_FOUND;
  if (!live.ok()) {
    return Explain(live.status(), ns, owner,
                   ref.group.empty() ? ref.resource : absl::StrCat(ref.resource, ".", ref.group));
  }
  if (StringAt(*live, {"metadata", "uid"}) != owner.uid()) {
    return v1::BOUND_OBJECT_ABSENCE_OTHER_UID;
  }
  return std::nullopt;
}

}  // namespace credledger::kubebridge
