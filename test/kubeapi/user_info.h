// UserInfo: who made a request, as the authenticator established it (Kubernetes'
// user.Info: name, uid, groups, extra).
#pragma once

#include <map>
#include <string>
#include <vector>

#include "nlohmann/json.hpp"

namespace credledger::kubeapi {

// The group that makes a user a superuser (kube-apiserver's bootstrap policy binds it to
// cluster-admin); the admin token authenticates with it.
inline constexpr char kSystemMastersGroup[] = "system:masters";

struct UserInfo {
  std::string username;  // "kubernetes-admin", "system:serviceaccount:<ns>:<name>"
  std::string uid;       // the ServiceAccount's uid for service-account tokens
  std::vector<std::string> groups;
  std::map<std::string, std::vector<std::string>> extra;

  // The TokenReview/SubjectAccessReview form: {"username", "uid", "groups", "extra"}
  // (empty fields omitted, as Go's omitempty does).
  nlohmann::json ToJson() const;
};

inline nlohmann::json UserInfo::ToJson() const {
  nlohmann::json j = nlohmann::json::object();
  if (!username.empty()) j["username"] = username;
  if (!uid.empty()) j["uid"] = uid;
  if (!groups.empty()) j["groups"] = groups;
  if (!extra.empty()) j["extra"] = extra;
  return j;
}

}  // namespace credledger::kubeapi
