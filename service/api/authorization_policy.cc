#include "service/api/authorization_policy.h"

#include <google/protobuf/descriptor.h>
#include <yaml-cpp/yaml.h>

#include <set>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "common/field_error.h"
#include "common/file_util.h"
#include "common/status_macros.h"
#include "common/yaml_text.h"
#include "credledger/v1/api.pb.h"

namespace credledger::service {
namespace {

constexpr char kEveryCaller[] = "*";
constexpr char kPackage[] = "credledger.v1";

absl::Status CheckKeys(const YAML::Node& node, absl::string_view path,
                       const std::set<std::string>& allowed) {
  if (!node.IsDefined() || !node.IsMap()) return common::FieldError(path, "must be a mapping");
  for (const auto& item : node) {
    const std::string key = item.first.as<std::string>();
    if (!allowed.contains(key)) {
      return common::FieldError(absl::StrCat(path, ".", key), "unknown key");
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<std::string> Scalar(const YAML::Node& node, absl::string_view path) {
  if (!node.IsDefined() || !node.IsScalar() || node.Scalar().empty()) {
    return common::FieldError(path, "must be a non-empty string");
  }
  return node.Scalar();
}

absl::StatusOr<std::vector<std::string>> ScalarList(const YAML::Node& node,
                                                    absl::string_view path) {
  std::vector<std::string> out;
  if (!node.IsDefined() || node.IsNull()) return out;
  if (!node.IsSequence()) return common::FieldError(path, "must be a list");
  for (size_t i = 0; i < node.size(); ++i) {
    ASSIGN_OR_RETURN(std::string value, Scalar(node[i], absl::StrCat(path, "[", i, "]")));
    out.push_back(std::move(value));
  }
  return out;
}

// "<Service>/<Method>" or "<Service>/*" naming a service and method of credledger.v1.
absl::Status CheckRpc(absl::string_view rpc, absl::string_view path) {
  std::vector<std::string> parts = absl::StrSplit(rpc, '/');
  const google::protobuf::ServiceDescriptor* service =
      parts.size() == 2 ? google::protobuf::DescriptorPool::generated_pool()->FindServiceByName(
                              absl::StrCat(kPackage, ".", parts[0]))
                        : nullptr;
  if (service == nullptr) {
    return common::FieldError(path,
                              absl::StrCat("\"", rpc,
                                           "\" is not \"<Service>/<Method>\" or \"<Service>/*\" "
                                           "with a service of ",
                                           kPackage));
  }
  if (parts[1] != "*" && service->FindMethodByName(parts[1]) == nullptr) {
    return common::FieldError(
        path, absl::StrCat("\"", rpc, "\": ", parts[0], " has no method ", parts[1]));
  }
  return absl::OkStatus();
}

}  // namespace

AuthorizationPolicy AuthorizationPolicy::AllowAll() {
  AuthorizationPolicy policy;
  policy.restrictive_ = false;
  return policy;
}

absl::StatusOr<AuthorizationPolicy> AuthorizationPolicy::Parse(absl::string_view yaml) {
  ASSIGN_OR_RETURN(YAML::Node root, common::LoadYaml(yaml, common::kMaxConfigFileBytes));
  AuthorizationPolicy policy;
  try {
    RETURN_IF_ERROR(CheckKeys(root, "policy", {"identities"}));
    const YAML::Node identities = root["identities"];
    if (!identities.IsDefined() || !identities.IsSequence()) {
      return common::FieldError("identities", "must be a list");
    }
    for (size_t i = 0; i < identities.size(); ++i) {
      const std::string path = absl::StrCat("identities[", i, "]");
      const YAML::Node node = identities[i];
      RETURN_IF_ERROR(CheckKeys(node, path, {"name", "rpcs", "kubernetes"}));
      ASSIGN_OR_RETURN(std::string name, Scalar(node["name"], absl::StrCat(path, ".name")));
      Entry entry;
      ASSIGN_OR_RETURN(entry.rpcs, ScalarList(node["rpcs"], absl::StrCat(path, ".rpcs")));
      for (size_t r = 0; r < entry.rpcs.size(); ++r) {
        RETURN_IF_ERROR(CheckRpc(entry.rpcs[r], absl::StrCat(path, ".rpcs[", r, "]")));
      }
      if (const YAML::Node k8s = node["kubernetes"]; k8s.IsDefined()) {
        const std::string k8s_path = absl::StrCat(path, ".kubernetes");
        RETURN_IF_ERROR(CheckKeys(k8s, k8s_path, {"user", "groups"}));
        ASSIGN_OR_RETURN(entry.subject.user,
                         Scalar(k8s["user"], absl::StrCat(k8s_path, ".user")));
        ASSIGN_OR_RETURN(entry.subject.groups,
                         ScalarList(k8s["groups"], absl::StrCat(k8s_path, ".groups")));
      }
      if (!policy.entries_.emplace(name, std::move(entry)).second) {
        return common::FieldError(absl::StrCat(path, ".name"),
                                  absl::StrCat("\"", name, "\" is listed twice"));
      }
    }
  } catch (const YAML::Exception& e) {
    return absl::InvalidArgumentError(absl::StrCat("unexpected structure: ", e.what()));
  }
  return policy;
}

absl::StatusOr<AuthorizationPolicy> AuthorizationPolicy::Load(const std::filesystem::path& path) {
  ASSIGN_OR_RETURN(std::string text, common::ReadSmallFile(path));
  absl::StatusOr<AuthorizationPolicy> policy = Parse(text);
  if (!policy.ok()) {
    return absl::Status(policy.status().code(),
                        absl::StrCat("\"", path.string(), "\": ", policy.status().message()));
  }
  return policy;
}

const AuthorizationPolicy::Entry* AuthorizationPolicy::EntryFor(
    absl::string_view identity) const {
  if (auto it = entries_.find(identity); it != entries_.end()) return &it->second;
  if (auto it = entries_.find(kEveryCaller); it != entries_.end()) return &it->second;
  return nullptr;
}

absl::Status AuthorizationPolicy::Authorize(absl::string_view identity,
                                            absl::string_view service,
                                            absl::string_view method) const {
  if (!restrictive_) return absl::OkStatus();
  if (const Entry* entry = EntryFor(identity)) {
    for (const std::string& rpc : entry->rpcs) {
      if (rpc == absl::StrCat(service, "/", method) || rpc == absl::StrCat(service, "/*")) {
        return absl::OkStatus();
      }
    }
  }
  return absl::PermissionDeniedError(absl::StrCat("caller \"", identity, "\" may not call ",
                                                  service, "/", method,
                                                  " (authorization policy)"));
}

AuthorizationPolicy::KubernetesSubject AuthorizationPolicy::SubjectOf(
    absl::string_view identity) const {
  const Entry* entry = EntryFor(identity);
  return entry == nullptr ? KubernetesSubject{} : entry->subject;
}

}  // namespace credledger::service
