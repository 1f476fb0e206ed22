// ClusterConnector and the default authenticator registry against the test API server:
// inCluster uses the service's own connection, agentless dispatches by auth type, "oidc" and
// unknown types are Unsupported, and nothing is cached between connections
// (docs/connections.md, "Clusters", "Auth types" and "Error classes").
#include "kubebridge/clusters/cluster_connector.h"

#include <memory>
#include <string>

#include "absl/strings/str_cat.h"
#include "kubebridge/clusters/static_authenticators.h"
#include "kubebridge/model/connection_errors.h"
#include "test/kubebridge/clusters/cluster_auth_fixture.h"

namespace credledger::kubebridge {
namespace cluster_connector_test {

using ::credledger::testing::StatusIs;
using ::testing::HasSubstr;
using ::testing::StartsWith;

class ClusterConnectorTest : public ClusterAuthFixture {
 protected:
  void SetUp() override {
    ClusterAuthFixture::SetUp();
    StartConnector();
  }

  // The 403 message of a client the connector makes for `cluster`.
  std::string ForbiddenMessageThroughConnector(const v1::ClusterState& cluster) {
    absl::StatusOr<std::unique_ptr<KubeClient>> client =
        connector_->NewClient(cluster, ClientOptions());
    EXPECT_OK(client.status());
    if (!client.ok()) return "";
    absl::StatusOr<nlohmann::json> got =
        (*client)->Get(Core("secrets", "forbidden-probe", kNamespace));
    (*client)->Stop();
    return std::string(got.status().message());
  }
};

// An authenticator that records that it ran and returns a fixed result.
class RecordingAuthenticator final : public ClusterAuthenticator {
 public:
  explicit RecordingAuthenticator(absl::StatusOr<ConnectionConfig> result)
      : result_(std::move(result)) {}
  absl::StatusOr<ConnectionConfig> Authenticate(const ClusterAuthRequest& request, SecretResolver&,
                                                Cancellation*) override {
    last_cluster = request.cluster;
    return result_;
  }
  std::string last_cluster;

