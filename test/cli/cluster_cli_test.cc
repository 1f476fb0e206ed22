// The cluster CLI's inputs and text formats: the spec flags and spec file (-f) as they reach
// the request (duplicate keys and bad values refused naming their path), the shapes of
// `cluster get|list` output, and the subcommands end to end against ClusterService served
// over gRPC on 127.0.0.1:0.
#include "cli/cluster_cli.h"

#include <google/protobuf/text_format.h>
#include <google/protobuf/util/message_differencer.h>
#include <grpcpp/grpcpp.h>

#include <fstream>
#include <functional>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "cli/cluster_printer.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "projections/proto_time.h"
#include "service/grpc/cluster_grpc_service.h"
#include "test/service/cluster_api_fixture.h"
#include "test/support/call_environment.h"

namespace credledger::cli {
namespace cluster_cli_test {

using google::protobuf::util::MessageDifferencer;
using service::AuthorizationPolicy;
using service::CallAuthorizer;
using service::ClusterApiFixture;
using service::ClusterGrpcService;
using service::Failed;
using service::InClusterSpec;
using service::kEdgeServer;
using service::KubeconfigSpec;
using service::Succeeded;
using service::TestCallEnvironment;
using service::TokenSpec;
using ::testing::AllOf;
using ::testing::HasSubstr;
using ::testing::Not;
using ::testing::StartsWith;
using testing::StatusIs;

// The agentless spec every input form below describes, built field by field.
v1::ClusterSpec FullAgentlessSpec() {
  v1::ClusterSpec spec;
  spec.set_connection_mode(v1::CLUSTER_CONNECTION_MODE_AGENTLESS);
  spec.set_namespace_("fleet");
  v1::AgentlessConnection& agentless = *spec.mutable_agentless();
  agentless.set_server("https://edge-1.example:6443");
  agentless.mutable_ca_ref()->set_kind("ConfigMap");
  agentless.mutable_ca_ref()->set_name("edge-1-ca");
  agentless.mutable_ca_ref()->set_key("ca.crt");
  v1::ClusterAuth& auth = *agentless.mutable_auth();
  auth.set_type("execPlugin");
  auth.mutable_kubeconfig()->mutable_secret_ref()->set_name("edge-1-kubeconfig");
  auth.mutable_token()->mutable_secret_ref()->set_name("edge-1-token");
  auth.mutable_token()->mutable_secret_ref()->set_key("bearer");
  auth.mutable_client_cert()->set_secret_name("edge-1-client");
  v1::ExecPluginAuth& exec = *auth.mutable_exec_plugin();
  exec.set_url("https://creds.example/exec");
  exec.mutable_ca_ref()->set_kind("Secret");
  exec.mutable_ca_ref()->set_name("creds-ca");
  exec.mutable_token_ref()->set_name("creds-token");
  exec.mutable_token_ref()->set_key("t");
  return spec;
}

void ExpectSpec(const absl::StatusOr<v1::ClusterSpec>& got, const v1::ClusterSpec& want) {
  ASSERT_OK(got);
  EXPECT_TRUE(MessageDifferencer::Equals(*got, want))
      << "got " << got->ShortDebugString() << "\nwant " << want.ShortDebugString();
}

// --- Flags ---

// The agentless spec of the flags below with `auth` as its auth block.
v1::ClusterSpec AgentlessWithAuth(const v1::ClusterAuth& auth) {
  v1::ClusterSpec spec;
  spec.set_connection_mode(v1::CLUSTER_CONNECTION_MODE_AGENTLESS);
  spec.set_namespace_("fleet");
  spec.mutable_agentless()->set_server("https://edge-1.example:6443");
  spec.mutable_agentless()->mutable_ca_ref()->set_kind("ConfigMap");
  spec.mutable_agentless()->mutable_ca_ref()->set_name("edge-1-ca");
  spec.mutable_agentless()->mutable_ca_ref()->set_key("ca.crt");
  *spec.mutable_agentless()->mutable_auth() = auth;
  return spec;
}

ClusterSpecFlags AgentlessFlags(const std::string& auth_type) {
  ClusterSpecFlags flags;
  flags.connection_mode = "agentless";
  flags.namespace_name = "fleet";
  flags.api_server = "https://edge-1.example:6443";
  flags.ca_ref = "ConfigMap/edge-1-ca/ca.crt";
  flags.auth_type = auth_type;
  return flags;
}

TEST(ClusterSpecInputTest, FlagsBecomeTheSpecWithTheBlockOfTheAuthType) {
  struct Case {
    std::string auth_type;
    std::function<void(ClusterSpecFlags&)> block_flags;
    std::string auth;  // the expected ClusterAuth, text format
  };
  const std::vector<Case> cases = {
      {"execPlugin",
       [](ClusterSpecFlags& f) {
         f.exec_url = "https://creds.example/exec";
         f.exec_ca_ref = "Secret/creds-ca";
         f.exec_token_secret = "creds-token/t";
       },
       R"pb(type: "execPlugin"
            exec_plugin {
              url: "https://creds.example/exec"
              ca_ref { kind: "Secret" name: "creds-ca" }
              token_ref { name: "creds-token" key: "t" }
            })pb"},
      {"token", [](ClusterSpecFlags& f) { f.token_secret = "edge-1-token/bearer"; },
       R"pb(type: "token"
            token { secret_ref { name: "edge-1-token" key: "bearer" } })pb"},
      {"kubeconfig", [](ClusterSpecFlags& f) { f.kubeconfig_secret = "edge-1-kubeconfig"; },
       R"pb(type: "kubeconfig"
            kubeconfig { secret_ref { name: "edge-1-kubeconfig" } })pb"},
      {"clientCert", [](ClusterSpecFlags& f) { f.client_cert_secret = "edge-1-client"; },
       R"pb(type: "clientCert"
            client_cert { secret_name: "edge-1-client" })pb"},
      // A type credledger does not know is sent without a block (the service reports it
      // Unsupported).
      {"oidc", [](ClusterSpecFlags&) {}, R"pb(type: "oidc")pb"},
  };
  for (const Case& c : cases) {
    ClusterSpecFlags flags = AgentlessFlags(c.auth_type);
    c.block_flags(flags);
    v1::ClusterAuth auth;
    ASSERT_TRUE(google::protobuf::TextFormat::ParseFromString(c.auth, &auth)) << c.auth;
    ExpectSpec(ClusterSpecFromFlags(flags), AgentlessWithAuth(auth));
  }

  ClusterSpecFlags home;
  home.connection_mode = "inCluster";
  ExpectSpec(ClusterSpecFromFlags(home), InClusterSpec());
  home.namespace_name = "fleet";
  v1::ClusterSpec with_namespace = InClusterSpec();
  with_namespace.set_namespace_("fleet");
  ExpectSpec(ClusterSpecFromFlags(home), with_namespace);
}

TEST(ClusterSpecInputTest, BadFlagsNameTheFlag) {
  struct Case {
    ClusterSpecFlags flags;
    std::string message;
  };
  // Valid token flags, changed by `mutate`.
  auto agentless = [](auto mutate) {
    ClusterSpecFlags flags;
    flags.connection_mode = "agentless";
    flags.namespace_name = "fleet";
    flags.api_server = "https://edge-1.example:6443";
    flags.auth_type = "token";
    flags.token_secret = "edge-1-token";
    mutate(flags);
    return flags;
  };
  ASSERT_OK(ClusterSpecFromFlags(agentless([](auto&) {})).status());
  const std::vector<Case> cases = {
      {ClusterSpecFlags(), "--connection-mode: required: inCluster or agentless"},
      {agentless([](auto& f) { f.connection_mode = "agentLess"; }),
       "--connection-mode: \"agentLess\" is neither inCluster nor agentless"},
      {agentless([](auto& f) {
         f.connection_mode = "inCluster";
         f.token_secret.clear();
         f.api_server = "https://x";
         f.exec_url = "https://y";
       }),
       "--api-server, --auth-type, --exec-url: only for --connection-mode agentless"},
      {agentless([](auto& f) { f.ca_ref = "edge-1-ca"; }),
       "--ca-ref: expected <kind>/<name>[/<key>], got \"edge-1-ca\""},
      {agentless([](auto& f) { f.ca_ref = "ConfigMap//ca.crt"; }), "--ca-ref: expected"},
      {agentless([](auto& f) { f.token_secret = "a/b/c"; }),
       "--token-secret: expected <name>[/<key>]"},
      {agentless([](auto& f) {
         f.auth_type = "kubeconfig";
         f.token_secret.clear();
         f.kubeconfig_secret = "/value";
       }),
       "--kubeconfig-secret: expected <name>[/<key>]"},
      {agentless([](auto& f) {
         f.auth_type = "execPlugin";
         f.token_secret.clear();
         f.exec_url = "https://creds.example";
         f.exec_ca_ref = "Secret";
       }),
       "--exec-ca-ref: expected"},
      // --auth-type decides which block flags belong.
      {agentless([](auto& f) { f.auth_type.clear(); }),
       "--auth-type: required with --connection-mode agentless"},
      {agentless([](auto& f) { f.client_cert_secret = "edge-1-client"; }),
       "--client-cert-secret: only with --auth-type clientCert"},
      {agentless([](auto& f) { f.exec_ca_ref = "Secret/creds-ca"; }),
       "--exec-ca-ref: only with --auth-type execPlugin"},
      {agentless([](auto& f) { f.token_secret.clear(); }),
       "--token-secret: required with --auth-type token"},
      {agentless([](auto& f) {
         f.auth_type = "kubeconfig";
         f.token_secret.clear();
       }),
       "--kubeconfig-secret: required with --auth-type kubeconfig"},
      {agentless([](auto& f) {
         f.auth_type = "clientCert";
         f.token_secret.clear();
       }),
       "--client-cert-secret: required with --auth-type clientCert"},
      {agentless([](auto& f) {
         f.auth_type = "execPlugin";
         f.token_secret.clear();
         f.exec_token_secret = "creds-token";
       }),
       "--exec-url: required with --auth-type execPlugin"},
      // An unknown type takes no block flag at all.
      {agentless([](auto& f) { f.auth_type = "oidc"; }),
       "--token-secret: only with --auth-type token"},
      // Regression: a known type in another case was reported as a block flag of another
      // type ("--token-secret: only with --auth-type token").
      {agentless([](auto& f) { f.auth_type = "Token"; }),
       "--auth-type: \"Token\" is not an auth type; auth types are case-sensitive: did you "
       "mean token?"},
      {agentless([](auto& f) {
         f.auth_type = "KUBECONFIG";
         f.token_secret.clear();
         f.kubeconfig_secret = "edge-1-kubeconfig";
       }),
       "--auth-type: \"KUBECONFIG\" is not an auth type; auth types are case-sensitive: did "
       "you mean kubeconfig?"},
      // Regression: a missing --namespace or --api-server reached the server.
      {agentless([](auto& f) { f.namespace_name.clear(); }),
       "--namespace: required with --connection-mode agentless"},
      {agentless([](auto& f) { f.api_server.clear(); }),
       "--api-server: required with --auth-type token"},
      {agentless([](auto& f) {
         f.api_server.clear();
         f.auth_type = "clientCert";
         f.token_secret.clear();
         f.client_cert_secret = "edge-1-client";
       }),
       "--api-server: required with --auth-type clientCert"},
      {agentless([](auto& f) {
         f.api_server.clear();
         f.auth_type = "execPlugin";
         f.token_secret.clear();
         f.exec_url = "https://creds.example";
       }),
       "--api-server: required with --auth-type execPlugin"},
  };
  for (size_t i = 0; i < cases.size(); ++i) {
    EXPECT_THAT(ClusterSpecFromFlags(cases[i].flags),
                StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr(cases[i].message)))
        << "case " << i;
  }
  // kubeconfig names its own server, and an unknown type connects nowhere: neither needs
  // --api-server.
  ASSERT_OK(ClusterSpecFromFlags(agentless([](auto& f) {
              f.api_server.clear();
              f.auth_type = "kubeconfig";
              f.token_secret.clear();
              f.kubeconfig_secret = "edge-1-kubeconfig";
            })).status());
  ASSERT_OK(ClusterSpecFromFlags(agentless([](auto& f) {
              f.api_server.clear();
              f.auth_type = "oidc";
              f.token_secret.clear();
            })).status());
}

// --- The spec file ---

TEST(ClusterSpecInputTest, TheSpecFileUsesKubernetesFieldNames) {
  ExpectSpec(ParseClusterSpecYaml(R"(connectionMode: agentless
namespace: fleet
agentless:
  server: https://edge-1.example:6443
  caRef: {kind: ConfigMap, name: edge-1-ca, key: ca.crt}
  auth:
    type: execPlugin
    kubeconfig:
      secretRef: {name: edge-1-kubeconfig}
    token:
      secretRef: {name: edge-1-token, key: bearer}
    clientCert: {secretName: edge-1-client}
    execPlugin:
      url: https://creds.example/exec
      caRef: {kind: Secret, name: creds-ca}
      tokenRef: {name: creds-token, key: t}
)"),
             FullAgentlessSpec());
  ExpectSpec(ParseClusterSpecYaml("connectionMode: inCluster\n"), InClusterSpec());
  // A present but empty block stays present (its type's block is then set, and its empty
  // reference is refused by the server naming the field).
  absl::StatusOr<v1::ClusterSpec> empty_token =
      ParseClusterSpecYaml("connectionMode: agentless\nagentless: {auth: {token: {}}}\n");
  ASSERT_OK(empty_token);
  EXPECT_TRUE(empty_token->agentless().auth().has_token());
}

TEST(ClusterSpecInputTest, BadSpecFilesNameThePath) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"connectionMode: agentless\nconnectionMode: inCluster\n", "connectionMode: duplicate key"},
      {"connectionMode: agentless\nagentless:\n  auth:\n    type: token\n    type: oidc\n",
       "agentless.auth.type: duplicate key"},
      {"connectionMode: agentless\nagentless:\n  caRef: {kind: Secret, name: a, name: b}\n",
       "agentless.caRef.name: duplicate key"},
      {"connectionMode: agentless\nagentless:\n  auth:\n    token:\n      secretRef: {name: a, "
       "key: b, key: c}\n",
       "agentless.auth.token.secretRef.key: duplicate key"},
      {"connectionMode: agentless\nagentless: {serverUrl: https://x}\n",
       "agentless.serverUrl: unknown key"},
      {"connectionMode: agentless\nagentless: {auth: {oidc: {}}}\n",
       "agentless.auth.oidc: unknown key"},
      {"connectionMode: Agentless\n", "connectionMode: \"Agentless\" is neither"},
      {"namespace: fleet\n", "connectionMode: required"},
      {"connectionMode: agentless\nagentless: {server: {host: x}}\n",
       "agentless.server: must be a string"},
      {"connectionMode: agentless\nagentless: {auth: {clientCert: edge-1-client}}\n",
       "agentless.auth.clientCert: must be a mapping"},
      {"- connectionMode: agentless\n", "must be a mapping"},
      {"connectionMode: [agentless\n", "not valid YAML"},
      {std::string(2 << 20, '#'), "larger than the limit"},
      // Regression: a second document was silently ignored.
      {"connectionMode: inCluster\n---\nconnectionMode: agentless\n",
       "2 YAML documents found (separated by ---); one is expected"},
      {"", "no YAML document found; one is expected"},
      {"---\n", "the document is empty; one mapping is expected"},
  };
  for (const auto& [yaml, message] : cases) {
    EXPECT_THAT(ParseClusterSpecYaml(yaml),
                StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr(message)))
        << yaml.substr(0, 80);
  }
}

