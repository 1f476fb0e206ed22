#include "cli/cluster_cli.h"

#include <grpcpp/grpcpp.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <memory>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "cli/client_command.h"
#include "cli/cluster_printer.h"
#include "cli/framework/spec_file.h"
#include "cli/framework/yaml_fields.h"
#include "common/status_macros.h"
#include "credledger/v1/api.grpc.pb.h"
#include "kubebridge/model/cluster_auth_names.h"
#include "kubebridge/model/connection_errors.h"
#include "service/decide/cluster_validation.h"

namespace credledger::service {
namespace {

using ClusterStub = v1::ClusterService::Stub;

constexpr char kClusterNameArg[] = "<name>";
constexpr char kInCluster[] = "inCluster";
constexpr char kAgentless[] = "agentless";

// ---- The spec file ---------------------------------------------------------------------

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

absl::StatusOr<v1::ClusterConnectionMode> ConnectionMode(absl::string_view field,
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
  ASSIGN_OR_RETURN(const v1::ClusterConnectionMode parsed, ConnectionMode("connectionMode", mode));
  spec.set_connection_mode(parsed);
  RETURN_IF_ERROR(OptionalClusterString(root, "namespace", "", spec.mutable_namespace_()));
  if (YamlPresent(root["agentless"])) {
    RETURN_IF_ERROR(ParseAgentless(root["agentless"], *spec.mutable_agentless()));
  }
  return spec;
}

// ---- The spec flags ----------------------------------------------------------------------

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

// The flags that describe an agentless connection, by name (without "--") and value.
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

// The agentless flags given, as "--flag" names.
std::vector<std::string> AgentlessFlagsGiven(const ClusterSpecFlags& flags) {
  std::vector<std::string> given;
  for (const auto& [name, value] : AgentlessFlags(flags)) {
    if (!value->empty()) given.push_back(absl::StrCat("--", name));
  }
  return given;
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
  RETURN_IF_ERROR(ValidateAuthTypeCase("--auth-type", flags.auth_type));
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

// With kubeconfig auth the kubeconfig names the API server and its CA, and the Cluster's own
// fields are ignored (docs/connections.md, "Auth types"): when `spec` sets them anyway, says so
// on `err` as "note: <server_name>, <ca_name>: ignored with <type_name>; ...", naming only
// those set.
void PrintKubeconfigNote(const v1::ClusterSpec& spec, absl::string_view server_name,
                         absl::string_view ca_name, absl::string_view type_name,
                         std::ostream& err) {
  const v1::AgentlessConnection& agentless = spec.agentless();
  if (agentless.auth().type() != kubebridge::kAuthKubeconfig) return;
  std::vector<absl::string_view> ignored;
  if (!agentless.server().empty()) ignored.push_back(server_name);
  if (agentless.has_ca_ref()) ignored.push_back(ca_name);
  if (ignored.empty()) return;
  err << "note: " << absl::StrJoin(ignored, ", ") << ": ignored with " << type_name
      << "; the kubeconfig names the API server and its CA\n";
}

// ---- Commands ----------------------------------------------------------------------------

// A mutating cluster subcommand; prints the cluster after the change.
template <typename Request>
using ClusterMutation = MutationCommand<ClusterStub, Request, v1::ClusterChangeResponse>;

class RegisterCommand final : public ClusterMutation<v1::RegisterClusterRequest> {
 public:
  RegisterCommand()
      : MutationCommand(&ClusterStub::RegisterCluster, "registered", &FormatClusterChangeText) {}

 private:
  void DefineMutationFlags(FlagSet& flags) override {
    flags.AddChoice("connection-mode", &spec_flags_.connection_mode, {kInCluster, kAgentless},
                    "how credledger connects: inCluster (its own connection) or agentless");
    flags.Add("namespace", &spec_flags_.namespace_name,
              "namespace of the home cluster holding the referenced Secrets and ConfigMaps "
              "(required for agentless)");
    flags.Add("api-server", &spec_flags_.api_server,
              "https:// URL of the cluster's API server, without query or fragment (required "
              "with --auth-type token, clientCert and execPlugin)");
    flags.Add("ca-ref", &spec_flags_.ca_ref,
              "CA bundle of the API server: <kind>/<name>[/<key>] (Secret or ConfigMap; key "
              "default ca.crt)");
    flags.Add("auth-type", &spec_flags_.auth_type,
              "kubeconfig, token, clientCert or execPlugin (case-sensitive); only its own "
              "block flags are allowed (other types take none, and are accepted and reported "
              "as Unsupported)");
    flags.Add("kubeconfig-secret", &spec_flags_.kubeconfig_secret,
              "kubeconfig auth: <name>[/<key>] of the Secret holding it (key default value)");
    flags.Add("token-secret", &spec_flags_.token_secret,
              "token auth: <name>[/<key>] of the Secret holding the token (key default token)");
    flags.Add("client-cert-secret", &spec_flags_.client_cert_secret,
              "clientCert auth: name of the Secret with tls.crt and tls.key");
    flags.Add("exec-url", &spec_flags_.exec_url,
              "execPlugin auth: https:// URL of the credential provider, without query or "
              "fragment (the spec is recorded in the log)");
    flags.Add("exec-ca-ref", &spec_flags_.exec_ca_ref,
              "execPlugin auth: CA of the provider, <kind>/<name>[/<key>]");
    flags.Add("exec-token-secret", &spec_flags_.exec_token_secret,
              "execPlugin auth: <name>[/<key>] of the Secret with the token for the provider");
    flags.Add("file", &file_, "read the spec from this YAML file instead of the flags");
    flags.AddAlias('f', "file");
  }

  int Prepare(const std::string& name, v1::RegisterClusterRequest& request,
              std::ostream& err) override {
    request.set_name(name);
    if (const int refused = RefuseEmptyValues(err); refused != kExitOk) return refused;
    if (!flags_->Given("file")) {
      absl::StatusOr<v1::ClusterSpec> spec = ClusterSpecFromFlags(spec_flags_);
      if (!spec.ok()) {
        err << "error: " << spec.status().message() << "\n";
        return kExitUsage;
      }
      PrintKubeconfigNote(*spec, "--api-server", "--ca-ref", "--auth-type kubeconfig", err);
      *request.mutable_spec() = *std::move(spec);
      return kExitOk;
    }
    if (flags_->Given("connection-mode") || flags_->Given("namespace") ||
        !AgentlessFlagsGiven(spec_flags_).empty()) {
      err << "error: -f and the spec flags (--connection-mode, --namespace, --api-server, "
             "--ca-ref, --auth-type, ...) are exclusive\n";
      return kExitUsage;
    }
    absl::StatusOr<v1::ClusterSpec> spec = ReadSpecFile(file_, &ParseClusterSpecNode);
    if (!spec.ok()) return ReportError(spec.status(), err);
    PrintKubeconfigNote(*spec, "agentless.server", "agentless.caRef", "auth type kubeconfig",
                        err);
    *request.mutable_spec() = *std::move(spec);
    return kExitOk;
  }

  // Refuses a spec flag or -f given with an empty value (`--token-secret ""`), which would
  // otherwise read as "not given": kExitUsage after naming the flag, else kExitOk.
  int RefuseEmptyValues(std::ostream& err) const {
    std::vector<std::pair<const char*, const std::string*>> given = AgentlessFlags(spec_flags_);
    given.push_back({"namespace", &spec_flags_.namespace_name});
    given.push_back({"file", &file_});
    for (const auto& [flag, value] : given) {
      if (flags_->Given(flag) && value->empty()) {
        err << "error: --" << flag << ": empty value; give a value or leave the flag out\n";
        return kExitUsage;
      }
    }
    return kExitOk;
  }

  ClusterSpecFlags spec_flags_;
  std::string file_;
};

class DeregisterCommand final : public ClusterMutation<v1::DeregisterClusterRequest> {
 public:
  DeregisterCommand()
      : MutationCommand(&ClusterStub::DeregisterCluster, "deregistered", &FormatClusterChangeText) {
  }

 private:
  int Prepare(const std::string& name, v1::DeregisterClusterRequest& request,
              std::ostream&) override {
    request.set_name(name);
    return kExitOk;
  }
};

// cluster get / cluster probe: one cluster by name, printed with FormatClusterText; the exit
// code is `exit_code(view)` when given (probe), else kExitOk.
template <typename Request>
class ShowCommand final : public ClientCommand {
 public:
  using Method = grpc::Status (ClusterStub::*)(grpc::ClientContext*, const Request&,
                                               v1::GetClusterResponse*);
  using ExitCode = int (*)(const v1::ClusterView& view);
  explicit ShowCommand(Method method, ExitCode exit_code = nullptr)
      : method_(method), exit_code_(exit_code) {}

  int Run(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) override {
    Request request;
    request.set_name(args[0]);
    v1::GetClusterResponse response;
    if (absl::Status status = Call(method_, request, &response); !status.ok()) {
      return ReportError(status, err);
    }
    if (const int printed = Print(response, FormatClusterText(response.cluster()), out, err);
        printed != kExitOk) {
      return printed;
    }
    return exit_code_ == nullptr ? kExitOk : exit_code_(response.cluster());
  }

 private:
  Method method_;
  ExitCode exit_code_;
};

class ClusterListCommand final : public ClientCommand {
 public:
  int Run(const std::vector<std::string>&, std::ostream& out, std::ostream& err) override {
    v1::ListClustersRequest request;
    request.set_include_deregistered(include_deregistered_);
    return CallAndPrint(
        &ClusterStub::ListClusters, request,
        [](const v1::ListClustersResponse& r) { return FormatClusterTable(r.clusters()); }, out,
        err);
  }

 private:
  void DefineOwnFlags(FlagSet& flags) override {
    flags.Add("include-deregistered", &include_deregistered_, "also list deregistered clusters");
  }
  bool include_deregistered_ = false;
};

constexpr char kClusterSpecDescription[] =
    "The spec comes from the flags or, with -f, from a YAML file with the Kubernetes field\n"
    "names:\n"
    "  connectionMode: agentless          # or inCluster\n"
    "  namespace: fleet\n"
    "  agentless:\n"
    "    server: https://edge-1.example:6443\n"
    "    caRef: {kind: ConfigMap, name: edge-1-ca, key: ca.crt}\n"
    "    auth:\n"
    "      type: token                    # kubeconfig, token, clientCert, execPlugin\n"
    "      token: {secretRef: {name: edge-1-token, key: token}}\n"
    "      # kubeconfig: {secretRef: {name: edge-1-kubeconfig, key: value}}\n"
    "      # clientCert: {secretName: edge-1-client}\n"
    "      # execPlugin: {url: https://creds.example/exec, caRef: {...}, tokenRef: {...}}\n"
    "inCluster uses credledger's own connection (its --kubeconfig, else its service\n"
    "account). agentless reads the referenced Secrets and ConfigMaps from the namespace on\n"
    "the home cluster at every connection. The API server's URL is --api-server (--server\n"
    "names the credledger server). Registering again with another spec replaces it.\n";

constexpr char kProbeDescription[] =
    "Probes the cluster now, as the service does periodically, prints the cluster with its\n"
    "Reachable condition, and exits with the outcome:\n"
    "  0  Reachable True (ProbeSucceeded)\n"
    "  1  the call failed (error: <CODE>: <message>), or any other outcome\n"
    "  2  usage error; nothing was sent\n"
    "  3  ProbeFailed: the probe failed; a retry may succeed\n"
    "  4  Unsupported: retrying cannot help until the cluster's spec changes\n";

}  // namespace

absl::StatusOr<v1::ClusterSpec> ClusterSpecFromFlags(const ClusterSpecFlags& flags) {
  v1::ClusterSpec spec;
  ASSIGN_OR_RETURN(const v1::ClusterConnectionMode mode,
                   ConnectionMode("--connection-mode", flags.connection_mode));
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
  if (flags.api_server.empty() && AuthTypeNeedsServer(flags.auth_type)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--api-server: required with --auth-type ", flags.auth_type, " (the https:// URL of "
        "the cluster's API server)"));
  }
  return spec;
}

absl::StatusOr<v1::ClusterSpec> ParseClusterSpecYaml(absl::string_view yaml) {
  return ParseSpecYaml(yaml, &ParseClusterSpecNode);
}

int ProbeClusterExitCode(const v1::ClusterView& view) {
  const v1::Condition& reachable = view.cluster().reachable();
  if (reachable.status() == "True") return kExitOk;
  if (reachable.reason() == kubebridge::kReasonProbeFailed) return kExitCheckFailed;
  if (reachable.reason() == kubebridge::kReasonUnsupported) return kExitUnsupported;
  return kExitFailure;
}

void AddClusterCommands(Dispatcher& d) {
  d.Add({"cluster register", kClusterNameArg, "register a cluster or replace its connection spec",
         1, 1, [] { return std::make_unique<RegisterCommand>(); }, kClusterSpecDescription});
  d.Add({"cluster deregister", kClusterNameArg, "deregister a cluster no identity mirrors into", 1,
         1, [] { return std::make_unique<DeregisterCommand>(); }});
  d.Add({"cluster probe", kClusterNameArg,
         "connect to a cluster now, read /version and the API groups, and show the outcome", 1, 1,
         [] {
           return std::make_unique<ShowCommand<v1::ProbeClusterRequest>>(&ClusterStub::ProbeCluster,
                                                                         &ProbeClusterExitCode);
         },
         kProbeDescription});
  d.Add({"cluster get", kClusterNameArg, "show a cluster, its Reachable condition and last probe",
         1, 1, [] {
           return std::make_unique<ShowCommand<v1::GetClusterRequest>>(&ClusterStub::GetCluster);
         }});
  d.Add({"cluster list", "", "list clusters", 0, 0,
         [] { return std::make_unique<ClusterListCommand>(); }});
}

}  // namespace credledger::service
