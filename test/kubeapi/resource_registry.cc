#include "test/kubeapi/resource_registry.h"

#include <algorithm>
#include <cctype>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "test/kubeapi/json_util.h"

namespace credledger::kubeapi {
namespace {

ResourceInfo Builtin(std::string group, std::string version, std::string resource,
                     std::string singular, std::string kind, bool namespaced,
                     std::vector<std::string> short_names = {},
                     std::vector<std::string> subresources = {}) {
  ResourceInfo info;
  info.group = std::move(group);
  info.versions = {std::move(version)};
  info.resource = std::move(resource);
  info.singular = std::move(singular);
  info.kind = std::move(kind);
  info.namespaced = namespaced;
  info.short_names = std::move(short_names);
  info.subresources = std::move(subresources);
  return info;
}

ResourceInfo Custom(std::string group, std::string version, std::string resource,
                    std::string singular, std::string kind,
                    std::vector<std::string> short_names = {}) {
  ResourceInfo info = Builtin(std::move(group), std::move(version), std::move(resource),
                              std::move(singular), std::move(kind), true,
                              std::move(short_names), {"status"});
  info.custom = true;
  return info;
}

ResourceInfo CreateOnly(std::string group, std::string resource, std::string singular,
                        std::string kind, bool namespaced) {
  ResourceInfo info = Builtin(std::move(group), "v1", std::move(resource), std::move(singular),
                              std::move(kind), namespaced);
  info.create_only = true;
  return info;
}

std::vector<ResourceInfo> BuiltinTable() {
  const std::string rbac = "rbac.authorization.k8s.io";
  return {
      Builtin("", "v1", "namespaces", "namespace", "Namespace", false, {"ns"}, {"status"}),
      Builtin("", "v1", "secrets", "secret", "Secret", true),
      Builtin("", "v1", "serviceaccounts", "serviceaccount", "ServiceAccount", true, {"sa"},
              {"token"}),
      Builtin("", "v1", "configmaps", "configmap", "ConfigMap", true, {"cm"}),
      Builtin("", "v1", "events", "event", "Event", true, {"ev"}),
      Builtin("", "v1", "pods", "pod", "Pod", true, {"po"}, {"status"}),
      Builtin("", "v1", "nodes", "node", "Node", false, {"no"}, {"status"}),
      Builtin(rbac, "v1", "roles", "role", "Role", true),
      Builtin(rbac, "v1", "rolebindings", "rolebinding", "RoleBinding", true),
      Builtin(rbac, "v1", "clusterroles", "clusterrole", "ClusterRole", false),
      Builtin(rbac, "v1", "clusterrolebindings", "clusterrolebinding", "ClusterRoleBinding",
              false),
      Builtin("apiextensions.k8s.io", "v1", "customresourcedefinitions",
              "customresourcedefinition", "CustomResourceDefinition", false, {"crd", "crds"},
              {"status"}),
      Builtin("coordination.k8s.io", "v1", "leases", "lease", "Lease", true),
      Builtin("batch", "v1", "jobs", "job", "Job", true, {}, {"status"}),
      CreateOnly("authentication.k8s.io", "tokenreviews", "tokenreview", "TokenReview", false),
      CreateOnly("authorization.k8s.io", "subjectaccessreviews", "subjectaccessreview",
                 "SubjectAccessReview", false),
      CreateOnly("authorization.k8s.io", "selfsubjectaccessreviews", "selfsubjectaccessreview",
                 "SelfSubjectAccessReview", false),
      Custom("solar.opendefense.cloud", "v1alpha1", "targets", "target", "Target"),
      Custom("solar.opendefense.cloud", "v1alpha1", "targetreports", "targetreport",
             "TargetReport"),
      Custom("source.toolkit.fluxcd.io", "v1", "ocirepositories", "ocirepository",
             "OCIRepository", {"ocirepo"}),
      Custom("helm.toolkit.fluxcd.io", "v2", "helmreleases", "helmrelease", "HelmRelease",
             {"hr"}),
  };
}

// "widgets" -> "Widget": a guess for resources nobody described.
std::string KindFromPlural(const std::string& plural) {
  std::string kind = plural;
  if (absl::EndsWith(kind, "ies")) {
    kind = kind.substr(0, kind.size() - 3) + "y";
  } else if (absl::EndsWith(kind, "s")) {
    kind.pop_back();
  }
  if (!kind.empty()) kind[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(kind[0])));
  return kind;
}

std::vector<std::string> StringList(const nlohmann::json& j) {
  std::vector<std::string> out;
  if (!j.is_array()) return out;
  for (const auto& v : j) {
    if (v.is_string()) out.push_back(v.get<std::string>());
  }
  return out;
}

}  // namespace