// --- The printer ---

v1::ClusterView ProbedView() {
  v1::ClusterView view;
  v1::ClusterState& cluster = *view.mutable_cluster();
  cluster.set_name("edge-1");
  cluster.set_phase(v1::ClusterState::PHASE_ACTIVE);
  *cluster.mutable_spec() = TokenSpec();
  cluster.set_seq(42);
  v1::Condition& reachable = *cluster.mutable_reachable();
  reachable.set_type("Reachable");
  reachable.set_status("False");
  reachable.set_reason("ProbeFailed");
  reachable.set_message("GET /version: connection refused");
  *reachable.mutable_last_transition_time() =
      projections::ToProto(absl::FromUnixSeconds(1767225600));  // 2026-01-01T00:00:00Z
  cluster.set_server_version("v1.29.2");
  cluster.add_api_groups("apps");
  cluster.add_api_groups("batch");
  cluster.add_api_groups("networking.k8s.io");
  cluster.set_auth_type("token");
  *cluster.mutable_last_probe_time() = projections::ToProto(absl::FromUnixSeconds(1767225660));
  *view.mutable_last_probe_time() = projections::ToProto(absl::FromUnixSeconds(1767229200));
  return view;
}

TEST(ClusterPrinterTest, TextShowsTheConnectionTheReachableConditionAndTheLastProbe) {
  const std::string text = FormatClusterText(ProbedView());
  EXPECT_THAT(text, StartsWith("cluster edge-1 (active)\n"));
  EXPECT_THAT(text,
              HasSubstr("connection:     agentless, auth token: Secret edge-1-token, key token\n"));
  EXPECT_THAT(text, HasSubstr("namespace:      fleet\n"));
  EXPECT_THAT(text, HasSubstr("server:         https://edge-1.example:6443\n"));
  EXPECT_THAT(text, HasSubstr("ca:             ConfigMap edge-1-ca, key ca.crt\n"));
  EXPECT_THAT(text, HasSubstr("reachable:      False/ProbeFailed (since 2026-01-01T00:00:00Z)\n"));
  EXPECT_THAT(text, HasSubstr("message:        GET /version: connection refused\n"));
  EXPECT_THAT(text, HasSubstr("server version: v1.29.2\n"));
  EXPECT_THAT(text, HasSubstr("api groups:     3\n"));
  EXPECT_THAT(text, HasSubstr("probe auth:     token\n"));
  // The view's time (a later unrecorded probe), not the recorded 00:01:00.
  EXPECT_THAT(text, HasSubstr("last probe:     2026-01-01T01:00:00Z\n"));
  EXPECT_THAT(text, HasSubstr("seq:            42\n"));

  v1::ClusterView home;
  home.mutable_cluster()->set_name("home");
  *home.mutable_cluster()->mutable_spec() = InClusterSpec();
  const std::string home_text = FormatClusterText(home);
  EXPECT_THAT(home_text, HasSubstr("connection:     inCluster\n"));
  EXPECT_THAT(home_text, Not(HasSubstr("server:")));
  EXPECT_THAT(home_text, HasSubstr("last probe:     -\n"));
  EXPECT_THAT(home_text, HasSubstr("reachable:      -/- (since -)\n"));
}

