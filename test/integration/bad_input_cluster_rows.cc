// The ClusterService and SourceService rows of the bad-input table: cluster names, the
// connection spec (modes, auth types and blocks, https:// URLs, Secret and ConfigMap
// references) and the source to verify. Kubeconfigs are never sent through the API (a
// cluster names the Secret that holds one), so invalid kubeconfig YAML is a CLI row
// (bad_input_cli_test.cc).
#include "absl/strings/str_cat.h"
#include "credledger/v1/api.pb.h"
#include "test/integration/bad_input_rpc_rows.h"

namespace credledger::testing {
namespace {

using BadKind = BadInputKind;
using BadClusterRequest = v1::RegisterClusterRequest;
using BadSourceRequest = v1::VerifySourceRequest;

// A RegisterClusterRequest, valid but for what a row changes.
constexpr char kBadRpcCluster[] = R"pb(
  request_id: "bad-cluster"
  name: "edge-1"
  spec {
    namespace: "fleet"
    connection_mode: CLUSTER_CONNECTION_MODE_AGENTLESS
    agentless {
      server: "https://edge-1.example:6443"
      ca_ref { kind: "ConfigMap" name: "edge-1-ca" }
      auth {
        type: "token"
        token { secret_ref { name: "edge-1-token" } }
      }
    }
  })pb";
// A VerifySourceRequest, valid but for what a row changes.
constexpr char kBadRpcSource[] = R"pb(
  request_id: "bad-source"
  name: "repo"
  source {
    kind: SOURCE_KIND_GIT
    url: "https://git.example/org/repo.git"
    auth { type: "none" }
  })pb";

v1::AgentlessConnection& BadAgentlessOf(BadClusterRequest& r) {
  return *r.mutable_spec()->mutable_agentless();
}

BadInputRpcRow BadClusterRow(BadKind kind, void (*edit)(BadClusterRequest&), std::string field,
                             std::vector<std::string> rule) {
  return BadRpcInvalid("ClusterService/RegisterCluster", kind,
                       BadRpcBytes<BadClusterRequest>(kBadRpcCluster, edit), std::move(field),
                       std::move(rule));
}

BadInputRpcRow BadSourceRow(BadKind kind, void (*edit)(BadSourceRequest&), std::string field,
                            std::vector<std::string> rule) {
  return BadRpcInvalid("SourceService/VerifySource", kind,
                       BadRpcBytes<BadSourceRequest>(kBadRpcSource, edit), std::move(field),
                       std::move(rule));
}

