#include "cli/cluster_cli.h"

#include <grpcpp/grpcpp.h>

#include <memory>
#include <utility>
#include <vector>

#include "absl/strings/str_join.h"
#include "cli/client_command.h"
#include "cli/cluster_printer.h"
#include "cli/cluster_spec.h"
#include "cli/framework/spec_file.h"
#include "credledger/v1/api.grpc.pb.h"
#include "kubebridge/model/cluster_auth_names.h"
#include "kubebridge/model/connection_errors.h"

namespace credledger::cli {
namespace {

using ClusterStub = v1::ClusterService::Stub;

constexpr char kClusterNameArg[] = "<name>";

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

}  // namespace credledger::cli