// Regression: a kubeconfig cluster showed "ca: system trust store" (and the spec's own
// server), while the kubeconfig's server and CA are used.
TEST(ClusterPrinterTest, AKubeconfigClusterShowsServerAndCaFromTheKubeconfig) {
  v1::ClusterView view = ProbedView();
  *view.mutable_cluster()->mutable_spec() = KubeconfigSpec();
  std::string text = FormatClusterText(view);
  EXPECT_THAT(text, AllOf(HasSubstr("server:         from the kubeconfig\n"),
                          HasSubstr("ca:             from the kubeconfig\n"),
                          Not(HasSubstr("system trust store"))));
  // Also for a spec recorded with a server and CA before they were cleared.
  view.mutable_cluster()->mutable_spec()->mutable_agentless()->set_server(kEdgeServer);
  view.mutable_cluster()->mutable_spec()->mutable_agentless()->mutable_ca_ref()->set_name("ca");
  text = FormatClusterText(view);
  EXPECT_THAT(
      text, AllOf(HasSubstr("server:         from the kubeconfig\n"),
                  HasSubstr("ca:             from the kubeconfig\n"), Not(HasSubstr(kEdgeServer))));
  // Other auth types without a CA use the system trust store.
  *view.mutable_cluster()->mutable_spec() = TokenSpec();
  view.mutable_cluster()->mutable_spec()->mutable_agentless()->clear_ca_ref();
  EXPECT_THAT(FormatClusterText(view), HasSubstr("ca:             system trust store\n"));
}