std::string ResourceInfo::ApiVersion(const std::string& version) const {
  return group.empty() ? version : absl::StrCat(group, "/", version);
}

bool ResourceInfo::HasSubresource(const std::string& name) const {
  return std::find(subresources.begin(), subresources.end(), name) != subresources.end();
}

ResourceRegistry::ResourceRegistry() {
  absl::MutexLock lock(&mu_);
  for (ResourceInfo& info : BuiltinTable()) resources_[info.gr()] = info;
}

std::optional<ResourceInfo> ResourceRegistry::Find(const std::string& group,
                                                   const std::string& resource) const {
  absl::MutexLock lock(&mu_);
  auto it = resources_.find({group, resource});
  if (it == resources_.end()) return std::nullopt;
  return it->second;
}

std::optional<ResourceInfo> ResourceRegistry::FindKind(const std::string& group,
                                                       const std::string& version,
                                                       const std::string& kind) const {
  absl::MutexLock lock(&mu_);
  for (const auto& [gr, info] : resources_) {
    if (info.group == group && info.kind == kind &&
        std::find(info.versions.begin(), info.versions.end(), version) != info.versions.end()) {
      return info;
    }
  }
  return std::nullopt;
}

ResourceInfo ResourceRegistry::Resolve(const std::string& group, const std::string& version,
                                       const std::string& resource,
                                       bool namespaced_path) const {
  absl::MutexLock lock(&mu_);
  auto it = resources_.find({group, resource});
  if (it != resources_.end()) return it->second;
  ResourceInfo info;
  info.group = group;
  info.versions = {version};
  info.resource = resource;
  info.singular = resource;
  auto learned = learned_kinds_.find({group, resource});
  info.kind = learned != learned_kinds_.end() ? learned->second : KindFromPlural(resource);
  info.namespaced = namespaced_path;
  info.custom = !group.empty();
  info.discoverable = false;
  return info;
}

void ResourceRegistry::LearnKind(const std::string& group, const std::string& resource,
                                 const std::string& kind) {
  absl::MutexLock lock(&mu_);
  if (resources_.count({group, resource}) == 0) learned_kinds_[{group, resource}] = kind;
}

absl::Status ResourceRegistry::RegisterCrd(const nlohmann::json& crd) {
  const nlohmann::json& spec = Field(crd, "spec");
  const nlohmann::json& names = Field(spec, "names");
  ResourceInfo info;
  info.group = StringField(spec, "group");
  info.resource = StringField(names, "plural");
  info.singular = StringField(names, "singular");
  info.kind = StringField(names, "kind");
  info.short_names = StringList(Field(names, "shortNames"));
  std::string scope = StringField(spec, "scope");
  info.namespaced = scope == "Namespaced";
  info.custom = true;
  if (info.singular.empty()) info.singular = absl::AsciiStrToLower(info.kind);
  const nlohmann::json& versions = Field(spec, "versions");
  for (const nlohmann::json& v : versions.is_array() ? versions : nlohmann::json::array()) {
    const nlohmann::json& served = Field(v, "served");
    if (served.is_boolean() && !served.get<bool>()) continue;
    std::string name = StringField(v, "name");
    if (name.empty()) continue;
    // The storage version goes first: it is the preferred one here.
    const nlohmann::json& storage = Field(v, "storage");
    if (storage.is_boolean() && storage.get<bool>()) {
      info.versions.insert(info.versions.begin(), name);
    } else {
      info.versions.push_back(name);
    }
    if (Field(Field(v, "subresources"), "status").is_object() && !info.HasSubresource("status")) {
      info.subresources.push_back("status");
    }
  }
  if (info.group.empty() || info.resource.empty() || info.kind.empty() ||
      (scope != "Namespaced" && scope != "Cluster") || info.versions.empty()) {
    return absl::InvalidArgumentError(
        "crd: spec.group, spec.names.plural, spec.names.kind, spec.scope and a served version "
        "are required");
  }
  absl::MutexLock lock(&mu_);
  learned_kinds_.erase(info.gr());
  resources_[info.gr()] = info;
  return absl::OkStatus();
}

void ResourceRegistry::UnregisterCrd(const nlohmann::json& crd) {
  const nlohmann::json& spec = Field(crd, "spec");
  GroupResource gr{StringField(spec, "group"), StringField(Field(spec, "names"), "plural")};
  absl::MutexLock lock(&mu_);
  resources_.erase(gr);
}

std::vector<ResourceInfo> ResourceRegistry::Discoverable() const {
  absl::MutexLock lock(&mu_);
  std::vector<ResourceInfo> out;
  for (const auto& [gr, info] : resources_) {
    if (info.discoverable) out.push_back(info);
  }
  return out;
}

}  // namespace credledger::kubeapi
