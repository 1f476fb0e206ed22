// GroupResource: an API group and a plural resource name, the identity of a kind of object
// in the test API server (versions share storage) and in Kubernetes error messages.
#pragma once

#include <string>
#include <tuple>

namespace credledger::kubeapi {

// API groups whose objects the server checks with rules of its own (object_rules.h, rbac.h).
inline constexpr char kRbacGroup[] = "rbac.authorization.k8s.io";
inline constexpr char kCrdGroup[] = "apiextensions.k8s.io";

struct GroupResource {
  std::string group;     // "" for the core group
  std::string resource;  // plural, lowercase: "secrets", "targets"

  // Kubernetes' qualified form used in messages: "secrets" for the core group,
  // "targets.solar.opendefense.cloud" otherwise.
  std::string String() const { return group.empty() ? resource : resource + "." + group; }

  friend bool operator<(const GroupResource& a, const GroupResource& b) {
    return std::tie(a.group, a.resource) < std::tie(b.group, b.resource);
  }
  friend bool operator==(const GroupResource& a, const GroupResource& b) {
    return a.group == b.group && a.resource == b.resource;
  }
};

}  // namespace credledger::kubeapi