// Regression: a deregistered cluster showed its last Reachable condition as if it were its
// current health.
TEST(ClusterPrinterTest, ADeregisteredClusterShowsItsLastProbeAsHistory) {
  v1::ClusterView view = ProbedView();
  view.mutable_cluster()->set_phase(v1::ClusterState::PHASE_DEREGISTERED);
  EXPECT_THAT(FormatClusterText(view),
              HasSubstr("reachable:      not probed (deregistered); last probe before: "
                        "False/ProbeFailed (since 2026-01-01T00:00:00Z)\n"));
  v1::ListClustersResponse listed;
  *listed.add_clusters() = view;
  const std::vector<std::string> lines =
      absl::StrSplit(FormatClusterTable(listed.clusters()), '\n', absl::SkipEmpty());
  ASSERT_EQ(lines.size(), 2u);
  std::vector<std::string> columns = absl::StrSplit(lines[1], ' ', absl::SkipEmpty());
  EXPECT_THAT(columns, ::testing::ElementsAre("edge-1", "deregistered", "agentless", "token", "-",
                                              "v1.29.2", "3", "2026-01-01T01:00:00Z"));
}

TEST(ClusterPrinterTest, AuthBlocksInWords) {
  v1::ClusterSpec spec = FullAgentlessSpec();
  EXPECT_EQ(FormatClusterAuth(spec),
            "agentless, auth execPlugin: provider https://creds.example/exec, CA Secret "
            "creds-ca, key ca.crt (default), token Secret creds-token, key t");
  spec.mutable_agentless()->mutable_auth()->set_type("clientCert");
  EXPECT_EQ(FormatClusterAuth(spec),
            "agentless, auth clientCert: Secret edge-1-client, keys tls.crt and tls.key");
  spec.mutable_agentless()->mutable_auth()->set_type("kubeconfig");
  EXPECT_EQ(FormatClusterAuth(spec),
            "agentless, auth kubeconfig: Secret edge-1-kubeconfig, key value (default)");
  spec.mutable_agentless()->mutable_auth()->set_type("oidc");
  EXPECT_EQ(FormatClusterAuth(spec), "agentless, auth oidc: no oidc block");
}

