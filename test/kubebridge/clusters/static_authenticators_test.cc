// The kubeconfig, token and clientCert authenticators against the test API server: each
// builds the expected ConnectionConfig from the Secrets of the cluster's namespace, and that
// connection really authenticates (the server's 403 names the user it saw).
// docs/connections.md, "Auth types".
#include "kubebridge/clusters/static_authenticators.h"

#include <string>

#include "absl/strings/escaping.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "kubebridge/model/connection_errors.h"
#include "test/kubebridge/clusters/cluster_auth_fixture.h"

namespace credledger::kubebridge {
namespace static_authenticators_test {

using ::credledger::testing::StatusIs;
using ::testing::HasSubstr;
using ::testing::Not;

// Made-up PEM whose body must never appear in a message.
constexpr char kBadPem[] =
    "-----BEGIN CERTIFICATE-----\nTk9UQUNFUlRJRklDQVRFYm9keQ==\n-----END CERTIFICATE-----\n";
constexpr char kBadPemBody[] = "Tk9UQUNFUlRJRklDQVRFYm9keQ";

class StaticAuthenticatorsTest : public ClusterAuthFixture {
 protected:
  void SetUp() override {
    ClusterAuthFixture::SetUp();
    CreateClusterCa();
  }

  // Cluster `name` of auth type clientCert reading Secret fleet/`secret`.
  v1::ClusterState ClientCertCluster(const std::string& name, const std::string& secret) {
    v1::ClusterState cluster = AgentlessCluster(name, kAuthClientCert);
    cluster.mutable_spec()
        ->mutable_agentless()
        ->mutable_auth()
        ->mutable_client_cert()
        ->set_secret_name(secret);
    return cluster;
  }

  // The kubeconfig Secret reference of `cluster` (created when unset).
  static v1::SecretKeyRef& KubeconfigRef(v1::ClusterState& cluster) {
    return *cluster.mutable_spec()
                ->mutable_agentless()
                ->mutable_auth()
                ->mutable_kubeconfig()
                ->mutable_secret_ref();
  }

  ClusterAuthRequest Request(const v1::ClusterState& cluster) {
    return ClusterAuthRequest{.cluster = cluster.name(), .spec = cluster.spec()};
  }

  // A kubeconfig for the test API server with `user_fields` (YAML flow mapping entries).
  std::string Kubeconfig(const std::string& cluster_fields, const std::string& user_fields) {
    return absl::StrCat(
        "apiVersion: v1\nkind: Config\ncurrent-context: edge\n",
        "contexts: [{name: edge, context: {cluster: c, user: u, namespace: apps}}]\n",
        "clusters: [{name: c, cluster: {server: \"", server_->url(), "\", ", cluster_fields,
        "}}]\n", "users: [{name: u, user: {", user_fields, "}}]\n");
  }
  std::string InlineCa() {
    return absl::StrCat("certificate-authority-data: ", absl::Base64Escape(server_->ca_pem()));
  }
};

TEST_F(StaticAuthenticatorsTest, TokenConnectsAsTheServiceAccountOfTheSecret) {
  const std::string token = ServiceAccountToken("edge-agent");
  PutSecret("edge-token", {{"token", absl::StrCat("  ", token, "\n")}});
  v1::ClusterState cluster = TokenCluster("edge-token");
  cluster.mutable_spec()->mutable_agentless()->set_server(server_->url() + "/");
  TokenAuthenticator authenticator;
  ASSERT_OK_AND_ASSIGN(ConnectionConfig config,
                       authenticator.Authenticate(Request(cluster), *resolver_, nullptr));
  EXPECT_EQ(config.server, server_->url());
  EXPECT_EQ(config.ca_pem, server_->ca_pem());
  EXPECT_EQ(config.token, token);
  EXPECT_TRUE(config.client_certificate_pem.empty());
  EXPECT_EQ(config.source, "cluster \"edge-1\" (token)");
  EXPECT_THAT(ForbiddenMessageAs(config),
              HasSubstr("User \"system:serviceaccount:fleet:edge-agent\" cannot get"));
}

TEST_F(StaticAuthenticatorsTest, EveryAuthenticatorWithoutItsBlockIsUnsupported) {
  KubeconfigAuthenticator kubeconfig;
  TokenAuthenticator token;
  ClientCertAuthenticator client_cert;
  const struct {
    const char* type;
    ClusterAuthenticator* authenticator;
    const char* block;
  } cases[] = {{kAuthKubeconfig, &kubeconfig, "kubeconfig"},
               {kAuthToken, &token, "token"},
               {kAuthClientCert, &client_cert, "client_cert"}};
  for (const auto& c : cases) {
    absl::StatusOr<ConnectionConfig> config = c.authenticator->Authenticate(
        Request(AgentlessCluster("edge-1", c.type)), *resolver_, nullptr);
    EXPECT_TRUE(IsUnsupported(config.status())) << c.type << ": " << config.status();
    EXPECT_EQ(config.status().message(),
              absl::StrCat("auth type \"", c.type, "\" needs spec.agentless.auth.", c.block,
                           ", which is not set"));
  }
}

TEST_F(StaticAuthenticatorsTest, TokenErrorsNameTheFieldOrKey) {
  TokenAuthenticator authenticator;
  PutSecret("blank", {{"token", " \n"}});
  v1::ClusterState cluster = TokenCluster("blank");
  EXPECT_THAT(authenticator.Authenticate(Request(cluster), *resolver_, nullptr),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       "Secret \"fleet/blank\" key \"token\" holds an empty token"));
  cluster.mutable_spec()->mutable_agentless()->set_server("");
  EXPECT_THAT(authenticator.Authenticate(Request(cluster), *resolver_, nullptr),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       "auth type \"token\" needs spec.agentless.server, which is not set"));
  cluster.mutable_spec()->mutable_agentless()->set_server("http://plain.example");
  EXPECT_THAT(authenticator.Authenticate(Request(cluster), *resolver_, nullptr),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("must start with https://")));
}

