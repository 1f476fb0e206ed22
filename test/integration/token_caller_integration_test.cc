// Callers with a ServiceAccount token (docs/api.md, "ServiceAccount tokens"), end to end: a
// real Server connected to the test Kubernetes API server, which mints projected tokens and
// answers TokenReviews for them; calls over a real gRPC channel carrying
// `authorization: Bearer <token>`, and the CLI with --token-file.
#include <grpcpp/grpcpp.h>

#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "credledger/v1/api.grpc.pb.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "kubebridge/client/json_util.h"
#include "kubebridge/client/kube_client.h"
#include "kubebridge/client/kubeconfig.h"
#include "kubebridge/credentials/agent_objects.h"
#include "projections/target_state.h"
#include "service/credledger_main.h"
#include "service/server/server.h"
#include "test/kubeapi/api_server.h"
#include "test/kubeapi/request_recorder.h"
#include "test/support/status_matchers.h"
#include "test/support/temp_dir.h"

namespace credledger {
namespace token_caller_integration_test {

using ::testing::HasSubstr;

constexpr char kDeployer[] = "system:serviceaccount:platform:deployer";
constexpr char kPolicy[] = R"(identities:
  - name: "system:serviceaccount:platform:*"
    rpcs: ["TargetService/RegisterTarget", "TargetService/GetTarget"]
    targets: ["demo/*"]
)";

class TokenCallerIntegrationTest : public ::testing::Test {
 protected:
  void SetUp() override {
    kubeapi::ApiServerOptions api;
    api.state_dir = dir_.path() / "kubeapi";
    api.namespaces = {"platform", "demo"};
    ASSERT_OK_AND_ASSIGN(api_, kubeapi::ApiServer::Start(api));
    ASSERT_OK_AND_ASSIGN(kubebridge::ConnectionConfig admin,
                         kubebridge::LoadKubeconfig(api_->kubeconfig_path()));
    ASSERT_OK_AND_ASSIGN(admin_, kubebridge::KubeClient::New(admin, {}));
    const nlohmann::json account = {
        {"apiVersion", "v1"}, {"kind", "ServiceAccount"}, {"metadata", {{"name", "deployer"}}}};
    ASSERT_OK(admin_->Create(kubebridge::ServiceAccountResource("platform", ""), account));
    std::ofstream(dir_.path() / "policy.yaml") << kPolicy;

    service::ServeOptions options;
    options.log.db_path = dir_.path() / "var" / "credledger.db";
    options.grpc.listen_address = "127.0.0.1:0";
    options.grpc.authorization_policy = dir_.path() / "policy.yaml";
    options.kube.kubeconfig = api_->kubeconfig_path();
    options.kube.qps = 1000;
    options.kube.burst = 1000;
    ASSERT_OK_AND_ASSIGN(server_, service::Server::Start(options));
    stub_ = v1::TargetService::NewStub(
        grpc::CreateChannel(server_->address(), grpc::InsecureChannelCredentials()));
  }

  void TearDown() override {
    if (server_ != nullptr) server_->Shutdown();
    if (admin_ != nullptr) admin_->Stop();
  }

  // A projected token of platform/deployer for `audience`.
  std::string TokenFor(const std::string& audience) {
    const nlohmann::json request = {
        {"apiVersion", "authentication.k8s.io/v1"},
        {"kind", "TokenRequest"},
        {"spec", {{"audiences", {audience}}, {"expirationSeconds", 600}}}};
    absl::StatusOr<nlohmann::json> issued = admin_->CreateSubresource(
        kubebridge::ServiceAccountResource("platform", "deployer"), "token", request);
    EXPECT_OK(issued);
    return issued.ok() ? kubebridge::StringAt(*issued, {"status", "token"}) : "";
  }

  grpc::Status Register(const std::string& ns, const std::string& authorization,
                        const std::string& declared = "") {
    grpc::ClientContext context;
    context.set_deadline(absl::ToChronoTime(absl::Now() + absl::Seconds(20)));
    context.AddMetadata("authorization", authorization);
    if (!declared.empty()) context.AddMetadata("credledger-actor", declared);
    v1::RegisterTargetRequest request;
    request.set_namespace_(ns);
    request.set_name("edge-1");
    request.set_request_id(absl::StrCat("register-", ++requests_));
    v1::RegisterTargetResponse response;
    return stub_->RegisterTarget(&context, request, &response);
  }