void AddBadRegisterClusterRows(std::vector<BadInputRpcRow>& rows) {
  using R = BadClusterRequest;
  rows.push_back(
      BadClusterRow(BadKind::kEmpty, [](R& r) { r.clear_name(); }, "name", {kBadRpcRequired}));
  rows.push_back(BadClusterRow(BadKind::kDnsLimit, [](R& r) { r.set_name(BadRpcLong(64)); }, "name",
                               {kBadRpcLabelTooLong}));
  rows.push_back(BadClusterRow(BadKind::kWrongCharacters, [](R& r) { r.set_name("Edge_1"); },
                               "name", {kBadRpcNotLabel}));
  rows.push_back(BadClusterRow(BadKind::kEmpty, [](R& r) { r.clear_request_id(); }, "request_id",
                               {kBadRpcRequired}));
  rows.push_back(BadClusterRow(BadKind::kEmpty, [](R& r) { r.clear_spec(); },
                               "spec.connection_mode", {"required: inCluster or agentless"}));
  rows.push_back(BadClusterRow(
      BadKind::kUnknownEnum,
      [](R& r) { BadRpcSetEnumNumber(*r.mutable_spec(), "connection_mode", 99); },
      "spec.connection_mode", {"99 is not a connection mode (inCluster or agentless)"}));
  rows.push_back(BadClusterRow(
      BadKind::kInvalidValue,
      [](R& r) { r.mutable_spec()->set_connection_mode(v1::CLUSTER_CONNECTION_MODE_IN_CLUSTER); },
      "spec.agentless", {"must be unset for connection mode inCluster"}));
  rows.push_back(BadClusterRow(BadKind::kEmpty, [](R& r) { r.mutable_spec()->clear_namespace_(); },
                               "spec.namespace", {kBadRpcRequired}));
  rows.push_back(BadClusterRow(BadKind::kWrongCharacters,
                               [](R& r) { r.mutable_spec()->set_namespace_("Fleet"); },
                               "spec.namespace", {kBadRpcNotLabel}));
  rows.push_back(BadClusterRow(BadKind::kEmpty, [](R& r) { r.mutable_spec()->clear_agentless(); },
                               "spec.agentless", {"required for connection mode agentless"}));
  rows.push_back(BadClusterRow(BadKind::kEmpty,
                               [](R& r) { BadAgentlessOf(r).mutable_auth()->clear_type(); },
                               "spec.agentless.auth.type", {kBadRpcRequired}));
  rows.push_back(BadClusterRow(BadKind::kInvalidValue,
                               [](R& r) { BadAgentlessOf(r).mutable_auth()->set_type("Token"); },
                               "spec.agentless.auth.type", {"did you mean token?"}));
  rows.push_back(BadClusterRow(BadKind::kWrongCharacters,
                               [](R& r) { BadAgentlessOf(r).mutable_auth()->set_type("to ken"); },
                               "spec.agentless.auth.type", {"is not an auth type"}));
  rows.push_back(BadClusterRow(
      BadKind::kOversized, [](R& r) { BadAgentlessOf(r).mutable_auth()->set_type(BadRpcLong(64)); },
      "spec.agentless.auth.type", {"is not an auth type (1-63"}));
  rows.push_back(BadClusterRow(BadKind::kEmpty, [](R& r) { BadAgentlessOf(r).clear_server(); },
                               "spec.agentless.server", {kBadRpcRequired}));
  rows.push_back(BadClusterRow(BadKind::kInvalidValue,
                               [](R& r) { BadAgentlessOf(r).set_server("http://edge-1.example"); },
                               "spec.agentless.server", {"is not an https:// URL"}));
  rows.push_back(
      BadClusterRow(BadKind::kInvalidValue,
                    [](R& r) { BadAgentlessOf(r).set_server("https://edge-1.example/?token=t0p"); },
                    "spec.agentless.server", {"must not contain a query"}));
  rows.push_back(
      BadClusterRow(BadKind::kInvalidValue,
                    [](R& r) { BadAgentlessOf(r).set_server("https://admin:pw@edge-1.example"); },
                    "spec.agentless.server", {"must not contain userinfo"}));
  rows.push_back(BadClusterRow(BadKind::kWrongCharacters,
                               [](R& r) { BadAgentlessOf(r).set_server("https://edge 1.example"); },
                               "spec.agentless.server", {"must not contain whitespace"}));
  rows.push_back(BadClusterRow(BadKind::kWrongCharacters,
                               [](R& r) {
                                 BadAgentlessOf(r).set_server(
                                     "https://\xc3\xa9"
                                     "dge.example");
                               },
                               "spec.agentless.server", {"must be ASCII"}));
  rows.push_back(BadClusterRow(
      BadKind::kOversized,
      [](R& r) { BadAgentlessOf(r).set_server(absl::StrCat("https://", BadRpcLong(2100))); },
      "spec.agentless.server", {"2108 bytes; at most 2048 allowed"}));
  rows.push_back(BadClusterRow(BadKind::kEmpty,
                               [](R& r) { BadAgentlessOf(r).mutable_auth()->clear_token(); },
                               "spec.agentless.auth.token", {"required for auth type token"}));
  rows.push_back(BadClusterRow(
      BadKind::kInvalidValue,
      [](R& r) { BadAgentlessOf(r).mutable_auth()->mutable_client_cert()->set_secret_name("c"); },
      "spec.agentless.auth.client_cert", {"only for auth type clientCert (type is token)"}));
  rows.push_back(BadClusterRow(
      BadKind::kWrongCharacters,
      [](R& r) {
        BadAgentlessOf(r).mutable_auth()->mutable_token()->mutable_secret_ref()->set_name(
            "Edge Token");
      },
      "spec.agentless.auth.token.secret_ref.name", {kBadRpcNotSubdomain}));
  rows.push_back(BadClusterRow(
      BadKind::kDnsLimit,
      [](R& r) {
        BadAgentlessOf(r).mutable_auth()->mutable_token()->mutable_secret_ref()->set_name(
            BadRpcLong(254));
      },
      "spec.agentless.auth.token.secret_ref.name", {kBadRpcSubdomainTooLong}));
  rows.push_back(BadClusterRow(
      BadKind::kWrongCharacters,
      [](R& r) {
        BadAgentlessOf(r).mutable_auth()->mutable_token()->mutable_secret_ref()->set_key("a/b");
      },
      "spec.agentless.auth.token.secret_ref.key", {"is not a data key"}));
  rows.push_back(BadClusterRow(
      BadKind::kOversized,
      [](R& r) {
        BadAgentlessOf(r).mutable_auth()->mutable_token()->mutable_secret_ref()->set_key(
            BadRpcLong(254));
      },
      "spec.agentless.auth.token.secret_ref.key", {"254 bytes; a data key has at most 253"}));
  rows.push_back(BadClusterRow(
      BadKind::kInvalidValue, [](R& r) { BadAgentlessOf(r).mutable_ca_ref()->set_kind("Pod"); },
      "spec.agentless.ca_ref.kind", {"is not a kind a reference may name"}));
  rows.push_back(BadClusterRow(BadKind::kEmpty,
                               [](R& r) {
                                 BadAgentlessOf(r).mutable_auth()->set_type("execPlugin");
                                 BadAgentlessOf(r).mutable_auth()->clear_token();
                                 BadAgentlessOf(r).mutable_auth()->mutable_exec_plugin();
                               },
                               "spec.agentless.auth.exec_plugin.url", {kBadRpcRequired}));
}