// A URL's scheme is case-insensitive: a server cluster validation accepted as "HTTPS://" is
// connected to, not refused here.
TEST_F(StaticAuthenticatorsTest, TheServersSchemeIsReadWhateverItsCase) {
  kubeapi::ClientCertificate issued;
  ASSERT_OK_AND_ASSIGN(issued, server_->IssueClientCertificate("edge-operator", {"fleet-ops"}));
  PutSecret("edge-tls", {{"tls.crt", issued.certificate_pem}, {"tls.key", issued.key_pem}});
  v1::ClusterState cluster = ClientCertCluster("edge-2", "edge-tls");
  const std::string url = server_->url();
  ASSERT_TRUE(absl::StartsWith(url, "https://")) << url;
  cluster.mutable_spec()->mutable_agentless()->set_server("HTTPS://" + url.substr(8));
  ClientCertAuthenticator authenticator;
  ASSERT_OK_AND_ASSIGN(ConnectionConfig config,
                       authenticator.Authenticate(Request(cluster), *resolver_, nullptr));
  EXPECT_EQ(config.server, "HTTPS://" + url.substr(8));
}

TEST_F(StaticAuthenticatorsTest, ClientCertConnectsAsTheCertificateSubject) {
  kubeapi::ClientCertificate issued;
  ASSERT_OK_AND_ASSIGN(issued, server_->IssueClientCertificate("edge-operator", {"fleet-ops"}));
  PutSecret("edge-tls", {{"tls.crt", issued.certificate_pem}, {"tls.key", issued.key_pem}});
  v1::ClusterState cluster = ClientCertCluster("edge-2", "edge-tls");
  ClientCertAuthenticator authenticator;
  ASSERT_OK_AND_ASSIGN(ConnectionConfig config,
                       authenticator.Authenticate(Request(cluster), *resolver_, nullptr));
  EXPECT_EQ(config.server, server_->url());
  EXPECT_EQ(config.ca_pem, server_->ca_pem());
  EXPECT_EQ(config.client_certificate_pem, issued.certificate_pem);
  EXPECT_EQ(config.client_key_pem, issued.key_pem);
  EXPECT_TRUE(config.token.empty());
  EXPECT_EQ(config.source, "cluster \"edge-2\" (clientCert)");
  EXPECT_THAT(ForbiddenMessageAs(config), HasSubstr("User \"edge-operator\" cannot get"));
}

