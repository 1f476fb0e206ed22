// RbacAuthorizer: evaluates Kubernetes RBAC (rbac.authorization.k8s.io/v1) for a request,
// reading Roles, RoleBindings, ClusterRoles and ClusterRoleBindings from the ObjectStore
// on every call (so a binding takes effect on the next request, as in a real cluster).
//
// Rules: a request is allowed when some binding whose subjects include the user (User by
// name, Group by any of the user's groups, ServiceAccount by namespace and name) refers to
// a role with a rule matching it. RoleBindings apply only inside their namespace (and may
// refer to a Role of that namespace or to a ClusterRole); ClusterRoleBindings apply
// everywhere. A resource rule matches when verbs contain the verb or "*", apiGroups contain
// the group or "*", resources contain "*", the resource, "<resource>/<subresource>" or
// "*/<subresource>", and resourceNames are empty or contain the request's name (so
// resourceNames never grant create or an unfiltered list). Non-resource rules (ClusterRoles
// only) match nonResourceURLs exactly or by a trailing "*".
// Built-in policy standing in for kube-apiserver's bootstrap roles: members of
// system:masters may do anything, and every authenticated user may GET the discovery and
// health paths (system:discovery, system:public-info-viewer) and create
// selfsubjectaccessreviews (system:basic-user). Aggregated ClusterRoles are not evaluated.
//
// Thread-safety: const methods, safe to call concurrently.
#pragma once

#include <string>

#include "absl/status/status.h"
#include "test/kubeapi/object_store.h"
#include "test/kubeapi/user_info.h"

namespace credledger::kubeapi {

// What a request asks to do (Kubernetes' authorizer.Attributes).
struct AuthorizationAttributes {
  std::string verb;  // get list watch create update patch delete deletecollection; for
                     // non-resource requests the lowercase HTTP method
  bool resource_request = true;
  std::string group;
  std::string resource;
  std::string subresource;
  std::string name;            // "" for collections and create
  std::string namespace_name;  // "" for cluster scope
  std::string path;            // non-resource requests only
};

class RbacAuthorizer {
 public:
  // REQUIRES: `store` outlives the authorizer.
  explicit RbacAuthorizer(const ObjectStore* store) : store_(store) {}

  // True when RBAC (plus the built-in policy above) allows `user` to do `attrs`.
  bool Allowed(const UserInfo& user, const AuthorizationAttributes& attrs) const;

  // The 403 Status kube-apiserver returns for a denied request, e.g.
  // `secrets "x" is forbidden: User "u" cannot get resource "secrets" in API group "" in
  // the namespace "ns"`, or `... at the cluster scope`, or for paths
  // `forbidden: User "u" cannot get path "/foo"`.
  static absl::Status ForbiddenFor(const UserInfo& user, const AuthorizationAttributes& attrs);

 private:
  bool RoleAllows(const std::string& role_kind, const std::string& role_name,
                  const std::string& binding_namespace,
                  const AuthorizationAttributes& attrs) const;

  const ObjectStore* store_;
};

}  // namespace credledger::kubeapi
