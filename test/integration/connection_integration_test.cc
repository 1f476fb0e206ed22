// Registered clusters and source verification end to end (docs/connections.md, "Clusters" and
// "Sources"): a real credledger Server (SQLite file, gRPC on 127.0.0.1 port 0) whose home
// connection is a kubeconfig with relative paths to the test Kubernetes API server. A second
// test API server is the registered "edge" cluster, reached with a token or a client
// certificate read from Secrets of the home cluster; an identity mirrors into it. Sources are
// verified against a local HTTPS registry with a private CA.
#include <grpcpp/grpcpp.h>

#include <fstream>
#include <functional>
#include <memory>
#include <sstream>
#include <string>

#include "absl/strings/escaping.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "credledger/v1/api.grpc.pb.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "kubebridge/client/json_util.h"
#include "kubebridge/client/kube_client.h"
#include "kubebridge/client/kubeconfig.h"
#include "kubebridge/credentials/agent_objects.h"
#include "service/server/server.h"
#include "store/event_codec.h"
#include "store/event_store.h"
#include "test/kubeapi/api_server.h"
#include "test/kubebridge/local_https_server.h"
#include "test/support/rbac_objects.h"
#include "test/support/status_matchers.h"
#include "test/support/temp_dir.h"

namespace credledger {
namespace connection_integration_test {

using ::testing::Contains;
using ::testing::HasSubstr;
using ::testing::Not;

// Where the Secrets and ConfigMaps of clusters and sources live on the home cluster.
constexpr char kRefs[] = "platform";
constexpr char kWrongToken[] = "wrong-token-Qz81-never-valid";
constexpr char kRegistryToken[] = "registry-token-Jm4-Xs9";

kubebridge::ResourceRef Namespaces() { return {"", "v1", "namespaces", "", ""}; }
kubebridge::ResourceRef ConfigMaps(const std::string& ns) {
  return {"", "v1", "configmaps", ns, ""};
}

nlohmann::json SecretWith(const std::string& name, const nlohmann::json& data) {
  nlohmann::json encoded = nlohmann::json::object();
  for (const auto& [key, value] : data.items()) {
    encoded[key] = absl::Base64Escape(value.get<std::string>());
  }
  return {
      {"apiVersion", "v1"}, {"kind", "Secret"}, {"metadata", {{"name", name}}}, {"data", encoded}};
}

class ConnectionIntegrationTest : public ::testing::Test {
 protected:
  void SetUp() override {
    kubeapi::ApiServerOptions home;
    home.state_dir = dir_.path() / "home";
    ASSERT_OK_AND_ASSIGN(home_, kubeapi::ApiServer::Start(home));
    kubeapi::ApiServerOptions edge;
    edge.state_dir = dir_.path() / "edge";
    edge.namespaces = {"team-a"};
    ASSERT_OK_AND_ASSIGN(edge_, kubeapi::ApiServer::Start(edge));
    home_client_ = Client(*home_);
    edge_client_ = Client(*edge_);
    for (const char* ns : {kRefs, "team-a"}) {
      ASSERT_OK(
          home_client_
              ->Create(Namespaces(),
                       {{"apiVersion", "v1"}, {"kind", "Namespace"}, {"metadata", {{"name", ns}}}})
              .status());
    }
    // The edge cluster's CA and its admin token, as an operator would store them.
    ASSERT_OK(home_client_
                  ->Create(kubebridge::SecretResource(kRefs),
                           SecretWith("edge-ca", {{"ca.crt", edge_->ca_pem()}}))
                  .status());
    ASSERT_OK(home_client_
                  ->Create(kubebridge::SecretResource(kRefs),
                           SecretWith("edge-token", {{"token", edge_->admin_token()}}))
                  .status());

    // The service's own kubeconfig names its CA and token by paths relative to itself.
    const std::filesystem::path kube = dir_.path() / "kube";
    std::filesystem::create_directories(kube);
    std::ofstream(kube / "ca.crt") << home_->ca_pem();
    std::ofstream(kube / "token") << home_->admin_token();
    std::ofstream(kube / "config")
        << "apiVersion: v1\nkind: Config\n"
        << "clusters:\n- name: home\n  cluster:\n    server: " << home_->url()
        << "\n    certificate-authority: ca.crt\n"
        << "users:\n- name: svc\n  user:\n    tokenFile: token\n"
        << "contexts:\n- name: home\n  context: {cluster: home, "
           "user: svc}\ncurrent-context: home\n";

    service::ServeOptions options;

    options.grpc.insecure_allow_all = true;
    options.log.db_path = dir_.path() / "var" / "credledger.db";
    options.grpc.listen_address = "127.0.0.1:0";
    options.kube.kubeconfig = kube / "config";
    options.kube.qps = 1000;
    options.kube.burst = 1000;
    ASSERT_OK_AND_ASSIGN(server_, service::Server::Start(options));
    channel_ = grpc::CreateChannel(server_->address(), grpc::InsecureChannelCredentials());
    clusters_ = v1::ClusterService::NewStub(channel_);
  }