TEST_F(StaticAuthenticatorsTest, ClientCertWithBadPemIsInvalidWithoutShowingIt) {
  kubeapi::ClientCertificate alice;
  ASSERT_OK_AND_ASSIGN(alice, server_->IssueClientCertificate("alice"));
  kubeapi::ClientCertificate bob;
  ASSERT_OK_AND_ASSIGN(bob, server_->IssueClientCertificate("bob"));
  PutSecret("bad-crt", {{"tls.crt", kBadPem}, {"tls.key", alice.key_pem}});
  PutSecret("bad-key", {{"tls.crt", alice.certificate_pem}, {"tls.key", kBadPem}});
  PutSecret("mismatch", {{"tls.crt", alice.certificate_pem}, {"tls.key", bob.key_pem}});
  ClientCertAuthenticator authenticator;
  auto authenticate = [&](const std::string& secret) {
    v1::ClusterState cluster = ClientCertCluster("edge-2", secret);
    return authenticator.Authenticate(Request(cluster), *resolver_, nullptr).status();
  };
  absl::Status bad_crt = authenticate("bad-crt");
  EXPECT_THAT(bad_crt,
              StatusIs(absl::StatusCode::kInvalidArgument,
                       "Secret \"fleet/bad-crt\" key \"tls.crt\" holds no PEM certificate"));
  absl::Status bad_key = authenticate("bad-key");
  EXPECT_THAT(bad_key,
              StatusIs(absl::StatusCode::kInvalidArgument,
                       "Secret \"fleet/bad-key\" key \"tls.key\" holds no PEM private key"));
  EXPECT_THAT(authenticate("mismatch"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("the key in \"tls.key\" does not match the certificate")));
  for (const absl::Status& status : {bad_crt, bad_key}) {
    EXPECT_THAT(std::string(status.message()), Not(HasSubstr(kBadPemBody)));
    EXPECT_THAT(std::string(status.message()), Not(HasSubstr("PRIVATE KEY")));
  }
}

TEST_F(StaticAuthenticatorsTest, ClusterCaWithoutPemIsInvalidAndUnsetCaMeansSystemStore) {
  CreateConfigMap("not-a-ca", {{"ca.crt", kBadPem}});
  v1::ClusterState cluster = AgentlessCluster("edge-3", kAuthToken);
  ConnectionConfig config;
  cluster.mutable_spec()->mutable_agentless()->mutable_ca_ref()->set_name("not-a-ca");
  EXPECT_THAT(ResolveClusterCa(Request(cluster), *resolver_, nullptr, config),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       "ConfigMap \"fleet/not-a-ca\" key \"ca.crt\" (spec.agentless.ca_ref) holds "
                       "no PEM certificate"));
  cluster.mutable_spec()->mutable_agentless()->clear_ca_ref();
  ASSERT_OK(ResolveClusterCa(Request(cluster), *resolver_, nullptr, config));
  EXPECT_TRUE(config.ca_pem.empty());
}

TEST_F(StaticAuthenticatorsTest, KubeconfigFromASecretGivesServerCaAndCredentials) {
  const std::string token = ServiceAccountToken("kubeconfig-user");
  PutSecret("edge-kubeconfig", {{"value", Kubeconfig(InlineCa(), absl::StrCat("token: ", token))}});
  v1::ClusterState cluster = AgentlessCluster("edge-4", kAuthKubeconfig);
  // The cluster's own server and CA are ignored.
  cluster.mutable_spec()->mutable_agentless()->set_server("https://ignored.invalid");
  cluster.mutable_spec()->mutable_agentless()->mutable_ca_ref()->set_name("absent");
  KubeconfigRef(cluster).set_name("edge-kubeconfig");
  KubeconfigAuthenticator authenticator;
  ASSERT_OK_AND_ASSIGN(ConnectionConfig config,
                       authenticator.Authenticate(Request(cluster), *resolver_, nullptr));
  EXPECT_EQ(config.server, server_->url());
  EXPECT_EQ(config.ca_pem, server_->ca_pem());
  EXPECT_EQ(config.token, token);
  EXPECT_EQ(config.default_namespace, "apps");
  EXPECT_EQ(config.source, "cluster \"edge-4\" (kubeconfig)");
  EXPECT_THAT(ForbiddenMessageAs(config),
              HasSubstr("User \"system:serviceaccount:fleet:kubeconfig-user\" cannot get"));
}

