#include "kubebridge/credentials/agent_objects.h"

#include "absl/hash/hash.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"

namespace credledger::kubebridge {
namespace {

constexpr char kSolarGroup[] = "solar.opendefense.cloud";

nlohmann::json Metadata(absl::string_view ns, absl::string_view name) {
  return {{"name", std::string(name)},
          {"namespace", std::string(ns)},
          {"labels", {{kManagedByLabel, kManagedByValue}}}};
}

ResourceRef Ref(std::string group, std::string version, std::string resource, absl::string_view ns,
                absl::string_view name) {
  return ResourceRef{std::move(group), std::move(version), std::move(resource), std::string(ns),
                     std::string(name)};
}

}  // namespace

std::string AgentIdentityName(absl::string_view target) {
  return absl::StrCat("solar-agent-", target);
}

std::string CredentialSecretName(absl::string_view target, int64_t suffix) {
  return absl::StrCat("solar-agent-", target, "-", suffix);
}

int64_t CredentialSecretSuffix(absl::string_view target, absl::string_view name) {
  const std::string prefix = absl::StrCat("solar-agent-", target, "-");
  if (!absl::StartsWith(name, prefix)) return -1;
  absl::string_view digits = name.substr(prefix.size());
  int64_t n = 0;
  if (digits.empty() || digits[0] == '0' || !absl::SimpleAtoi(digits, &n) || n < 1) return -1;
  for (char c : digits) {
    if (c < '0' || c > '9') return -1;
  }
  return n;
}

ResourceRef SecretResource(absl::string_view ns, absl::string_view name) {
  return Ref("", "v1", "secrets", ns, name);
}
ResourceRef ServiceAccountResource(absl::string_view ns, absl::string_view name) {
  return Ref("", "v1", "serviceaccounts", ns, name);
}
ResourceRef RoleResource(absl::string_view ns, absl::string_view name) {
  return Ref("rbac.authorization.k8s.io", "v1", "roles", ns, name);
}
ResourceRef RoleBindingResource(absl::string_view ns, absl::string_view name) {
  return Ref("rbac.authorization.k8s.io", "v1", "rolebindings", ns, name);
}
ResourceRef TargetReportResource(absl::string_view ns, absl::string_view name) {
  return Ref(kSolarGroup, "v1alpha1", "targetreports", ns, name);
}

nlohmann::json ServiceAccountObject(absl::string_view ns, absl::string_view target) {
  return {{"apiVersion", "v1"},
          {"kind", "ServiceAccount"},
          {"metadata", Metadata(ns, AgentIdentityName(target))}};
}

nlohmann::json RoleObject(absl::string_view ns, absl::string_view target) {
  const std::string name(target);
  return {{"apiVersion", "rbac.authorization.k8s.io/v1"},
          {"kind", "Role"},
          {"metadata", Metadata(ns, AgentIdentityName(target))},
          {"rules",
           {{{"apiGroups", {kSolarGroup}},
             {"resources", {"targets"}},
             {"verbs", {"get"}},
             {"resourceNames", {name}}},
            {{"apiGroups", {kSolarGroup}},
             {"resources", {"targetreports"}},
             {"verbs", {"get", "update"}},
             {"resourceNames", {name}}}}}};
}

nlohmann::json RoleBindingObject(absl::string_view ns, absl::string_view target) {
  const std::string identity = AgentIdentityName(target);
  return {{"apiVersion", "rbac.authorization.k8s.io/v1"},
          {"kind", "RoleBinding"},
          {"metadata", Metadata(ns, identity)},
          {"roleRef",
           {{"apiGroup", "rbac.authorization.k8s.io"}, {"kind", "Role"}, {"name", identity}}},
          {"subjects",
           {{{"kind", "ServiceAccount"}, {"name", identity}, {"namespace", std::string(ns)}}}}};
}

nlohmann::json TargetReportObject(absl::string_view ns, absl::string_view target) {
  nlohmann::json report = {{"apiVersion", absl::StrCat(kSolarGroup, "/v1alpha1")},
                           {"kind", "TargetReport"},
                           {"metadata", Metadata(ns, target)},
                           {"spec", nlohmann::json::object()}};
  return report;
}

nlohmann::json CredentialSecretObject(absl::string_view ns, absl::string_view target,
                                      absl::string_view target_uid, int64_t suffix,
                                      absl::string_view attempt_id,
                                      absl::string_view request_value) {
  nlohmann::json secret = {{"apiVersion", "v1"},
                           {"kind", "Secret"},
                           {"type", "Opaque"},
                           {"metadata",
                            {{"name", CredentialSecretName(target, suffix)},
                             {"namespace", std::string(ns)},
                             {"labels",
                              {{kCredentialLabel, std::string(target)},
                               {kCredentialTargetUidLabel, std::string(target_uid)},
                               {kManagedByLabel, kManagedByValue}}},
                             {"annotations", {{kAttemptAnnotation, std::string(attempt_id)}}}}}};
  if (!request_value.empty()) {
    secret["metadata"]["annotations"][kRotationRequestAnnotation] = std::string(request_value);
  }
  return secret;
}

uint64_t IdentityDigest(const nlohmann::json& object) {
  nlohmann::json owned = {
      {"label", nullptr}, {"rules", nullptr}, {"roleRef", nullptr}, {"subjects", nullptr}};
  if (!object.is_object()) return absl::HashOf(owned.dump());
  auto metadata = object.find("metadata");
  if (metadata != object.end() && metadata->is_object()) {
    auto labels = metadata->find("labels");
    if (labels != metadata->end() && labels->is_object()) {
      owned["label"] = labels->value(kManagedByLabel, nlohmann::json());
    }
  }
  for (const char* field : {"rules", "roleRef", "subjects"}) {
    owned[field] = object.value(field, nlohmann::json());
  }
  return absl::HashOf(owned.dump());
}

std::string FormatExpiresAt(absl::Time t) {
  return absl::FormatTime("%Y-%m-%dT%H:%M:%SZ", t, absl::UTCTimeZone());
}

bool ParseKubeTime(absl::string_view text, absl::Time* out) {
  std::string error;
  return absl::ParseTime(absl::RFC3339_full, text, out, &error);
}

}  // namespace credledger::kubebridge