  void TearDown() override {
    if (server_ != nullptr) server_->Shutdown();
    if (home_client_ != nullptr) home_client_->Stop();
    if (edge_client_ != nullptr) edge_client_->Stop();
  }

  std::unique_ptr<kubebridge::KubeClient> Client(const kubeapi::ApiServer& server) {
    absl::StatusOr<kubebridge::ConnectionConfig> config =
        kubebridge::LoadKubeconfig(server.kubeconfig_path());
    EXPECT_TRUE(config.ok()) << config.status();
    kubebridge::KubeClientOptions options;
    options.rate_limit = {.qps = 0, .burst = 1};
    absl::StatusOr<std::unique_ptr<kubebridge::KubeClient>> client =
        kubebridge::KubeClient::New(*config, options);
    EXPECT_TRUE(client.ok()) << client.status();
    return client.ok() ? *std::move(client) : nullptr;
  }

  static v1::ClusterSpec Agentless(const std::string& server, const std::string& auth_type) {
    v1::ClusterSpec spec;
    spec.set_namespace_(kRefs);
    spec.set_connection_mode(v1::CLUSTER_CONNECTION_MODE_AGENTLESS);
    v1::AgentlessConnection& agentless = *spec.mutable_agentless();
    agentless.set_server(server);
    agentless.mutable_ca_ref()->set_kind("Secret");
    agentless.mutable_ca_ref()->set_name("edge-ca");
    agentless.mutable_auth()->set_type(auth_type);
    return spec;
  }

  v1::ClusterState Register(const std::string& name, const v1::ClusterSpec& spec) {
    grpc::ClientContext context;
    context.AddMetadata("credledger-actor", "alice");
    v1::RegisterClusterRequest request;
    request.set_request_id(absl::StrCat("register-", name, "-", ++requests_));
    request.set_name(name);
    *request.mutable_spec() = spec;
    v1::ClusterChangeResponse response;
    grpc::Status status = clusters_->RegisterCluster(&context, request, &response);
    EXPECT_TRUE(status.ok()) << status.error_message();
    return response.cluster();
  }

  v1::ClusterView Probe(const std::string& name) {
    grpc::ClientContext context;
    v1::ProbeClusterRequest request;
    request.set_name(name);
    v1::GetClusterResponse response;
    grpc::Status status = clusters_->ProbeCluster(&context, request, &response);
    EXPECT_TRUE(status.ok()) << status.error_message();
    return response.cluster();
  }

  // Every event of `stream`, decoded.
  std::vector<v1::Event> Events(const std::string& stream) {
    std::vector<v1::Event> out;
    absl::StatusOr<std::vector<store::RecordedEvent>> read =
        server_->event_store()->ReadStream(stream, 0, 10000);
    EXPECT_TRUE(read.ok()) << read.status();
    if (!read.ok()) return out;
    for (const store::RecordedEvent& recorded : *read) {
      absl::StatusOr<v1::Event> event = store::EventCodec::Default().Decode(recorded);
      EXPECT_TRUE(event.ok()) << event.status();
      if (event.ok()) out.push_back(*std::move(event));
    }
    return out;
  }

  // The bytes of the log's files (database and WAL).
  std::string LogBytes() {
    std::string all;
    for (const char* suffix : {"", "-wal"}) {
      std::ifstream in(dir_.path() / "var" / absl::StrCat("credledger.db", suffix),
                       std::ios::binary);
      std::stringstream bytes;
      bytes << in.rdbuf();
      all += bytes.str();
    }
    return all;
  }