void AddBadClusterReadRows(std::vector<BadInputRpcRow>& rows) {
  const std::string d = "ClusterService/DeregisterCluster";
  using D = v1::DeregisterClusterRequest;
  rows.push_back(BadRpcInvalid(d, BadKind::kWrongCharacters,
                               BadRpcBytes<D>(R"pb(request_id: "r" name: "Home_1")pb"), "name",
                               {kBadRpcNotLabel}));
  rows.push_back(BadRpcInvalid(
      d, BadKind::kDnsLimit,
      BadRpcBytes<D>(R"pb(request_id: "r")pb", [](D& r) { r.set_name(BadRpcLong(64)); }), "name",
      {kBadRpcLabelTooLong}));
  rows.push_back(BadRpcInvalid(d, BadKind::kEmpty, BadRpcBytes<D>(R"pb(name: "home")pb"),
                               "request_id", {kBadRpcRequired}));

  const std::string p = "ClusterService/ProbeCluster";
  rows.push_back(BadRpcInvalid(p, BadKind::kEmpty, BadRpcBytes<v1::ProbeClusterRequest>(""), "name",
                               {kBadRpcRequired}));
  rows.push_back(BadRpcInvalid(p, BadKind::kWrongCharacters,
                               BadRpcBytes<v1::ProbeClusterRequest>(R"pb(name: "home.1")pb"),
                               "name", {kBadRpcNotLabel}));

  const std::string g = "ClusterService/GetCluster";
  rows.push_back(BadRpcInvalid(g, BadKind::kWrongCharacters,
                               BadRpcBytes<v1::GetClusterRequest>(R"pb(name: "HOME")pb"), "name",
                               {kBadRpcNotLabel}));
  rows.push_back(BadRpcInvalid(
      g, BadKind::kDnsLimit,
      BadRpcBytes<v1::GetClusterRequest>("", [](auto& r) { r.set_name(BadRpcLong(64)); }), "name",
      {kBadRpcLabelTooLong}));

  // ListClusters has one bool field: only bytes that do not parse are bad input (a tag of
  // field number 0).
  rows.push_back({"ClusterService/ListClusters",
                  BadKind::kWrongType,
                  std::string("\x00\x01", 2),
                  grpc::StatusCode::INVALID_ARGUMENT,
                  "request",
                  {kBadRpcUnparsed}});
}

