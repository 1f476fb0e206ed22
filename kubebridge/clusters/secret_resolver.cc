#include "kubebridge/clusters/secret_resolver.h"

#include <string>

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "common/status_macros.h"
#include "kubebridge/client/resource_ref.h"
#include "kubebridge/model/connection_errors.h"

namespace credledger::kubebridge {
namespace {

// `<kind> "<ns>/<name>"`, the object part of every message.
std::string ObjectLabel(absl::string_view kind, absl::string_view ns, absl::string_view name) {
  return absl::StrCat(kind, " \"", ns, "/", name, "\"");
}

absl::Status CheckReference(absl::string_view kind, absl::string_view ns, absl::string_view name,
                            absl::string_view key) {
  if (name.empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat(kind, " reference in namespace \"", ns, "\" has no name (key \"", key, "\")"));
  }
  if (ns.empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat(kind, " reference \"", name, "\" has no namespace (key \"", key, "\")"));
  }
  if (key.empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat(ObjectLabel(kind, ns, name), ": the reference has no key"));
  }
  return absl::OkStatus();
}

// GETs core/v1 `resource` ns/name; kNotFound names the object and the `key` wanted, other
// errors the object.
absl::StatusOr<nlohmann::json> GetObject(KubeClient& client, absl::string_view kind,
                                         absl::string_view resource, absl::string_view ns,
                                         absl::string_view name, absl::string_view key,
                                         Cancellation* cancel) {
  ResourceRef ref{.version = "v1",
                  .resource = std::string(resource),
                  .namespace_name = std::string(ns),
                  .name = std::string(name)};
  absl::StatusOr<nlohmann::json> object = client.Get(ref, cancel);
  if (object.status().code() == absl::StatusCode::kNotFound) {
    return absl::NotFoundError(
        absl::StrCat(ObjectLabel(kind, ns, name), " not found (key \"", key, "\")"));
  }
  if (!object.ok()) return Annotate(object.status(), ObjectLabel(kind, ns, name));
  return object;
}

// The string at object[field][key]; nullptr when the field or key is absent.
const std::string* FindValue(const nlohmann::json& object, const char* field,
                             absl::string_view key) {
  auto map = object.find(field);
  if (map == object.end() || !map->is_object()) return nullptr;
  auto value = map->find(std::string(key));
  if (value == map->end() || !value->is_string()) return nullptr;
  return value->get_ptr<const std::string*>();
}

absl::StatusOr<std::string> DecodeBase64(const std::string& encoded, absl::string_view kind,
                                         absl::string_view ns, absl::string_view name,
                                         absl::string_view key) {
  std::string decoded;
  if (!absl::Base64Unescape(encoded, &decoded)) {
    return absl::DataLossError(
        absl::StrCat(ObjectLabel(kind, ns, name), " key \"", key, "\" is not valid base64"));
  }
  return decoded;
}

absl::Status MissingKey(absl::string_view kind, absl::string_view ns, absl::string_view name,
                        absl::string_view key) {
  return absl::NotFoundError(
      absl::StrCat(ObjectLabel(kind, ns, name), " has no key \"", key, "\""));
}

}  // namespace

absl::StatusOr<std::string> SecretResolver::ResolveSecretKey(absl::string_view ns,
                                                             absl::string_view name,
                                                             absl::string_view key,
                                                             Cancellation* cancel) {
  RETURN_IF_ERROR(CheckReference("Secret", ns, name, key));
  ASSIGN_OR_RETURN(nlohmann::json secret,
                   GetObject(home_, "Secret", "secrets", ns, name, key, cancel));
  const std::string* value = FindValue(secret, "data", key);
  if (value == nullptr) return MissingKey("Secret", ns, name, key);
  return DecodeBase64(*value, "Secret", ns, name, key);
}

absl::StatusOr<std::string> SecretResolver::ResolveConfigMapKey(absl::string_view ns,
                                                                absl::string_view name,
                                                                absl::string_view key,
                                                                Cancellation* cancel) {
  RETURN_IF_ERROR(CheckReference("ConfigMap", ns, name, key));
  ASSIGN_OR_RETURN(nlohmann::json config_map,
                   GetObject(home_, "ConfigMap", "configmaps", ns, name, key, cancel));
  if (const std::string* text = FindValue(config_map, "data", key)) return *text;
  const std::string* binary = FindValue(config_map, "binaryData", key);
  if (binary == nullptr) return MissingKey("ConfigMap", ns, name, key);
  return DecodeBase64(*binary, "ConfigMap", ns, name, key);
}

absl::StatusOr<std::string> SecretResolver::Resolve(absl::string_view ns,
                                                    const v1::SecretKeyRef& ref,
                                                    absl::string_view default_key,
                                                    Cancellation* cancel) {
  return ResolveSecretKey(ns, ref.name(), ref.key().empty() ? default_key : ref.key(), cancel);
}

absl::StatusOr<std::string> SecretResolver::Resolve(absl::string_view ns,
                                                    const v1::ObjectKeyRef& ref,
                                                    absl::string_view default_key,
                                                    Cancellation* cancel) {
  absl::string_view key = ref.key().empty() ? default_key : ref.key();
  if (ref.kind() == "Secret") return ResolveSecretKey(ns, ref.name(), key, cancel);
  if (ref.kind() == "ConfigMap") return ResolveConfigMapKey(ns, ref.name(), key, cancel);
  return absl::InvalidArgumentError(absl::StrCat("reference \"", ref.name(), "\" in namespace \"",
                                                 ns, "\" has kind \"", ref.kind(),
                                                 "\"; it must be \"Secret\" or \"ConfigMap\""));
}

}  // namespace credledger::kubebridge
