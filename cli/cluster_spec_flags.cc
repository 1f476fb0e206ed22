// The spec flags of `cluster register` (cluster_spec.h): references split from their flag
// values, the block flags of each auth type, and the ClusterSpec they describe.
#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "cli/cluster_spec.h"
#include "common/status_macros.h"
#include "kubebridge/model/cluster_auth_names.h"
#include "service/decide/cluster_validation.h"

namespace credledger::cli {
namespace {

// `text` split at '/' into `min` to `max` non-empty parts.
absl::StatusOr<std::vector<std::string>> FlagParts(absl::string_view flag, absl::string_view text,
                                                   size_t min, size_t max,
                                                   absl::string_view shape) {
  std::vector<std::string> parts = absl::StrSplit(text, '/');
  if (parts.size() < min || parts.size() > max ||
      std::any_of(parts.begin(), parts.end(), [](const std::string& p) { return p.empty(); })) {
    return absl::InvalidArgumentError(
        absl::StrCat(flag, ": expected ", shape, ", got \"", text, "\""));
  }
  return parts;
}

absl::StatusOr<v1::ObjectKeyRef> ObjectKeyRefFlag(absl::string_view flag, absl::string_view text) {
  ASSIGN_OR_RETURN(std::vector<std::string> parts,
                   FlagParts(flag, text, 2, 3, "<kind>/<name>[/<key>]"));
  v1::ObjectKeyRef ref;
  ref.set_kind(parts[0]);
  ref.set_name(parts[1]);
  if (parts.size() == 3) ref.set_key(parts[2]);
  return ref;
}

absl::StatusOr<v1::SecretKeyRef> SecretKeyRefFlag(absl::string_view flag, absl::string_view text) {
  ASSIGN_OR_RETURN(std::vector<std::string> parts, FlagParts(flag, text, 1, 2, "<name>[/<key>]"));
  v1::SecretKeyRef ref;
  ref.set_name(parts[0]);
  if (parts.size() == 2) ref.set_key(parts[1]);
  return ref;
}

// A flag that fills the block of one auth type; `required` when that type needs it.
struct AuthBlockFlag {
  const char* flag;
  const char* type;
  bool required;
  std::string ClusterSpecFlags::*value;
};
constexpr AuthBlockFlag kAuthBlockFlags[] = {
    {"--kubeconfig-secret", kubebridge::kAuthKubeconfig, true,
     &ClusterSpecFlags::kubeconfig_secret},
    {"--token-secret", kubebridge::kAuthToken, true, &ClusterSpecFlags::token_secret},
    {"--client-cert-secret", kubebridge::kAuthClientCert, true,
     &ClusterSpecFlags::client_cert_secret},
    {"--exec-url", kubebridge::kAuthExecPlugin, true, &ClusterSpecFlags::exec_url},
    {"--exec-ca-ref", kubebridge::kAuthExecPlugin, false, &ClusterSpecFlags::exec_ca_ref},
    {"--exec-token-secret", kubebridge::kAuthExecPlugin, false,
     &ClusterSpecFlags::exec_token_secret},
};

// Checks that the block flags given are those of --auth-type: none of another type (so none
// at all for a type credledger does not know), and the one a known type requires.
absl::Status CheckAuthBlockFlags(const ClusterSpecFlags& flags) {
  if (flags.auth_type.empty()) {
    return absl::InvalidArgumentError(
        "--auth-type: required with --connection-mode agentless (kubeconfig, token, "
        "clientCert or execPlugin)");
  }
  // Before the block flags: `--auth-type Token --token-secret t` is a misspelt type, not a
  // token flag given with another type.
  RETURN_IF_ERROR(service::ValidateAuthTypeCase("--auth-type", flags.auth_type));
  for (const AuthBlockFlag& block : kAuthBlockFlags) {
    if (!(flags.*block.value).empty() && flags.auth_type != block.type) {
      return absl::InvalidArgumentError(
          absl::StrCat(block.flag, ": only with --auth-type ", block.type));
    }
  }
  for (const AuthBlockFlag& block : kAuthBlockFlags) {
    if (block.required && flags.auth_type == block.type && (flags.*block.value).empty()) {
      return absl::InvalidArgumentError(
          absl::StrCat(block.flag, ": required with --auth-type ", block.type));
    }
  }
  return absl::OkStatus();
}

absl::Status AuthFromFlags(const ClusterSpecFlags& flags, v1::ClusterAuth& auth) {
  RETURN_IF_ERROR(CheckAuthBlockFlags(flags));
  auth.set_type(flags.auth_type);
  if (!flags.kubeconfig_secret.empty()) {
    ASSIGN_OR_RETURN(*auth.mutable_kubeconfig()->mutable_secret_ref(),
                     SecretKeyRefFlag("--kubeconfig-secret", flags.kubeconfig_secret));
  }
  if (!flags.token_secret.empty()) {
    ASSIGN_OR_RETURN(*auth.mutable_token()->mutable_secret_ref(),
                     SecretKeyRefFlag("--token-secret", flags.token_secret));
  }
  if (!flags.client_cert_secret.empty()) {
    auth.mutable_client_cert()->set_secret_name(flags.client_cert_secret);
  }
  if (flags.exec_url.empty()) return absl::OkStatus();
  v1::ExecPluginAuth& exec = *auth.mutable_exec_plugin();
  exec.set_url(flags.exec_url);
  if (!flags.exec_ca_ref.empty()) {
    ASSIGN_OR_RETURN(*exec.mutable_ca_ref(), ObjectKeyRefFlag("--exec-ca-ref", flags.exec_ca_ref));
  }
  if (!flags.exec_token_secret.empty()) {
    ASSIGN_OR_RETURN(*exec.mutable_token_ref(),
                     SecretKeyRefFlag("--exec-token-secret", flags.exec_token_secret));
  }
  return absl::OkStatus();
}

}  // namespace

std::vector<std::pair<const char*, const std::string*>> AgentlessFlags(const ClusterSpecFlags& f) {
  return {{"api-server", &f.api_server},
          {"ca-ref", &f.ca_ref},
          {"auth-type", &f.auth_type},
          {"kubeconfig-secret", &f.kubeconfig_secret},
          {"token-secret", &f.token_secret},
          {"client-cert-secret", &f.client_cert_secret},
          {"exec-url", &f.exec_url},
          {"exec-ca-ref", &f.exec_ca_ref},
          {"exec-token-secret", &f.exec_token_secret}};
}

std::vector<std::string> AgentlessFlagsGiven(const ClusterSpecFlags& flags) {
  std::vector<std::string> given;
  for (const auto& [name, value] : AgentlessFlags(flags)) {
    if (!value->empty()) given.push_back(absl::StrCat("--", name));
  }
  return given;
}

absl::StatusOr<v1::ClusterSpec> ClusterSpecFromFlags(const ClusterSpecFlags& flags) {
  v1::ClusterSpec spec;
  ASSIGN_OR_RETURN(const v1::ClusterConnectionMode mode,
                   ParseConnectionMode("--connection-mode", flags.connection_mode));
  spec.set_connection_mode(mode);
  spec.set_namespace_(flags.namespace_name);
  if (mode == v1::CLUSTER_CONNECTION_MODE_IN_CLUSTER) {
    const std::vector<std::string> given = AgentlessFlagsGiven(flags);
    if (!given.empty()) {
      return absl::InvalidArgumentError(
          absl::StrCat(absl::StrJoin(given, ", "), ": only for --connection-mode agentless"));
    }
    return spec;
  }
  if (flags.namespace_name.empty()) {
    return absl::InvalidArgumentError(
        "--namespace: required with --connection-mode agentless (the namespace of the home "
        "cluster holding the referenced Secrets and ConfigMaps)");
  }
  v1::AgentlessConnection& agentless = *spec.mutable_agentless();
  agentless.set_server(flags.api_server);
  if (!flags.ca_ref.empty()) {
    ASSIGN_OR_RETURN(*agentless.mutable_ca_ref(), ObjectKeyRefFlag("--ca-ref", flags.ca_ref));
  }
  RETURN_IF_ERROR(AuthFromFlags(flags, *agentless.mutable_auth()));
  if (flags.api_server.empty() && service::AuthTypeNeedsServer(flags.auth_type)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--api-server: required with --auth-type ", flags.auth_type, " (the https:// URL of "
        "the cluster's API server)"));
  }
  return spec;
}

}  // namespace credledger::cli