  // TokenReviews credledger has created so far.
  int64_t TokenReviews() const {
    int64_t reviews = 0;
    for (const kubeapi::RequestCount& c : api_->requests().CountsOf("kubernetes-admin")) {
      if (c.resource == "tokenreviews" && c.verb == "create") reviews += c.count;
    }
    return reviews;
  }

  testing::TempDir dir_;
  std::unique_ptr<kubeapi::ApiServer> api_;
  std::unique_ptr<kubebridge::KubeClient> admin_;
  std::unique_ptr<service::Server> server_;
  std::unique_ptr<v1::TargetService::Stub> stub_;
  int requests_ = 0;
};

TEST_F(TokenCallerIntegrationTest, ATokenNamesItsServiceAccountInThePolicyAndTheEvents) {
  const std::string token = TokenFor("credledger");
  const grpc::Status registered = Register("demo", absl::StrCat("Bearer ", token));
  ASSERT_TRUE(registered.ok()) << registered.error_message();
  ASSERT_OK_AND_ASSIGN(
      std::vector<store::RecordedEvent> events,
      server_->event_store()->ReadStream(projections::TargetStream("demo", "edge-1"), 0, 10));
  ASSERT_FALSE(events.empty());
  EXPECT_THAT(events.front().metadata, HasSubstr(kDeployer));
  EXPECT_THAT(events.front().metadata, ::testing::Not(HasSubstr(token)));

  // The Target scope of its entry holds: another namespace is refused.
  const grpc::Status elsewhere = Register("platform", absl::StrCat("Bearer ", token));
  EXPECT_EQ(elsewhere.error_code(), grpc::StatusCode::PERMISSION_DENIED);
  EXPECT_THAT(elsewhere.error_message(), HasSubstr(kDeployer));
  // One review answered all three calls.
  EXPECT_EQ(TokenReviews(), 1);
}

TEST_F(TokenCallerIntegrationTest, BadTokensAreUnauthenticatedAndNeverEchoed) {
  const std::string other_audience = TokenFor("https://kubernetes.default.svc");
  grpc::Status refused = Register("demo", absl::StrCat("Bearer ", other_audience));
  EXPECT_EQ(refused.error_code(), grpc::StatusCode::UNAUTHENTICATED);
  // The cluster checks the audience and says why it refuses.
  EXPECT_THAT(refused.error_message(), HasSubstr("the bearer token was refused: \""));
  EXPECT_THAT(refused.error_message(), HasSubstr("audience"));
  EXPECT_THAT(refused.error_message(), ::testing::Not(HasSubstr(other_audience)));

  refused = Register("demo", "Bearer not-a-token");
  EXPECT_EQ(refused.error_code(), grpc::StatusCode::UNAUTHENTICATED);
  EXPECT_THAT(refused.error_message(), HasSubstr("the bearer token was refused"));
  EXPECT_THAT(refused.error_message(), ::testing::Not(HasSubstr("not-a-token")));
  // A refused token is remembered: asking again costs no review.
  const int64_t reviews = TokenReviews();
  EXPECT_EQ(Register("demo", "Bearer not-a-token").error_code(), grpc::StatusCode::UNAUTHENTICATED);
  EXPECT_EQ(TokenReviews(), reviews);

  EXPECT_EQ(Register("demo", "Basic dXNlcjpwdw==").error_code(), grpc::StatusCode::UNAUTHENTICATED);
  refused = Register("demo", absl::StrCat("Bearer ", TokenFor("credledger")), "admin");
  EXPECT_EQ(refused.error_code(), grpc::StatusCode::UNAUTHENTICATED);
  EXPECT_THAT(refused.error_message(), HasSubstr("differs from the token's identity"));
  EXPECT_EQ(
      server_->event_store()->ReadStream(projections::TargetStream("demo", "edge-1"), 0, 1)->size(),
      0u);
}

TEST_F(TokenCallerIntegrationTest, TheCliCallsWithTheTokenOfItsTokenFile) {
  std::ofstream(dir_.path() / "token") << TokenFor("credledger") << "\n";
  std::ostringstream out;
  std::ostringstream err;
  const int registered =
      service::CredledgerMain({"target", "register", "demo/edge-1", "--server", server_->address(),
                               "--token-file", (dir_.path() / "token").string()},
                              out, err);
  EXPECT_EQ(registered, 0) << err.str();
  const int refused = service::CredledgerMain(
      {"target", "register", "demo/edge-2", "--server", server_->address()}, out, err);
  EXPECT_EQ(refused, 1);
  EXPECT_THAT(err.str(), HasSubstr("PERMISSION_DENIED"));
}

}  // namespace token_caller_integration_test
}  // namespace credledger