  // Polls `done` until it holds or `limit` passes.
  static bool Eventually(const std::function<bool()>& done,
                         absl::Duration limit = absl::Seconds(30)) {
    const absl::Time give_up = absl::Now() + limit;
    while (!done()) {
      if (absl::Now() >= give_up) return false;
      absl::SleepFor(absl::Milliseconds(20));
    }
    return true;
  }

  testing::TempDir dir_;
  std::unique_ptr<kubeapi::ApiServer> home_;
  std::unique_ptr<kubeapi::ApiServer> edge_;
  std::unique_ptr<kubebridge::KubeClient> home_client_;
  std::unique_ptr<kubebridge::KubeClient> edge_client_;
  std::unique_ptr<service::Server> server_;
  std::shared_ptr<grpc::Channel> channel_;
  std::unique_ptr<v1::ClusterService::Stub> clusters_;
  int requests_ = 0;
};

TEST_F(ConnectionIntegrationTest, InClusterUsesTheServicesKubeconfigWithItsRelativePaths) {
  v1::ClusterSpec spec;
  spec.set_connection_mode(v1::CLUSTER_CONNECTION_MODE_IN_CLUSTER);
  Register("home", spec);
  const v1::ClusterView view = Probe("home");
  EXPECT_EQ(view.cluster().reachable().status(), "True");
  EXPECT_EQ(view.cluster().reachable().reason(), "ProbeSucceeded");
  EXPECT_FALSE(view.cluster().server_version().empty());
  EXPECT_THAT(view.cluster().api_groups(), Contains("rbac.authorization.k8s.io"));
  EXPECT_EQ(view.cluster().auth_type(), "inCluster");
  EXPECT_TRUE(view.has_last_probe_time());
}

TEST_F(ConnectionIntegrationTest, TokenAndClientCertificateClustersAreReachable) {
  v1::ClusterSpec token = Agentless(edge_->url(), "token");
  token.mutable_agentless()->mutable_auth()->mutable_token()->mutable_secret_ref()->set_name(
      "edge-token");
  Register("edge-token", token);
  v1::ClusterView view = Probe("edge-token");
  EXPECT_EQ(view.cluster().reachable().reason(), "ProbeSucceeded")
      << view.cluster().reachable().message();
  EXPECT_EQ(view.cluster().auth_type(), "token");

  ASSERT_OK_AND_ASSIGN(kubeapi::ClientCertificate certificate,
                       edge_->IssueClientCertificate("edge-operator", {"system:masters"}));
  ASSERT_OK(home_client_
                ->Create(kubebridge::SecretResource(kRefs),
                         SecretWith("edge-client", {{"tls.crt", certificate.certificate_pem},
                                                    {"tls.key", certificate.key_pem}}))
                .status());
  v1::ClusterSpec client_cert = Agentless(edge_->url(), "clientCert");
  client_cert.mutable_agentless()->mutable_auth()->mutable_client_cert()->set_secret_name(
      "edge-client");
  Register("edge-cert", client_cert);
  view = Probe("edge-cert");
  EXPECT_EQ(view.cluster().reachable().reason(), "ProbeSucceeded")
      << view.cluster().reachable().message();
}

// docs/connections.md, "Error classes": a failed probe is ProbeFailed, an auth
// type without an authenticator is Unsupported; a rotated Secret is used at the next
// connection ("no cache of clients or credentials").
TEST_F(ConnectionIntegrationTest, ProbeFailuresAreClassifiedAndARotatedSecretIsUsedNextTime) {
  ASSERT_OK(home_client_
                ->Create(kubebridge::SecretResource(kRefs),
                         SecretWith("rotating", {{"token", kWrongToken}}))
                .status());
  v1::ClusterSpec spec = Agentless(edge_->url(), "token");
  spec.mutable_agentless()->mutable_auth()->mutable_token()->mutable_secret_ref()->set_name(
      "rotating");
  Register("edge", spec);
  v1::ClusterView view = Probe("edge");
  EXPECT_EQ(view.cluster().reachable().status(), "False");
  EXPECT_EQ(view.cluster().reachable().reason(), "ProbeFailed");
  EXPECT_THAT(view.cluster().reachable().message(), Not(HasSubstr(kWrongToken)));

  ASSERT_OK_AND_ASSIGN(nlohmann::json live,
                       home_client_->Get(kubebridge::SecretResource(kRefs, "rotating")));
  nlohmann::json rotated = SecretWith("rotating", {{"token", edge_->admin_token()}});
  rotated["metadata"]["resourceVersion"] = live["metadata"]["resourceVersion"];
  ASSERT_OK(home_client_->Update(kubebridge::SecretResource(kRefs, "rotating"), rotated).status());
  view = Probe("edge");
  EXPECT_EQ(view.cluster().reachable().reason(), "ProbeSucceeded")
      << view.cluster().reachable().message();

  v1::ClusterSpec oidc = Agentless(edge_->url(), "oidc");
  Register("edge-oidc", oidc);
  view = Probe("edge-oidc");
  EXPECT_EQ(view.cluster().reachable().reason(), "Unsupported");

  // Each outcome was recorded once, with no credential in the log.
  int probes = 0;
  for (const v1::Event& e : Events("cluster/edge")) probes += e.has_cluster_probed() ? 1 : 0;
  EXPECT_EQ(probes, 2);
  const std::string log = LogBytes();
  EXPECT_FALSE(absl::StrContains(log, kWrongToken));
  EXPECT_FALSE(absl::StrContains(log, edge_->admin_token()));
}

TEST_F(ConnectionIntegrationTest, AnIdentityMirrorsIntoARegisteredCluster) {
  v1::ClusterSpec spec = Agentless(edge_->url(), "token");
  spec.mutable_agentless()->mutable_auth()->mutable_token()->mutable_secret_ref()->set_name(
      "edge-token");
  Register("edge", spec);
  ASSERT_OK(home_client_
                ->Create(kubebridge::SecretResource(kRefs),
                         SecretWith("cloud-keys", {{"access_key", "AKIA-edge-0001"}}))
                .status());
  // Without a policy file the caller's name is the Kubernetes user of the access review.
  ASSERT_OK(home_client_
                ->Create(kubebridge::RoleResource(kRefs),
                         testing::SecretReaderRole("read-cloud-keys", "cloud-keys"))
                .status());
  ASSERT_OK(home_client_
                ->Create(kubebridge::RoleBindingResource(kRefs),
                         testing::RoleBindingTo("alice-reads", "read-cloud-keys", "User", "alice"))
                .status());

  std::unique_ptr<v1::IdentityService::Stub> identities = v1::IdentityService::NewStub(channel_);
  {
    grpc::ClientContext context;
    context.AddMetadata("credledger-actor", "alice");
    v1::CreateIdentityRequest request;
    request.set_request_id("create-cloud");
    request.set_name("cloud");
    request.mutable_spec()->mutable_secret_ref()->set_namespace_(kRefs);
    request.mutable_spec()->mutable_secret_ref()->set_name("cloud-keys");
    request.mutable_spec()->mutable_allowed_namespaces()->add_list("team-a");
    request.mutable_spec()->set_cluster("edge");
    v1::IdentityChangeResponse response;
    grpc::Status status = identities->CreateIdentity(&context, request, &response);
    ASSERT_TRUE(status.ok()) << status.error_message();
  }
  // The bound object lives in the registered cluster, beside the mirror that references it.
  ASSERT_OK_AND_ASSIGN(
      nlohmann::json consumer,
      edge_client_->Create(
          kubebridge::ResourceRef{"", "v1", "configmaps", "team-a", ""},
          {{"apiVersion", "v1"}, {"kind", "ConfigMap"}, {"metadata", {{"name", "consumer"}}}}));
  {
    grpc::ClientContext context;
    context.AddMetadata("credledger-actor", "alice");
    v1::BindIdentityRequest request;
    request.set_request_id("bind-cloud");
    request.set_identity("cloud");
    request.set_namespace_("team-a");
    v1::OwnerReference& owner = *request.mutable_owner();
    owner.set_api_version("v1");
    owner.set_kind("ConfigMap");
    owner.set_name("consumer");
    owner.set_uid(kubebridge::StringAt(consumer, {"metadata", "uid"}));
    v1::IdentityChangeResponse response;
    grpc::Status status = identities->BindIdentity(&context, request, &response);
    ASSERT_TRUE(status.ok()) << status.error_message();
  }
  ASSERT_TRUE(Eventually([&] {
    return edge_client_->Get(kubebridge::SecretResource("team-a", "captf-creds-cloud")).ok();
  }));
  ASSERT_OK_AND_ASSIGN(nlohmann::json mirror, edge_client_->Get(kubebridge::SecretResource(
                                                  "team-a", "captf-creds-cloud")));
  EXPECT_EQ(mirror["data"]["access_key"], absl::Base64Escape("AKIA-edge-0001"));
  EXPECT_THAT(home_client_->Get(kubebridge::SecretResource("team-a", "captf-creds-cloud")),
              testing::StatusIs(absl::StatusCode::kNotFound));

  // A registered cluster that an identity mirrors into cannot be deregistered.
  grpc::ClientContext context;
  v1::DeregisterClusterRequest request;
  request.set_request_id("deregister-edge");
  request.set_name("edge");
  v1::ClusterChangeResponse response;
  grpc::Status status = clusters_->DeregisterCluster(&context, request, &response);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::FAILED_PRECONDITION);
  EXPECT_THAT(status.error_message(), HasSubstr("cloud"));
}

TEST_F(ConnectionIntegrationTest, VerifySourceRecordsTheOutcomeWithoutTheCredential) {
  std::unique_ptr<kubebridge::LocalHttpsServer> registry = kubebridge::LocalHttpsServer::Start();
  ASSERT_NE(registry, nullptr);
  registry->Respond("/v2/", 200, "{}");
  registry->RequireAuthorization(absl::StrCat("Bearer ", kRegistryToken));
  ASSERT_OK(home_client_
                ->Create(kubebridge::SecretResource(kRefs),
                         SecretWith("registry-creds", {{"token", kRegistryToken}}))
                .status());
  ASSERT_OK(home_client_
                ->Create(ConfigMaps(kRefs), {{"apiVersion", "v1"},
                                             {"kind", "ConfigMap"},
                                             {"metadata", {{"name", "registry-ca"}}},
                                             {"data", {{"ca.crt", registry->ca_pem()}}}})
                .status());

  std::unique_ptr<v1::SourceService::Stub> sources = v1::SourceService::NewStub(channel_);
  v1::VerifySourceRequest request;
  request.set_request_id("verify-registry");
  request.set_name("registry");
  v1::SourceSpec& source = *request.mutable_source();
  source.set_kind(v1::SOURCE_KIND_OCI);
  source.set_url(absl::StrCat("oci://127.0.0.1:", registry->port(), "/team/app"));
  source.set_namespace_(kRefs);
  source.mutable_auth()->set_type("bearer");
  source.mutable_auth()->mutable_bearer()->set_secret_name("registry-creds");
  source.mutable_tls()->mutable_ca_public_cert_ref()->set_kind("ConfigMap");
  source.mutable_tls()->mutable_ca_public_cert_ref()->set_name("registry-ca");
  grpc::ClientContext context;
  context.AddMetadata("credledger-actor", "alice");
  v1::VerifySourceResponse response;
  grpc::Status status = sources->VerifySource(&context, request, &response);
  ASSERT_TRUE(status.ok()) << status.error_message();
  EXPECT_EQ(response.result().reason(), "Verified") << response.result().message();
  EXPECT_FALSE(response.retryable());
  EXPECT_THAT(response.result().notes(), Contains(HasSubstr("first pull")));
  EXPECT_EQ(registry->requests().back().authorization, absl::StrCat("Bearer ", kRegistryToken));

  const std::vector<v1::Event> events = Events(absl::StrCat("source/", kRefs, "/registry"));
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].source_verified().auth_type(), "bearer");
  EXPECT_EQ(events[0].source_verified().url(), source.url());
  EXPECT_FALSE(absl::StrContains(LogBytes(), kRegistryToken));
}

}  // namespace connection_integration_test
}  // namespace credledger