TEST_F(StaticAuthenticatorsTest, KubeconfigNamingAFileIsUnsupported) {
  // A relative path would resolve against the service's working folder: never read.
  PutSecret("with-file", {{"config", Kubeconfig("certificate-authority: ca.crt", "token: t")}});
  v1::ClusterState cluster = AgentlessCluster("edge-4", kAuthKubeconfig);
  v1::SecretKeyRef& ref = KubeconfigRef(cluster);
  ref.set_name("with-file");
  ref.set_key("config");
  KubeconfigAuthenticator authenticator;
  absl::StatusOr<ConnectionConfig> config =
      authenticator.Authenticate(Request(cluster), *resolver_, nullptr);
  EXPECT_TRUE(IsUnsupported(config.status())) << config.status();
  EXPECT_EQ(config.status().message(),
            "kubeconfig Secret \"fleet/with-file\" key \"config\": cluster \"c\": "
            "certificate-authority names a file; this kubeconfig may not refer to files");

  PutSecret("exec", {{"value", Kubeconfig(InlineCa(), "exec: {command: /bin/sh}")}});
  ref.set_name("exec");
  ref.clear_key();
  absl::StatusOr<ConnectionConfig> exec =
      authenticator.Authenticate(Request(cluster), *resolver_, nullptr);
  EXPECT_TRUE(IsUnsupported(exec.status())) << exec.status();
  EXPECT_THAT(std::string(exec.status().message()),
              HasSubstr("exec credentials are not supported"));
}

// Regression: a proxy-url in the kubeconfig was ignored and the connection went direct.
TEST_F(StaticAuthenticatorsTest, KubeconfigWithAProxyIsUnsupportedNamingTheField) {
  PutSecret("via-proxy",
            {{"value", Kubeconfig(absl::StrCat(InlineCa(), ", proxy-url: \"http://proxy:3128\""),
                                  "token: t")}});
  v1::ClusterState cluster = AgentlessCluster("edge-4", kAuthKubeconfig);
  KubeconfigRef(cluster).set_name("via-proxy");
  KubeconfigAuthenticator authenticator;
  absl::StatusOr<ConnectionConfig> config =
      authenticator.Authenticate(Request(cluster), *resolver_, nullptr);
  EXPECT_TRUE(IsUnsupported(config.status())) << config.status();
  EXPECT_EQ(config.status().message(),
            "kubeconfig Secret \"fleet/via-proxy\" key \"value\": cluster \"c\": "
            "clusters[].cluster.proxy-url is not supported: credledger connects to the server "
            "directly, never through a proxy");
}

TEST_F(StaticAuthenticatorsTest, KubeconfigErrorsKeepTheirClass) {
  v1::ClusterState cluster = AgentlessCluster("edge-4", kAuthKubeconfig);
  KubeconfigAuthenticator authenticator;
  PutSecret("broken", {{"value", "clusters: [unclosed"}});
  KubeconfigRef(cluster).set_name("broken");
  absl::StatusOr<ConnectionConfig> broken =
      authenticator.Authenticate(Request(cluster), *resolver_, nullptr);
  EXPECT_THAT(broken, StatusIs(absl::StatusCode::kInvalidArgument,
                               HasSubstr("kubeconfig Secret \"fleet/broken\" key \"value\": ")));
  EXPECT_FALSE(IsUnsupported(broken.status()));

  KubeconfigRef(cluster).set_name("absent");
  EXPECT_THAT(
      authenticator.Authenticate(Request(cluster), *resolver_, nullptr),
      StatusIs(absl::StatusCode::kNotFound, "Secret \"fleet/absent\" not found (key \"value\")"));
}

}  // namespace static_authenticators_test
}  // namespace credledger::kubebridge