TEST(ClusterPrinterTest, ChangeSummaryTellsWhatWasAppended) {
  v1::ClusterChangeResponse response;
  *response.mutable_cluster() = ProbedView().cluster();
  response.set_seq(7);
  EXPECT_THAT(FormatClusterChangeText("registered", response),
              StartsWith("registered cluster edge-1 (seq 7)\ncluster edge-1 (active)\n"));
  // Without a live time, the recorded last probe.
  EXPECT_THAT(FormatClusterChangeText("registered", response),
              HasSubstr("last probe:     2026-01-01T00:01:00Z\n"));
  response.set_replayed(true);
  EXPECT_THAT(FormatClusterChangeText("registered", response),
              StartsWith("registered cluster edge-1: request already answered, nothing appended "
                         "(seq 7)\n"));
  response.set_replayed(false);
  response.set_seq(0);
  EXPECT_THAT(FormatClusterChangeText("registered", response),
              StartsWith("registered cluster edge-1: already in that state, nothing appended\n"));
}

TEST(ClusterPrinterTest, TableRowsShowModeAuthReachabilityAndGroups) {
  v1::ListClustersResponse listed;
  *listed.add_clusters() = ProbedView();
  const std::vector<std::string> lines =
      absl::StrSplit(FormatClusterTable(listed.clusters()), '\n', absl::SkipEmpty());
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_THAT(lines[0], AllOf(StartsWith("CLUSTER "), HasSubstr(" REACHABLE "),
                              ::testing::EndsWith(" LAST PROBE")));
  std::vector<std::string> columns = absl::StrSplit(lines[1], ' ', absl::SkipEmpty());
  EXPECT_THAT(columns,
              ::testing::ElementsAre("edge-1", "active", "agentless", "token", "False/ProbeFailed",
                                     "v1.29.2", "3", "2026-01-01T01:00:00Z"));
}

// Regression: the VERSION column had a fixed width, so a long server version ran into the
// GROUPS column and shifted the rest of its row.
TEST(ClusterPrinterTest, TableColumnsFitTheirLongestValue) {
  constexpr char kLongVersion[] = "v1.29.3+k3s1-gke.100";
  v1::ListClustersResponse listed;
  *listed.add_clusters() = ProbedView();
  v1::ClusterView& long_version = *listed.add_clusters();
  long_version = ProbedView();
  long_version.mutable_cluster()->set_name("edge-2-with-a-longer-name");
  long_version.mutable_cluster()->set_server_version(kLongVersion);
  const std::vector<std::string> lines =
      absl::StrSplit(FormatClusterTable(listed.clusters()), '\n', absl::SkipEmpty());
  ASSERT_EQ(lines.size(), 3u);
  // Every column starts where its header does, and cells are whole.
  for (const char* header : {"PHASE", "VERSION", "GROUPS", "LAST PROBE"}) {
    const size_t column = lines[0].find(header);
    ASSERT_NE(column, std::string::npos) << header;
    for (size_t row = 1; row < lines.size(); ++row) {
      ASSERT_GT(lines[row].size(), column) << header;
      EXPECT_NE(lines[row][column], ' ') << header << " in row " << row << ": " << lines[row];
      EXPECT_EQ(lines[row].substr(column - 2, 2), "  ") << header << ": " << lines[row];
    }
  }
  EXPECT_EQ(lines[2].substr(lines[0].find("VERSION"), sizeof(kLongVersion) - 1), kLongVersion);
  EXPECT_EQ(lines[2].substr(lines[0].find("GROUPS"), 1), "3");
  EXPECT_EQ(lines[1].substr(lines[0].find("VERSION"), 7), "v1.29.2");
}

TEST(ClusterProbeExitCodeTest, ReachableTrueProbeFailedAndUnsupportedHaveTheirCodes) {
  v1::ClusterView view;
  v1::Condition& reachable = *view.mutable_cluster()->mutable_reachable();
  reachable.set_status("True");
  reachable.set_reason("ProbeSucceeded");
  EXPECT_EQ(ProbeClusterExitCode(view), 0);
  reachable.set_status("False");
  reachable.set_reason("ProbeFailed");
  EXPECT_EQ(ProbeClusterExitCode(view), 3);
  reachable.set_reason("Unsupported");
  EXPECT_EQ(ProbeClusterExitCode(view), 4);
  reachable.set_status("Unknown");
  reachable.set_reason("ProbePending");
  EXPECT_EQ(ProbeClusterExitCode(view), 1);
}

// --- The subcommands against ClusterService served over gRPC ---

class ClusterCliTest : public ClusterApiFixture {
 protected:
  void SetUp() override {
    ClusterApiFixture::SetUp();
    grpc_service_ = std::make_unique<ClusterGrpcService>(clusters_api_.get(), calls_.env());
    grpc::ServerBuilder builder;
    int port = 0;
    builder.AddListeningPort("127.0.0.1:0", grpc::InsecureServerCredentials(), &port);
    builder.RegisterService(grpc_service_.get());
    server_ = builder.BuildAndStart();
    ASSERT_NE(server_, nullptr);
    address_ = "127.0.0.1:" + std::to_string(port);
    AddClusterCommands(dispatcher_);
  }
  void TearDown() override {
    if (server_ != nullptr) server_->Shutdown();
  }

