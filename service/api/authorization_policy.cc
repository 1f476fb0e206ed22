#include "service/api/authorization_policy.h"

#include <google/protobuf/descriptor.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <set>
#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/str_split.h"
#include "common/field_error.h"
#include "common/file_util.h"
#include "common/status_macros.h"
#include "common/yaml_text.h"
#include "credledger/v1/api.pb.h"
#include "service/decide/validation.h"

namespace credledger::service {
namespace {

constexpr char kEveryCaller[] = "*";
constexpr char kPackage[] = "credledger.v1";
constexpr char kIdentitySuffix[] = "{identity-suffix}";

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

// A target of an entry: a Target pattern, or a template holding "{identity-suffix}" (only in
// an entry whose name ends in '*', `prefix_name`) and no other '{' or '}'.
absl::Status CheckTarget(absl::string_view target, bool prefix_name, absl::string_view path) {
  if (IsTargetPattern(target)) return absl::OkStatus();
  const std::string rest = absl::StrReplaceAll(target, {{kIdentitySuffix, ""}});
  if (rest.size() == target.size() || absl::StrContains(rest, "{") ||
      absl::StrContains(rest, "}")) {
    return common::FieldError(
        path, absl::StrCat("\"", target,
                           "\" is not \"<namespace>/<name>\" or \"<namespace>/*\" (DNS-1123 "
                           "labels), nor a pattern with ",
                           kIdentitySuffix));
  }
  if (!prefix_name) {
    return common::FieldError(path, absl::StrCat(kIdentitySuffix,
                                                 " needs an entry whose name ends in '*' (the "
                                                 "suffix is what the '*' matched)"));
  }
  return absl::OkStatus();
}

absl::StatusOr<bool> Boolean(const YAML::Node& node, absl::string_view path) {
  if (!node.IsDefined() || node.IsNull()) return false;
  if (node.IsScalar() && (node.Scalar() == "true" || node.Scalar() == "false")) {
    return node.Scalar() == "true";
  }
  return common::FieldError(path, "must be true or false");
}

// The Kubernetes subject an identity stands for by itself: the identity as the user, with a
// ServiceAccount's groups when it names one.
AuthorizationPolicy::KubernetesSubject SubjectNamed(absl::string_view identity) {
  AuthorizationPolicy::KubernetesSubject subject{std::string(identity), {}};
  absl::string_view rest = identity;
  if (absl::ConsumePrefix(&rest, kServiceAccountUserPrefix)) {
    const size_t colon = rest.find(':');
    if (colon != absl::string_view::npos && colon > 0) {
      subject.groups = {"system:serviceaccounts",
                        absl::StrCat("system:serviceaccounts:", rest.substr(0, colon))};
    }
  }
  return subject;
}

}  // namespace

AuthorizationPolicy AuthorizationPolicy::AllowAll() {
  AuthorizationPolicy policy;
  policy.restrictive_ = false;
  return policy;
}

AuthorizationPolicy AuthorizationPolicy::DenyAll() {
  AuthorizationPolicy policy;
  policy.policy_given_ = false;
  return policy;
}

absl::StatusOr<AuthorizationPolicy> AuthorizationPolicy::Parse(absl::string_view yaml) {
  ASSIGN_OR_RETURN(YAML::Node root, common::LoadYaml(yaml, common::kMaxConfigFileBytes));
  AuthorizationPolicy policy;
  std::set<std::string> names;
  try {
    RETURN_IF_ERROR(CheckKeys(root, "policy", {"identities"}));
    const YAML::Node identities = root["identities"];
    if (!identities.IsDefined() || !identities.IsSequence()) {
      return common::FieldError("identities", "must be a list");
    }
    for (size_t i = 0; i < identities.size(); ++i) {
      const std::string path = absl::StrCat("identities[", i, "]");
      const YAML::Node node = identities[i];
      RETURN_IF_ERROR(
          CheckKeys(node, path, {"name", "rpcs", "targets", "allow_declared", "kubernetes"}));
      ASSIGN_OR_RETURN(std::string name, Scalar(node["name"], absl::StrCat(path, ".name")));
      const size_t star = name.find('*');
      if (star != std::string::npos && star + 1 != name.size()) {
        return common::FieldError(absl::StrCat(path, ".name"),
                                  absl::StrCat("\"", name, "\": '*' may only end a name"));
      }
      const bool prefix_name = star != std::string::npos;
      Entry entry;
      ASSIGN_OR_RETURN(entry.rpcs, ScalarList(node["rpcs"], absl::StrCat(path, ".rpcs")));
      for (size_t r = 0; r < entry.rpcs.size(); ++r) {
        RETURN_IF_ERROR(CheckRpc(entry.rpcs[r], absl::StrCat(path, ".rpcs[", r, "]")));
      }
      if (const YAML::Node targets = node["targets"]; targets.IsDefined()) {
        ASSIGN_OR_RETURN(entry.targets, ScalarList(targets, absl::StrCat(path, ".targets")));
        for (size_t t = 0; t < entry.targets->size(); ++t) {
          RETURN_IF_ERROR(CheckTarget((*entry.targets)[t], prefix_name,
                                      absl::StrCat(path, ".targets[", t, "]")));
        }
      }
      ASSIGN_OR_RETURN(entry.allow_declared,
                       Boolean(node["allow_declared"], absl::StrCat(path, ".allow_declared")));
      if (const YAML::Node k8s = node["kubernetes"]; k8s.IsDefined()) {
        const std::string k8s_path = absl::StrCat(path, ".kubernetes");
        RETURN_IF_ERROR(CheckKeys(k8s, k8s_path, {"user", "groups"}));
        ASSIGN_OR_RETURN(entry.subject.user, Scalar(k8s["user"], absl::StrCat(k8s_path, ".user")));
        ASSIGN_OR_RETURN(entry.subject.groups,
                         ScalarList(k8s["groups"], absl::StrCat(k8s_path, ".groups")));
      }
      if (!names.insert(name).second) {
        return common::FieldError(absl::StrCat(path, ".name"),
                                  absl::StrCat("\"", name, "\" is listed twice"));
      }
      if (prefix_name && name != kEveryCaller) {
        name.pop_back();
        policy.prefixes_.emplace_back(std::move(name), std::move(entry));
      } else {
        policy.entries_.emplace(std::move(name), std::move(entry));
      }
    }
  } catch (const YAML::Exception& e) {
    return absl::InvalidArgumentError(absl::StrCat("unexpected structure: ", e.what()));
  }
  std::sort(policy.prefixes_.begin(), policy.prefixes_.end(),
            [](const auto& a, const auto& b) { return a.first.size() > b.first.size(); });
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

const AuthorizationPolicy::Entry* AuthorizationPolicy::EntryFor(absl::string_view identity,
                                                                bool declared,
                                                                absl::string_view* suffix) const {
  *suffix = absl::string_view();
  if (auto it = entries_.find(identity); it != entries_.end() && it->first != kEveryCaller &&
                                         (!declared || it->second.allow_declared)) {
    return &it->second;
  }
  for (const auto& [prefix, entry] : prefixes_) {
    if (absl::StartsWith(identity, prefix) && (!declared || entry.allow_declared)) {
      *suffix = identity.substr(prefix.size());
      return &entry;
    }
  }
  if (auto it = entries_.find(kEveryCaller); it != entries_.end()) {
    *suffix = identity;
    return &it->second;
  }
  return nullptr;
}

absl::StatusOr<TargetScope> AuthorizationPolicy::Authorize(absl::string_view identity,
                                                           bool declared, absl::string_view service,
                                                           absl::string_view method) const {
  if (!restrictive_) return TargetScope::Unrestricted();
  if (!policy_given_) {
    return absl::PermissionDeniedError(absl::StrCat(
        "caller \"", identity, "\" may not call ", service, "/", method,
        ": the service runs without --authorization-policy, so only health checking and "
        "reflection answer; give it a policy file (or --insecure-allow-all on a trusted host)"));
  }
  absl::string_view suffix;
  if (const Entry* entry = EntryFor(identity, declared, &suffix)) {
    for (const std::string& rpc : entry->rpcs) {
      if (rpc == absl::StrCat(service, "/", method) || rpc == absl::StrCat(service, "/*")) {
        if (!entry->targets.has_value()) return TargetScope::Unrestricted();
        // A declared name supplies no suffix unless the entry allows declared names; nor does
        // an anonymous caller, or a suffix holding '*' (it would name every Target of a
        // namespace).
        const bool use_suffix = (!declared || entry->allow_declared) &&
                                identity != kAnonymousActor && !absl::StrContains(suffix, '*');
        std::vector<std::string> patterns;
        for (const std::string& target : *entry->targets) {
          if (!absl::StrContains(target, kIdentitySuffix)) {
            patterns.push_back(target);
          } else if (use_suffix) {
            patterns.push_back(absl::StrReplaceAll(target, {{kIdentitySuffix, suffix}}));
          }
        }
        return TargetScope::Of(std::move(patterns));
      }
    }
  }
  return absl::PermissionDeniedError(absl::StrCat("caller \"", identity, "\" may not call ",
                                                  service, "/", method, " (authorization policy)"));
}

std::optional<AuthorizationPolicy::KubernetesSubject> AuthorizationPolicy::SubjectOf(
    absl::string_view actor) const {
  absl::string_view identity = actor;
  const bool declared = absl::ConsumePrefix(&identity, kDeclaredActorPrefix);
  if (!restrictive_) return SubjectNamed(identity);
  absl::string_view suffix;
  const Entry* entry = policy_given_ ? EntryFor(identity, declared, &suffix) : nullptr;
  if (entry == nullptr) return std::nullopt;
  if (!entry->subject.user.empty()) return entry->subject;
  if (declared && !entry->allow_declared) return std::nullopt;
  return SubjectNamed(identity);
}

}  // namespace credledger::service
