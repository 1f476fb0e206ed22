// ProbeCluster against the test API server: the ClusterProbed payload on success, and the
// error classes of failures (ProbeFailed for 401 and unreachable servers, Unsupported for an
// auth type credledger lacks; docs/connections.md, "Error classes" and
// "Probes and the Reachable condition").
#include "kubebridge/clusters/cluster_prober.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "kubebridge/clusters/static_authenticators.h"
#include "kubebridge/model/connection_errors.h"
#include "test/kubebridge/clusters/cluster_auth_fixture.h"

namespace credledger::kubebridge {
namespace cluster_prober_test {

using ::testing::ElementsAreArray;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::Not;
using ::testing::StartsWith;

// A loopback port with no listener: bound to find a free one, then closed.
int ClosedPort() {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t length = sizeof(address);
  if (fd < 0 || bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof(address)) != 0 ||
      getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length) != 0) {
    ADD_FAILURE() << "cannot reserve a loopback port";
  }
  close(fd);
  return ntohs(address.sin_port);
}

class ClusterProberTest : public ClusterAuthFixture {
 protected:
  void SetUp() override {
    ClusterAuthFixture::SetUp();
    StartConnector();
  }

  // One attempt per request, so an unreachable server fails at once.
  static KubeClientOptions ProbeOptions() {
    KubeClientOptions options = ClientOptions();
    options.retry.max_attempts = 1;
    options.request_timeout = absl::Seconds(10);
    return options;
  }

  // A token cluster whose Secret holds `token`.
  v1::ClusterState ClusterWithToken(const std::string& token) {
    PutSecret("edge-token", {{"token", token}});
    return TokenCluster("edge-token");
  }

  // /version and /apis read with the admin client, independently of the prober.
  std::string ServerGitVersion() {
    absl::StatusOr<std::string> body = client_->RawGet("/version");
    EXPECT_OK(body.status());
    return body.ok() ? nlohmann::json::parse(*body).value("gitVersion", "") : "";
  }
  std::vector<std::string> ServerGroups() {
    absl::StatusOr<std::string> body = client_->RawGet("/apis");
    EXPECT_OK(body.status());
    std::vector<std::string> names;
    if (!body.ok()) return names;
    const nlohmann::json list = nlohmann::json::parse(*body);
    for (const nlohmann::json& group : list["groups"]) {
      names.push_back(group["name"].get<std::string>());
    }
    std::sort(names.begin(), names.end());
    return names;
  }
};

TEST_F(ClusterProberTest, SuccessReportsTheServerVersionAndGroups) {
  v1::ClusterState cluster = ClusterWithToken(ServiceAccountToken("prober"));
  v1::ClusterProbed probed = ProbeCluster(*connector_, cluster, ProbeOptions(), nullptr);
  EXPECT_EQ(probed.reason(), kReasonProbeSucceeded) << probed.message();
  EXPECT_EQ(probed.message(), "");
  EXPECT_EQ(probed.spec_version(), 3);
  EXPECT_EQ(probed.auth_type(), "token");
  const std::string git_version = ServerGitVersion();
  ASSERT_FALSE(git_version.empty());
  EXPECT_EQ(probed.server_version(), git_version);
  const std::vector<std::string> groups = ServerGroups();
  ASSERT_THAT(groups, ::testing::Contains("rbac.authorization.k8s.io"));
  EXPECT_THAT(probed.api_groups(), ElementsAreArray(groups));
}

TEST_F(ClusterProberTest, WrongTokenIsProbeFailedNamingTheEndpoint) {
  v1::ClusterState cluster = ClusterWithToken("not-a-valid-token");
  v1::ClusterProbed probed = ProbeCluster(*connector_, cluster, ProbeOptions(), nullptr);
  EXPECT_EQ(probed.reason(), kReasonProbeFailed);
  // /version is anonymous on the test API server; the group list needs a valid user.
  // The cluster once, then only the request and the HTTP status: the server's own words
  // stay out of the log.
  EXPECT_EQ(probed.message(), "cluster \"edge-1\": GET /apis: HTTP 401 Unauthorized");
  EXPECT_THAT(probed.message(), Not(HasSubstr("not-a-valid-token")));
  EXPECT_EQ(probed.server_version(), "");
  EXPECT_THAT(probed.api_groups(), IsEmpty());
  EXPECT_EQ(probed.auth_type(), "token");
}

TEST_F(ClusterProberTest, UnreachableServerIsProbeFailed) {
  v1::ClusterState cluster = ClusterWithToken("any-token");
  cluster.mutable_spec()->mutable_agentless()->set_server(
      absl::StrCat("https://127.0.0.1:", ClosedPort()));
  v1::ClusterProbed probed = ProbeCluster(*connector_, cluster, ProbeOptions(), nullptr);
  EXPECT_EQ(probed.reason(), kReasonProbeFailed);
  EXPECT_THAT(probed.message(), StartsWith("cluster \"edge-1\": GET /version: "));
  EXPECT_THAT(probed.message(), Not(HasSubstr("cluster \"edge-1\": cluster")));
  EXPECT_EQ(probed.server_version(), "");
}

TEST_F(ClusterProberTest, UnsupportedAuthIsUnsupported) {
  v1::ClusterProbed probed =
      ProbeCluster(*connector_, AgentlessCluster("edge-1", kAuthOidc), ProbeOptions(), nullptr);
  EXPECT_EQ(probed.reason(), kReasonUnsupported);
  EXPECT_EQ(probed.message(), "cluster \"edge-1\": auth type \"oidc\" is not supported");
  EXPECT_EQ(probed.auth_type(), "oidc");
  EXPECT_EQ(probed.spec_version(), 3);
}

TEST_F(ClusterProberTest, MissingSecretIsProbeFailedNamingIt) {
  v1::ClusterProbed probed =
      ProbeCluster(*connector_, TokenCluster("absent"), ProbeOptions(), nullptr);
  EXPECT_EQ(probed.reason(), kReasonProbeFailed);
  EXPECT_EQ(probed.message(),
            "cluster \"edge-1\": Secret \"fleet/absent\" not found (key \"token\")");
}

TEST_F(ClusterProberTest, InClusterProbeUsesTheHomeConnection) {
  v1::ClusterState cluster;
  cluster.set_name("home");
  cluster.set_spec_version(1);
  cluster.mutable_spec()->set_connection_mode(v1::CLUSTER_CONNECTION_MODE_IN_CLUSTER);
  v1::ClusterProbed probed = ProbeCluster(*connector_, cluster, ProbeOptions(), nullptr);
  EXPECT_EQ(probed.reason(), kReasonProbeSucceeded) << probed.message();
  EXPECT_EQ(probed.auth_type(), "inCluster");
  EXPECT_EQ(probed.server_version(), ServerGitVersion());
}

TEST_F(ClusterProberTest, CancelledProbeIsProbeFailedCancelled) {
  Cancellation cancel;
  cancel.Cancel();
  v1::ClusterProbed probed =
      ProbeCluster(*connector_, ClusterWithToken("any-token"), ProbeOptions(), &cancel);
  EXPECT_EQ(probed.reason(), kReasonProbeFailed);
  EXPECT_EQ(probed.message(), "cancelled");
}

}  // namespace cluster_prober_test
}  // namespace credledger::kubebridge
