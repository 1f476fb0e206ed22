// RBAC objects for tests of access reviews: a Role that allows `get` on one Secret, and a
// RoleBinding of a Role to one User or Group (rbac.authorization.k8s.io/v1, as kubectl would
// send them). Create them in the Secret's namespace.
#pragma once

#include <string>

#include "nlohmann/json.hpp"

namespace credledger::testing {

// Role `role` with one rule: verb get on Secret `secret`.
inline nlohmann::json SecretReaderRole(const std::string& role, const std::string& secret) {
  return {{"apiVersion", "rbac.authorization.k8s.io/v1"},
          {"kind", "Role"},
          {"metadata", {{"name", role}}},
          {"rules",
           {{{"apiGroups", {""}},
             {"resources", {"secrets"}},
             {"verbs", {"get"}},
             {"resourceNames", {secret}}}}}};
}

// RoleBinding `name` of Role `role` to `subject`, a "User" or "Group" (`kind`).
inline nlohmann::json RoleBindingTo(const std::string& name, const std::string& role,
                                    const std::string& kind, const std::string& subject) {
  return {{"apiVersion", "rbac.authorization.k8s.io/v1"},
          {"kind", "RoleBinding"},
          {"metadata", {{"name", name}}},
          {"roleRef", {{"apiGroup", "rbac.authorization.k8s.io"}, {"kind", "Role"}, {"name", role}}},
          {"subjects",
           {{{"kind", kind}, {"apiGroup", "rbac.authorization.k8s.io"}, {"name", subject}}}}};
}

}  // namespace credledger::testing