  int Run(std::vector<std::string> args) {
    args.push_back("--server=" + address_);
    args.push_back("--as=alice");
    out_.str("");
    err_.str("");
    return dispatcher_.Run(args, out_, err_);
  }

  std::string WriteFile(const std::string& name, const std::string& text) {
    const std::string path = (dir_.path() / name).string();
    std::ofstream(path) << text;
    return path;
  }

  // The fixture's policy names IdentityService only.
  const AuthorizationPolicy allow_all_ = AuthorizationPolicy::AllowAll();
  CallAuthorizer authorizer_{&allow_all_};
  Dispatcher dispatcher_{"credledger"};
  TestCallEnvironment calls_{&authorizer_};
  std::unique_ptr<ClusterGrpcService> grpc_service_;
  std::unique_ptr<grpc::Server> server_;
  std::string address_;
  std::ostringstream out_;
  std::ostringstream err_;
};

TEST_F(ClusterCliTest, RegisterProbeGetListAndDeregister) {
  ASSERT_EQ(Run({"cluster", "register", "edge-1", "--connection-mode", "agentless", "--namespace",
                 "fleet", "--api-server", "https://edge-1.example:6443", "--auth-type", "token",
                 "--token-secret", "edge-1-token", "--request-id", "r1"}),
            0)
      << err_.str();
  EXPECT_THAT(out_.str(), StartsWith("registered cluster edge-1 (seq "));
  EXPECT_THAT(out_.str(), HasSubstr("reachable:      Unknown/ProbePending"));
  ASSERT_OK_AND_ASSIGN(v1::GetClusterResponse stored, [&] {
    v1::GetClusterRequest request;
    request.set_name("edge-1");
    return clusters_api_->GetCluster(request);
  }());
  EXPECT_EQ(stored.cluster().cluster().spec().agentless().auth().token().secret_ref().name(),
            "edge-1-token");

  const std::string file = WriteFile("home.yaml", "connectionMode: inCluster\n");
  ASSERT_EQ(Run({"cluster", "register", "home", "-f", file}), 0) << err_.str();
  EXPECT_THAT(err_.str(), StartsWith("request-id: "));  // generated and printed

  outcome_ = Succeeded(0, "v1.30.0", {"apps"});
  ASSERT_EQ(Run({"cluster", "probe", "edge-1"}), 0) << err_.str();
  EXPECT_THAT(out_.str(), AllOf(HasSubstr("reachable:      True/ProbeSucceeded"),
                                HasSubstr("server version: v1.30.0")));

  ASSERT_EQ(Run({"cluster", "get", "edge-1", "--output", "json"}), 0) << err_.str();
  EXPECT_THAT(out_.str(), HasSubstr("\"reason\":\"ProbeSucceeded\""));

  ASSERT_EQ(Run({"cluster", "deregister", "home"}), 0) << err_.str();
  EXPECT_THAT(out_.str(), AllOf(StartsWith("deregistered cluster home (seq "),
                                HasSubstr("cluster home (deregistered)")));
  ASSERT_EQ(Run({"cluster", "list"}), 0) << err_.str();
  EXPECT_THAT(out_.str(), AllOf(HasSubstr("edge-1 "), Not(HasSubstr("home "))));
  ASSERT_EQ(Run({"cluster", "list", "--include-deregistered"}), 0) << err_.str();
  EXPECT_THAT(out_.str(), HasSubstr("home "));

  // A deregistered cluster is still answered (docs/api.md); a name never registered is not.
  EXPECT_EQ(Run({"cluster", "get", "home"}), 0) << err_.str();
  EXPECT_THAT(out_.str(), StartsWith("cluster home (deregistered)\n"));
  EXPECT_EQ(Run({"cluster", "get", "never"}), 1);
  EXPECT_THAT(err_.str(), HasSubstr("error: NOT_FOUND: cluster \"never\": not registered"));
  // Regression: deregistering or probing it again said "not registered" while `get` answers.
  for (const char* verb : {"deregister", "probe"}) {
    EXPECT_EQ(Run({"cluster", verb, "home"}), 1) << verb;
    EXPECT_THAT(err_.str(), HasSubstr("error: NOT_FOUND: cluster \"home\": deregistered; "
                                      "register it again to use it (call request id "))
        << verb;
  }
}