 private:
  absl::StatusOr<ConnectionConfig> result_;
};

TEST(ClusterAuthRegistryTest, DefaultRegistryHasTheBuiltTypesAndNoOidc) {
  std::unique_ptr<ClusterAuthRegistry> registry = DefaultClusterAuthRegistry();
  for (const char* type : {kAuthKubeconfig, kAuthToken, kAuthClientCert, kAuthExecPlugin}) {
    EXPECT_NE(registry->Find(type), nullptr) << type;
  }
  EXPECT_EQ(registry->Find(kAuthOidc), nullptr);
  EXPECT_EQ(registry->Find(""), nullptr);
  EXPECT_EQ(registry->Find("Token"), nullptr) << "types are case-sensitive";
}

TEST(ClusterAuthRegistryTest, RegisterReplacesAnEarlierEntry) {
  ClusterAuthRegistry registry;
  registry.Register("custom", std::make_unique<TokenAuthenticator>());
  auto replacement = std::make_unique<TokenAuthenticator>();
  ClusterAuthenticator* expected = replacement.get();
  registry.Register("custom", std::move(replacement));
  EXPECT_EQ(registry.Find("custom"), expected);
}

TEST_F(ClusterConnectorTest, InClusterUsesTheHomeConnection) {
  v1::ClusterState cluster;
  cluster.set_name("home");
  cluster.mutable_spec()->set_connection_mode(v1::CLUSTER_CONNECTION_MODE_IN_CLUSTER);
  std::string auth_type;
  ASSERT_OK_AND_ASSIGN(ConnectionConfig config, connector_->Connect(cluster, &auth_type));
  EXPECT_EQ(auth_type, "inCluster");
  EXPECT_EQ(config.server, config_.server);
  EXPECT_EQ(config.token, config_.token);
  EXPECT_EQ(config.ca_pem, config_.ca_pem);
  EXPECT_EQ(config.source, config_.source);
}

TEST_F(ClusterConnectorTest, AgentlessDispatchesToTheAuthenticatorOfItsType) {
  ConnectionConfig fixed;
  fixed.server = "https://fixed.example";
  auto recording = std::make_unique<RecordingAuthenticator>(fixed);
  RecordingAuthenticator* authenticator = recording.get();
  ClusterAuthRegistry registry;
  registry.Register("custom", std::move(recording));
  ClusterConnector connector(config_, resolver_.get(), &registry);
  std::string auth_type;
  ASSERT_OK_AND_ASSIGN(ConnectionConfig config,
                       connector.Connect(AgentlessCluster("edge-9", "custom"), &auth_type));
  EXPECT_EQ(config.server, "https://fixed.example");
  EXPECT_EQ(auth_type, "custom");
  EXPECT_EQ(authenticator->last_cluster, "edge-9");
}

TEST_F(ClusterConnectorTest, TokenClusterConnectsAsItsServiceAccount) {
  PutSecret("edge-token", {{"token", ServiceAccountToken("edge-agent")}});
  std::string auth_type;
  ASSERT_OK_AND_ASSIGN(ConnectionConfig config,
                       connector_->Connect(TokenCluster("edge-token"), &auth_type));
  EXPECT_EQ(auth_type, "token");
  EXPECT_EQ(config.source, "cluster \"edge-1\" (token)");
  EXPECT_THAT(ForbiddenMessageThroughConnector(TokenCluster("edge-token")),
              HasSubstr("User \"system:serviceaccount:fleet:edge-agent\""));
}

TEST_F(ClusterConnectorTest, RotatedTokenSecretIsUsedByTheNextConnection) {
  PutSecret("edge-token", {{"token", ServiceAccountToken("first")}});
  EXPECT_THAT(ForbiddenMessageThroughConnector(TokenCluster("edge-token")),
              HasSubstr("User \"system:serviceaccount:fleet:first\""));
  PutSecret("edge-token", {{"token", ServiceAccountToken("second")}});
  EXPECT_THAT(ForbiddenMessageThroughConnector(TokenCluster("edge-token")),
              HasSubstr("User \"system:serviceaccount:fleet:second\""));
}

TEST_F(ClusterConnectorTest, OidcAndUnknownTypesAreUnsupported) {
  for (const std::string type : {"oidc", "saml", ""}) {
    std::string auth_type = "unset";
    absl::StatusOr<ConnectionConfig> config =
        connector_->Connect(AgentlessCluster("edge-1", type), &auth_type);
    EXPECT_TRUE(IsUnsupported(config.status())) << type << ": " << config.status();
    EXPECT_EQ(auth_type, type);
    EXPECT_THAT(std::string(config.status().message()), StartsWith("cluster \"edge-1\": ")) << type;
  }
  EXPECT_EQ(connector_->Connect(AgentlessCluster("edge-1", "oidc")).status().message(),
            "cluster \"edge-1\": auth type \"oidc\" is not supported");
}

TEST_F(ClusterConnectorTest, UnspecifiedModeAndMissingAgentlessBlockAreUnsupported) {
  v1::ClusterState cluster = AgentlessCluster("edge-1", kAuthToken);
  cluster.mutable_spec()->set_connection_mode(v1::CLUSTER_CONNECTION_MODE_UNSPECIFIED);
  absl::StatusOr<ConnectionConfig> unspecified = connector_->Connect(cluster);
  EXPECT_TRUE(IsUnsupported(unspecified.status())) << unspecified.status();
  EXPECT_THAT(std::string(unspecified.status().message()),
              HasSubstr("spec.connection_mode is not set"));

  cluster.mutable_spec()->set_connection_mode(v1::CLUSTER_CONNECTION_MODE_AGENTLESS);
  cluster.mutable_spec()->clear_agentless();
  absl::StatusOr<ConnectionConfig> no_block = connector_->Connect(cluster);
  EXPECT_TRUE(IsUnsupported(no_block.status())) << no_block.status();
  EXPECT_THAT(std::string(no_block.status().message()), HasSubstr("needs spec.agentless"));
}

TEST_F(ClusterConnectorTest, AuthenticatorErrorsNameTheClusterAndKeepTheirClass) {
  // token type without its block: Unsupported, prefixed.
  absl::StatusOr<ConnectionConfig> no_block =
      connector_->Connect(AgentlessCluster("edge-1", kAuthToken));
  EXPECT_TRUE(IsUnsupported(no_block.status())) << no_block.status();
  EXPECT_THAT(std::string(no_block.status().message()),
              StartsWith("cluster \"edge-1\": auth type \"token\""));
  // A missing Secret: no class (retried), names the cluster, Secret and key.
  absl::StatusOr<ConnectionConfig> missing = connector_->Connect(TokenCluster("absent"));
  EXPECT_FALSE(IsUnsupported(missing.status()));
  EXPECT_THAT(missing, StatusIs(absl::StatusCode::kNotFound,
                                "cluster \"edge-1\": Secret \"fleet/absent\" not found "
                                "(key \"token\")"));
}

TEST_F(ClusterConnectorTest, NoHomeConnectionIsFailedPrecondition) {
  ClusterConnector homeless(std::nullopt, nullptr, nullptr);
  v1::ClusterState cluster;
  cluster.set_name("home");
  cluster.mutable_spec()->set_connection_mode(v1::CLUSTER_CONNECTION_MODE_IN_CLUSTER);
  for (const v1::ClusterState& c : {cluster, TokenCluster("edge-token")}) {
    absl::StatusOr<ConnectionConfig> config = homeless.Connect(c);
    EXPECT_THAT(config, StatusIs(absl::StatusCode::kFailedPrecondition,
                                 HasSubstr("the service runs without a home cluster connection")));
    EXPECT_FALSE(IsUnsupported(config.status()));
  }
}

}  // namespace cluster_connector_test
}  // namespace credledger::kubebridge