void AddBadVerifySourceRows(std::vector<BadInputRpcRow>& rows) {
  using S = BadSourceRequest;
  rows.push_back(BadSourceRow(BadKind::kEmpty, [](S& r) { r.clear_request_id(); }, "request_id",
                              {kBadRpcRequired}));
  rows.push_back(BadSourceRow(BadKind::kWrongCharacters, [](S& r) { r.set_name("Repo"); }, "name",
                              {kBadRpcNotLabel}));
  rows.push_back(BadSourceRow(BadKind::kDnsLimit, [](S& r) { r.set_name(BadRpcLong(64)); }, "name",
                              {kBadRpcLabelTooLong}));
  rows.push_back(BadSourceRow(
      BadKind::kEmpty, [](S& r) { r.mutable_source()->set_kind(v1::SOURCE_KIND_UNSPECIFIED); },
      "source.kind", {"required (git, helm or oci)"}));
  rows.push_back(BadSourceRow(BadKind::kUnknownEnum,
                              [](S& r) { BadRpcSetEnumNumber(*r.mutable_source(), "kind", 7); },
                              "source.kind", {"unknown value 7 (git, helm or oci)"}));
  rows.push_back(BadSourceRow(BadKind::kEmpty, [](S& r) { r.mutable_source()->clear_url(); },
                              "source.url", {kBadRpcRequired}));
  rows.push_back(BadSourceRow(
      BadKind::kInvalidValue,
      [](S& r) { r.mutable_source()->set_url("https://user:hunter2@git.example/org/repo.git"); },
      "source.url", {"must not contain a password"}));
  rows.push_back(BadSourceRow(
      BadKind::kInvalidValue,
      [](S& r) { r.mutable_source()->set_url("https://git.example/org/repo.git?token=x"); },
      "source.url", {"must not contain a query"}));
  rows.push_back(BadSourceRow(BadKind::kWrongCharacters,
                              [](S& r) { r.mutable_source()->set_url("https://git.example/a b"); },
                              "source.url", {"must not contain whitespace or control characters"}));
  rows.push_back(
      BadSourceRow(BadKind::kWrongCharacters,
                   [](S& r) { r.mutable_source()->set_url("https://git.example/caf\xc3\xa9.git"); },
                   "source.url", {"must be ASCII"}));
  rows.push_back(BadSourceRow(
      BadKind::kOversized,
      [](S& r) { r.mutable_source()->set_url(absl::StrCat("https://", BadRpcLong(2100))); },
      "source.url", {"2108 bytes; at most 2048 allowed"}));
  rows.push_back(BadSourceRow(BadKind::kWrongCharacters,
                              [](S& r) { r.mutable_source()->set_namespace_("Flux System"); },
                              "source.namespace", {kBadRpcNotLabel}));
  rows.push_back(BadSourceRow(BadKind::kEmpty, [](S& r) { r.mutable_source()->clear_auth(); },
                              "source.auth.type", {"required (none, basic, bearer or sshKey)"}));
  rows.push_back(
      BadSourceRow(BadKind::kOversized,
                   [](S& r) { r.mutable_source()->mutable_auth()->set_type(BadRpcLong(64)); },
                   "source.auth.type", {"64 bytes; at most 63 allowed"}));
  rows.push_back(BadSourceRow(BadKind::kWrongCharacters,
                              [](S& r) { r.mutable_source()->mutable_auth()->set_type("ssh key"); },
                              "source.auth.type", {kBadRpcNotToken}));
  rows.push_back(BadSourceRow(BadKind::kEmpty,
                              [](S& r) { r.mutable_source()->mutable_auth()->set_type("basic"); },
                              "source.auth.basic", {"required for auth type basic"}));
  rows.push_back(BadSourceRow(
      BadKind::kInvalidValue,
      [](S& r) { r.mutable_source()->mutable_auth()->mutable_bearer()->set_secret_name("t"); },
      "source.auth.bearer", {"only for auth type bearer (type is none)"}));
  rows.push_back(BadSourceRow(
      BadKind::kWrongCharacters,
      [](S& r) {
        r.mutable_source()->mutable_auth()->set_type("basic");
        r.mutable_source()->mutable_auth()->mutable_basic()->set_secret_name("Git Creds");
      },
      "source.auth.basic.secret_name", {kBadRpcNotSubdomain}));
  rows.push_back(BadSourceRow(
      BadKind::kInvalidValue,
      [](S& r) {
        v1::SourceAuth& auth = *r.mutable_source()->mutable_auth();
        auth.set_type("sshKey");
        auth.mutable_ssh_key()->set_secret_name("git-ssh");
        auth.mutable_ssh_key()->mutable_known_hosts_ref()->set_kind("Pod");
        auth.mutable_ssh_key()->mutable_known_hosts_ref()->set_name("hosts");
      },
      "source.auth.ssh_key.known_hosts_ref.kind", {"is not a kind a reference may name"}));
  rows.push_back(BadSourceRow(BadKind::kInvalidValue,
                              [](S& r) {
                                r.mutable_source()->set_url("ssh://git@git.example/org/repo.git");
                                r.mutable_source()->mutable_tls()->set_insecure_skip_verify(true);
                              },
                              "source.tls.insecure_skip_verify", {"SSH URL"}));
  rows.push_back(BadSourceRow(
      BadKind::kWrongCharacters,
      [](S& r) {
        v1::ObjectKeyRef& ca = *r.mutable_source()->mutable_tls()->mutable_ca_public_cert_ref();
        ca.set_kind("Secret");
        ca.set_name("git-ca");
        ca.set_key("ca crt");
      },
      "source.tls.ca_public_cert_ref.key", {"is not a data key"}));
}

}  // namespace

void AddClusterAndSourceServiceBadInputRows(std::vector<BadInputRpcRow>& rows) {
  AddBadRegisterClusterRows(rows);
  AddBadClusterReadRows(rows);
  AddBadVerifySourceRows(rows);
}

}  // namespace credledger::testing
