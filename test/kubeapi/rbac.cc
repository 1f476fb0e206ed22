#include "test/kubeapi/rbac.h"

#include <algorithm>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "test/kubeapi/group_resource.h"
#include "test/kubeapi/json_util.h"
#include "test/kubeapi/kube_status.h"

namespace credledger::kubeapi {
namespace {

bool Contains(const nlohmann::json& list, const std::string& value) {
  if (!list.is_array()) return false;
  return std::any_of(list.begin(), list.end(),
                     [&](const nlohmann::json& v) { return v.is_string() && v == value; });
}

bool ContainsOrStar(const nlohmann::json& list, const std::string& value) {
  return Contains(list, value) || Contains(list, "*");
}

bool ResourceMatches(const nlohmann::json& resources, const AuthorizationAttributes& a) {
  if (!resources.is_array()) return false;
  std::string combined =
      a.subresource.empty() ? a.resource : absl::StrCat(a.resource, "/", a.subresource);
  for (const nlohmann::json& r : resources) {
    if (!r.is_string()) continue;
    const std::string& s = r.get_ref<const std::string&>();
    if (s == "*" || s == combined) return true;
    if (!a.subresource.empty() && s == absl::StrCat("*/", a.subresource)) return true;
  }
  return false;
}

bool RuleAllows(const nlohmann::json& rule, const AuthorizationAttributes& a) {
  if (!rule.is_object() || !ContainsOrStar(Field(rule, "verbs"), a.verb)) {
    return false;
  }
  if (!a.resource_request) {
    const nlohmann::json& urls = Field(rule, "nonResourceURLs");
    if (!urls.is_array()) return false;
    for (const nlohmann::json& url : urls) {
      if (!url.is_string()) continue;
      const std::string& u = url.get_ref<const std::string&>();
      if (u == a.path) return true;
      if (absl::EndsWith(u, "*") && absl::StartsWith(a.path, u.substr(0, u.size() - 1))) {
        return true;
      }
    }
    return false;
  }
  if (!ContainsOrStar(Field(rule, "apiGroups"), a.group)) return false;
  if (!ResourceMatches(Field(rule, "resources"), a)) return false;
  const nlohmann::json& names = Field(rule, "resourceNames");
  if (!names.is_array() || names.empty()) return true;
  return !a.name.empty() && Contains(names, a.name);
}

bool SubjectMatches(const nlohmann::json& subject, const std::string& binding_namespace,
                    const UserInfo& user) {
  if (!subject.is_object()) return false;
  std::string kind = StringField(subject, "kind");
  std::string name = StringField(subject, "name");
  if (kind == "User") return name == user.username;
  if (kind == "Group") {
    return std::find(user.groups.begin(), user.groups.end(), name) != user.groups.end();
  }
  if (kind == "ServiceAccount") {
    std::string ns = StringField(subject, "namespace");
    if (ns.empty()) ns = binding_namespace;
    return user.username == absl::StrCat("system:serviceaccount:", ns, ":", name);
  }
  return false;
}

bool AnySubjectMatches(const nlohmann::json& binding, const std::string& binding_namespace,
                       const UserInfo& user) {
  const nlohmann::json& subjects = Field(binding, "subjects");
  if (!subjects.is_array()) return false;
  for (const nlohmann::json& s : subjects) {
    if (SubjectMatches(s, binding_namespace, user)) return true;
  }
  return false;
}

bool IsPublicPath(const std::string& path) {
  for (const char* prefix : {"/api", "/apis", "/version", "/healthz", "/livez", "/readyz",
                             "/openapi"}) {
    if (path == prefix || absl::StartsWith(path, absl::StrCat(prefix, "/"))) return true;
  }
  return false;
}

}  // namespace

bool RbacAuthorizer::RoleAllows(const std::string& role_kind, const std::string& role_name,
                                const std::string& binding_namespace,
                                const AuthorizationAttributes& attrs) const {
  absl::StatusOr<ObjectPtr> role =
      role_kind == "Role" ? store_->Get({kRbacGroup, "roles"}, binding_namespace, role_name)
      : role_kind == "ClusterRole" ? store_->Get({kRbacGroup, "clusterroles"}, "", role_name)
                                   : absl::StatusOr<ObjectPtr>(absl::NotFoundError("kind"));
  if (!role.ok()) return false;
  const nlohmann::json& rules = Field(**role, "rules");
  if (!rules.is_array()) return false;
  for (const nlohmann::json& rule : rules) {
    if (role_kind == "Role" && !attrs.resource_request) continue;
    if (RuleAllows(rule, attrs)) return true;
  }
  return false;
}

bool RbacAuthorizer::Allowed(const UserInfo& user, const AuthorizationAttributes& attrs) const {
  if (std::find(user.groups.begin(), user.groups.end(), kSystemMastersGroup) !=
      user.groups.end()) {
    return true;
  }
  if (!attrs.resource_request && attrs.verb == "get" && IsPublicPath(attrs.path)) return true;
  if (attrs.resource_request && attrs.group == "authorization.k8s.io" &&
      attrs.resource == "selfsubjectaccessreviews" && attrs.verb == "create") {
    return true;
  }
  for (const ObjectPtr& b : store_->List({kRbacGroup, "clusterrolebindings"}, "").items) {
    const nlohmann::json& ref = Field(*b, "roleRef");
    if (StringField(ref, "kind") != "ClusterRole" || !AnySubjectMatches(*b, "", user)) continue;
    if (RoleAllows("ClusterRole", StringField(ref, "name"), "", attrs)) return true;
  }
  if (!attrs.resource_request || attrs.namespace_name.empty()) return false;
  for (const ObjectPtr& b :
       store_->List({kRbacGroup, "rolebindings"}, attrs.namespace_name).items) {
    const nlohmann::json& ref = Field(*b, "roleRef");
    if (!AnySubjectMatches(*b, attrs.namespace_name, user)) continue;
    if (RoleAllows(StringField(ref, "kind"), StringField(ref, "name"), attrs.namespace_name,
                   attrs)) {
      return true;
    }
  }
  return false;
}

absl::Status RbacAuthorizer::ForbiddenFor(const UserInfo& user,
                                          const AuthorizationAttributes& a) {
  if (!a.resource_request) {
    return KubeStatusError(
        403, "Forbidden",
        absl::StrCat("forbidden: User \"", user.username, "\" cannot ", a.verb, " path \"",
                     a.path, "\""),
        nlohmann::json::object());
  }
  GroupResource gr{a.group, a.resource};
  std::string subject = a.name.empty() ? gr.String() : absl::StrCat(gr.String(), " \"", a.name, "\"");
  std::string resource =
      a.subresource.empty() ? a.resource : absl::StrCat(a.resource, "/", a.subresource);
  std::string scope = a.namespace_name.empty()
                          ? "at the cluster scope"
                          : absl::StrCat("in the namespace \"", a.namespace_name, "\"");
  return ForbiddenError(gr, a.name,
                        absl::StrCat(subject, " is forbidden: User \"", user.username,
                                     "\" cannot ", a.verb, " resource \"", resource,
                                     "\" in API group \"", a.group, "\" ", scope));
}

}  // namespace credledger::kubeapi
