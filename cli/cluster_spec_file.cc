// The spec file of `cluster register -f` (cluster_spec.h): the YAML document, with the
// Kubernetes field names, read into a ClusterSpec.
#include <string>

#include "absl/strings/str_cat.h"
#include "cli/cluster_spec.h"
#include "cli/framework/spec_file.h"
#include "cli/framework/yaml_fields.h"
#include "common/status_macros.h"

namespace credledger::cli {
namespace {

// Sets `*out` from entry `key` of mapping `parent` when it is present.
absl::Status OptionalClusterString(const YAML::Node& parent, const char* key,
                                   absl::string_view path, std::string* out) {
  const YAML::Node node = parent[key];
  if (!YamlPresent(node)) return absl::OkStatus();
  ASSIGN_OR_RETURN(*out, YamlString(node, YamlChild(path, key)));
  return absl::OkStatus();
}

absl::Status ParseSecretKeyRef(const YAML::Node& node, absl::string_view path,
                               v1::SecretKeyRef& ref) {
  RETURN_IF_ERROR(YamlCheckKeys(node, path, {"name", "key"}));
  RETURN_IF_ERROR(OptionalClusterString(node, "name", path, ref.mutable_name()));
  return OptionalClusterString(node, "key", path, ref.mutable_key());
}

absl::Status ParseObjectKeyRef(const YAML::Node& node, absl::string_view path,
                               v1::ObjectKeyRef& ref) {
  RETURN_IF_ERROR(YamlCheckKeys(node, path, {"kind", "name", "key"}));
  RETURN_IF_ERROR(OptionalClusterString(node, "kind", path, ref.mutable_kind()));
  RETURN_IF_ERROR(OptionalClusterString(node, "name", path, ref.mutable_name()));
  return OptionalClusterString(node, "key", path, ref.mutable_key());
}

// A block holding one SecretKeyRef under `secretRef` (kubeconfig, token).
absl::Status ParseSecretRefBlock(const YAML::Node& node, absl::string_view path,
                                 v1::SecretKeyRef& ref) {
  RETURN_IF_ERROR(YamlCheckKeys(node, path, {"secretRef"}));
  if (!YamlPresent(node["secretRef"])) return absl::OkStatus();
  return ParseSecretKeyRef(node["secretRef"], YamlChild(path, "secretRef"), ref);
}

absl::Status ParseExecPlugin(const YAML::Node& node, absl::string_view path,
                             v1::ExecPluginAuth& exec) {
  RETURN_IF_ERROR(YamlCheckKeys(node, path, {"url", "caRef", "tokenRef"}));
  RETURN_IF_ERROR(OptionalClusterString(node, "url", path, exec.mutable_url()));
  if (YamlPresent(node["caRef"])) {
    RETURN_IF_ERROR(
        ParseObjectKeyRef(node["caRef"], YamlChild(path, "caRef"), *exec.mutable_ca_ref()));
  }
  if (!YamlPresent(node["tokenRef"])) return absl::OkStatus();
  return ParseSecretKeyRef(node["tokenRef"], YamlChild(path, "tokenRef"),
                           *exec.mutable_token_ref());
}

absl::Status ParseClusterAuth(const YAML::Node& node, absl::string_view path,
                              v1::ClusterAuth& auth) {
  RETURN_IF_ERROR(
      YamlCheckKeys(node, path, {"type", "kubeconfig", "token", "clientCert", "execPlugin"}));
  RETURN_IF_ERROR(OptionalClusterString(node, "type", path, auth.mutable_type()));
  if (YamlPresent(node["kubeconfig"])) {
    RETURN_IF_ERROR(ParseSecretRefBlock(node["kubeconfig"], YamlChild(path, "kubeconfig"),
                                        *auth.mutable_kubeconfig()->mutable_secret_ref()));
  }
  if (YamlPresent(node["token"])) {
    RETURN_IF_ERROR(ParseSecretRefBlock(node["token"], YamlChild(path, "token"),
                                        *auth.mutable_token()->mutable_secret_ref()));
  }
  if (YamlPresent(node["clientCert"])) {
    const std::string cert_path = YamlChild(path, "clientCert");
    RETURN_IF_ERROR(YamlCheckKeys(node["clientCert"], cert_path, {"secretName"}));
    RETURN_IF_ERROR(OptionalClusterString(node["clientCert"], "secretName", cert_path,
                                          auth.mutable_client_cert()->mutable_secret_name()));
  }
  if (!YamlPresent(node["execPlugin"])) return absl::OkStatus();
  return ParseExecPlugin(node["execPlugin"], YamlChild(path, "execPlugin"),
                         *auth.mutable_exec_plugin());
}

absl::Status ParseAgentless(const YAML::Node& node, v1::AgentlessConnection& agentless) {
  constexpr char kPath[] = "agentless";
  RETURN_IF_ERROR(YamlCheckKeys(node, kPath, {"server", "caRef", "auth"}));
  RETURN_IF_ERROR(OptionalClusterString(node, "server", kPath, agentless.mutable_server()));
  if (YamlPresent(node["caRef"])) {
    RETURN_IF_ERROR(
        ParseObjectKeyRef(node["caRef"], YamlChild(kPath, "caRef"), *agentless.mutable_ca_ref()));
  }
  if (!YamlPresent(node["auth"])) return absl::OkStatus();
  return ParseClusterAuth(node["auth"], YamlChild(kPath, "auth"), *agentless.mutable_auth());
}

}  // namespace

absl::StatusOr<v1::ClusterConnectionMode> ParseConnectionMode(absl::string_view field,
                                                              absl::string_view mode) {
  if (mode == kInCluster) return v1::CLUSTER_CONNECTION_MODE_IN_CLUSTER;
  if (mode == kAgentless) return v1::CLUSTER_CONNECTION_MODE_AGENTLESS;
  if (mode.empty()) return YamlInvalid(field, "required: inCluster or agentless");
  return YamlInvalid(field, absl::StrCat("\"", mode, "\" is neither inCluster nor agentless"));
}

absl::StatusOr<v1::ClusterSpec> ParseClusterSpecNode(const YAML::Node& root) {
  RETURN_IF_ERROR(YamlCheckKeys(root, "", {"connectionMode", "namespace", "agentless"}));
  v1::ClusterSpec spec;
  std::string mode;
  RETURN_IF_ERROR(OptionalClusterString(root, "connectionMode", "", &mode));
  ASSIGN_OR_RETURN(const v1::ClusterConnectionMode parsed,
                   ParseConnectionMode("connectionMode", mode));
  spec.set_connection_mode(parsed);
  RETURN_IF_ERROR(OptionalClusterString(root, "namespace", "", spec.mutable_namespace_()));
  if (YamlPresent(root["agentless"])) {
    RETURN_IF_ERROR(ParseAgentless(root["agentless"], *spec.mutable_agentless()));
  }
  return spec;
}

absl::StatusOr<v1::ClusterSpec> ParseClusterSpecYaml(absl::string_view yaml) {
  return ParseSpecYaml(yaml, &ParseClusterSpecNode);
}

}  // namespace credledger::cli