TEST_F(ClusterCliTest, UsageErrorsAndSpecFileErrorsSendNothing) {
  const int64_t head = store_->HeadSeq();
  EXPECT_EQ(Run({"cluster", "register", "edge-1"}), 2);
  EXPECT_THAT(err_.str(), HasSubstr("--connection-mode: required"));
  EXPECT_EQ(Run({"cluster", "register", "edge-1", "--connection-mode", "remote"}), 2);
  EXPECT_THAT(err_.str(), HasSubstr("connection-mode"));
  EXPECT_EQ(Run({"cluster", "register", "edge-1", "--connection-mode", "inCluster", "--auth-type",
                 "token"}),
            2);
  EXPECT_THAT(err_.str(), HasSubstr("--auth-type: only for --connection-mode agentless"));
  const std::string file = WriteFile("dup.yaml",
                                     "connectionMode: inCluster\nnamespace: a\n"
                                     "namespace: b\n");
  EXPECT_EQ(Run({"cluster", "register", "edge-1", "-f", file}), 1);
  EXPECT_THAT(err_.str(), HasSubstr("namespace: duplicate key"));
  EXPECT_EQ(Run({"cluster", "register", "edge-1", "-f", file, "--namespace", "fleet"}), 2);
  EXPECT_THAT(err_.str(), HasSubstr("are exclusive"));
  EXPECT_EQ(
      Run({"cluster", "register", "edge-1", "--connection-mode", "inCluster", "--request-id="}), 2);
  // Regression: a missing --namespace or --api-server came back from the server as
  // INVALID_ARGUMENT about spec.namespace or spec.agentless.server.
  EXPECT_EQ(Run({"cluster", "register", "edge-1", "--connection-mode", "agentless", "--api-server",
                 "https://edge-1.example:6443", "--auth-type", "token", "--token-secret", "t"}),
            2);
  EXPECT_THAT(err_.str(),
              StartsWith("error: --namespace: required with --connection-mode agentless"));
  EXPECT_EQ(Run({"cluster", "register", "edge-1", "--connection-mode", "agentless", "--namespace",
                 "fleet", "--auth-type", "token", "--token-secret", "t"}),
            2);
  EXPECT_THAT(err_.str(), StartsWith("error: --api-server: required with --auth-type token"));
  // Regression: a known type in another case was reported as a misplaced block flag.
  EXPECT_EQ(Run({"cluster", "register", "edge-1", "--connection-mode", "agentless", "--namespace",
                 "fleet", "--api-server", "https://edge-1.example:6443", "--auth-type", "Token",
                 "--token-secret", "tok"}),
            2);
  EXPECT_THAT(err_.str(), StartsWith("error: --auth-type: \"Token\" is not an auth type; auth "
                                     "types are case-sensitive: did you mean token?\n"));
  // The server's validation comes back naming the field.
  EXPECT_EQ(Run({"cluster", "register", "edge-1", "--connection-mode", "agentless", "--namespace",
                 "fleet", "--api-server", "http://edge-1.example", "--auth-type", "token",
                 "--token-secret", "t"}),
            1);
  EXPECT_THAT(err_.str(), HasSubstr("INVALID_ARGUMENT: spec.agentless.server: "));
  EXPECT_EQ(store_->HeadSeq(), head);
}

// Regression: `--exec-url "https://h/x?token=..."` was accepted, recorded in the log and shown
// by `cluster get`.
// Regression: an --as value with a control or non-ASCII character aborted the CLI inside gRPC
// (an illegal metadata value), and an argument that is not UTF-8 came back as an empty
// INTERNAL error (protobuf refuses to encode it). Both are usage errors now.
TEST_F(ClusterCliTest, AnUnsendableActorOrArgumentIsAUsageError) {
  const int64_t head = store_->HeadSeq();
  for (const std::string& actor :
       {std::string("x\ny"), std::string("\xc3\xa9"), std::string("a b")}) {
    out_.str("");
    err_.str("");
    EXPECT_EQ(
        dispatcher_.Run({"cluster", "list", "--server=" + address_, "--as", actor}, out_, err_), 2);
    EXPECT_THAT(err_.str(), HasSubstr("error: --as: only printable ASCII without spaces"));
  }
  EXPECT_EQ(Run({"cluster", "get", "\xff"}), 2);
  EXPECT_THAT(err_.str(), HasSubstr("error: argument 3 is not valid UTF-8: \"\\xff\""));
  EXPECT_EQ(store_->HeadSeq(), head);
}

TEST_F(ClusterCliTest, AProviderUrlWithAQueryIsRefusedWithoutEchoingIt) {
  const int64_t head = store_->HeadSeq();
  EXPECT_EQ(
      Run({"cluster", "register", "edge-1", "--connection-mode", "agentless", "--namespace",
           "fleet", "--api-server", "https://edge-1.example:6443", "--auth-type", "execPlugin",
           "--exec-url", "https://h/x?token=SuperSecretQ", "--request-id", "r1"}),
      1);
  EXPECT_THAT(err_.str(),
              AllOf(HasSubstr("error: INVALID_ARGUMENT: spec.agentless.auth.exec_plugin.url: "
                              "must not contain a query"),
                    Not(HasSubstr("SuperSecretQ"))));
  EXPECT_THAT(out_.str(), Not(HasSubstr("SuperSecretQ")));
  EXPECT_EQ(store_->HeadSeq(), head);
}

// Regression: `cluster probe` exited 0 whatever the probe found.
TEST_F(ClusterCliTest, ProbeExitsWithTheOutcomeAndStillPrintsTheCluster) {
  const std::string file = WriteFile("home.yaml", "connectionMode: inCluster\n");
  ASSERT_EQ(Run({"cluster", "register", "home", "-f", file}), 0) << err_.str();
  outcome_ = Failed(0, "ProbeFailed", "GET /version: connection refused");
  EXPECT_EQ(Run({"cluster", "probe", "home"}), 3) << err_.str();
  EXPECT_THAT(out_.str(), AllOf(StartsWith("cluster home (active)\n"),
                                HasSubstr("reachable:      False/ProbeFailed")));
  outcome_ = Failed(0, "Unsupported", "auth type \"oidc\" is not supported");
  EXPECT_EQ(Run({"cluster", "probe", "home", "--output", "json"}), 4) << err_.str();
  EXPECT_THAT(out_.str(), HasSubstr("\"reason\":\"Unsupported\""));
  outcome_ = Succeeded(0);
  EXPECT_EQ(Run({"cluster", "probe", "home"}), 0) << err_.str();
  // `cluster get` shows the condition without judging it.
  outcome_ = Failed(0, "ProbeFailed", "GET /version: connection refused");
  EXPECT_EQ(Run({"cluster", "probe", "home"}), 3);
  EXPECT_EQ(Run({"cluster", "get", "home"}), 0) << err_.str();
  ASSERT_EQ(Run({"cluster", "probe", "--help"}), 0);
  EXPECT_THAT(out_.str(), AllOf(HasSubstr("3  ProbeFailed"), HasSubstr("4  Unsupported")));
}

// Regression: `--token-secret ""` read as "not given" and reached the server, while -f
// refused the same empty name.
TEST_F(ClusterCliTest, FlagsGivenWithAnEmptyValueAreUsageErrors) {
  const int64_t head = store_->HeadSeq();
  const std::vector<std::string> token = {"cluster",   "register",    "edge-1", "--connection-mode",
                                          "agentless", "--namespace", "fleet",  "--auth-type",
                                          "token"};
  auto with = [&](std::vector<std::string> more) {
    std::vector<std::string> args = token;
    args.insert(args.end(), more.begin(), more.end());
    return args;
  };
  EXPECT_EQ(Run(with({"--api-server", "https://edge-1.example:6443", "--token-secret", ""})), 2);
  EXPECT_THAT(err_.str(), HasSubstr("error: --token-secret: empty value"));
  EXPECT_EQ(Run(with({"--api-server=", "--token-secret", "t"})), 2);
  EXPECT_THAT(err_.str(), HasSubstr("error: --api-server: empty value"));
  EXPECT_EQ(
      Run({"cluster", "register", "edge-1", "--connection-mode", "inCluster", "--namespace="}), 2);
  EXPECT_THAT(err_.str(), HasSubstr("error: --namespace: empty value"));
  EXPECT_EQ(Run({"cluster", "register", "edge-1", "-f", ""}), 2);
  EXPECT_THAT(err_.str(), HasSubstr("error: --file: empty value"));
  // The block flags must fit --auth-type before anything is sent.
  EXPECT_EQ(Run(with({"--api-server", "https://edge-1.example:6443", "--client-cert-secret",
                      "edge-1-client"})),
            2);
  EXPECT_THAT(err_.str(),
              HasSubstr("error: --client-cert-secret: only with --auth-type clientCert"));
  EXPECT_EQ(store_->HeadSeq(), head);
}

TEST_F(ClusterCliTest, KubeconfigAuthWithAServerOrCaNotesThatTheyAreIgnored) {
  ASSERT_EQ(Run({"cluster", "register", "edge-1", "--connection-mode", "agentless", "--namespace",
                 "fleet", "--auth-type", "kubeconfig", "--kubeconfig-secret", "edge-1-kubeconfig",
                 "--api-server", "https://edge-1.example:6443", "--ca-ref", "ConfigMap/edge-1-ca",
                 "--request-id", "r1"}),
            0)
      << err_.str();
  EXPECT_THAT(err_.str(), HasSubstr("note: --api-server, --ca-ref: ignored with --auth-type "
                                    "kubeconfig; the kubeconfig names the API server and its "
                                    "CA\n"));
  // Not stored, so not shown.
  ASSERT_EQ(Run({"cluster", "get", "edge-1"}), 0) << err_.str();
  EXPECT_THAT(out_.str(), AllOf(HasSubstr("server:         from the kubeconfig\n"),
                                Not(HasSubstr("edge-1.example")), Not(HasSubstr("edge-1-ca"))));
  ASSERT_EQ(Run({"cluster", "register", "edge-2", "--connection-mode", "agentless", "--namespace",
                 "fleet", "--auth-type", "kubeconfig", "--kubeconfig-secret", "edge-2-kubeconfig",
                 "--request-id", "r2"}),
            0)
      << err_.str();
  EXPECT_THAT(err_.str(), Not(HasSubstr("note:")));
  const std::string file =
      WriteFile("kubeconfig.yaml",
                "connectionMode: agentless\nnamespace: fleet\nagentless:\n"
                "  server: https://edge-3.example:6443\n  auth:\n    type: kubeconfig\n"
                "    kubeconfig: {secretRef: {name: edge-3-kubeconfig}}\n");
  ASSERT_EQ(Run({"cluster", "register", "edge-3", "-f", file}), 0) << err_.str();
  EXPECT_THAT(err_.str(), HasSubstr("note: agentless.server: ignored with auth type kubeconfig"));
}

// Regression: the second document of a spec file was silently ignored.
TEST_F(ClusterCliTest, ASpecFileWithTwoDocumentsIsRefusedNamingTheFile) {
  const int64_t head = store_->HeadSeq();
  const std::string file = WriteFile(
      "two.yaml", "connectionMode: inCluster\n---\nconnectionMode: agentless\nnamespace: x\n");
  EXPECT_EQ(Run({"cluster", "register", "home", "-f", file}), 1);
  EXPECT_THAT(err_.str(),
              HasSubstr(absl::StrCat("error: INVALID_ARGUMENT: \"", file,
                                     "\": 2 YAML documents found (separated by ---); one is "
                                     "expected")));
  EXPECT_EQ(store_->HeadSeq(), head);
}

TEST_F(ClusterCliTest, HelpDescribesTheSpecFile) {
  ASSERT_EQ(Run({"cluster", "register", "--help"}), 0);
  EXPECT_THAT(out_.str(), AllOf(HasSubstr("connectionMode: agentless"), HasSubstr("--api-server"),
                                HasSubstr("--exec-token-secret"), HasSubstr("-f")));
  ASSERT_EQ(Run({"cluster", "--help"}), 0);
  EXPECT_THAT(out_.str(), AllOf(HasSubstr("cluster probe"), HasSubstr("cluster deregister")));
}

}  // namespace cluster_cli_test
}  // namespace credledger::cli
