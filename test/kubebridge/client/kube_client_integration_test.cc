// KubeClient against the test Kubernetes API server: CRUD, Status mapping of real
// responses, write helpers, TokenRequest, label selectors, retries (also of requests the
// server never answers), TLS, token files and the server's clock from its Date header.
#include <memory>
#include <string>
#include <thread>

#include "absl/strings/match.h"
#include "absl/strings/str_split.h"
#include "gtest/gtest.h"
#include "kubebridge/client/write_helpers.h"
#include "test/kubebridge/api_server_fixture.h"
#include "test/kubebridge/fake_transport.h"

namespace credledger::kubebridge {
namespace kube_client_integration_test {

using KubeClientIntegrationTest = ApiServerFixture;

// A fault answering GETs under `path_prefix` with `status_code`, `times` times (-1: always).
kubeapi::Fault Fault(const std::string& path_prefix, int status_code, int times) {
  kubeapi::Fault fault;
  fault.method = "GET";
  fault.path_prefix = path_prefix;
  fault.status_code = status_code;
  fault.times = times;
  return fault;
}

TEST_F(KubeClientIntegrationTest, ConnectsWithTheServersKubeconfigAndReadsVersion) {
  EXPECT_EQ(config_.server, server_->url());
  EXPECT_EQ(config_.ca_pem, server_->ca_pem());
  ASSERT_OK_AND_ASSIGN(std::string body, client_->RawGet("/version"));
  nlohmann::json version = nlohmann::json::parse(body, nullptr, false);
  EXPECT_TRUE(version.contains("gitVersion")) << body;
}

TEST_F(KubeClientIntegrationTest, CreateGetUpdateDeleteRoundTrip) {
  ASSERT_OK_AND_ASSIGN(nlohmann::json created,
                       client_->Create(Core("configmaps"), ConfigMap("cm", "a")));
  std::string uid = created["metadata"]["uid"];
  std::string rv1 = created["metadata"]["resourceVersion"];
  EXPECT_FALSE(uid.empty());

  ASSERT_OK_AND_ASSIGN(nlohmann::json read, client_->Get(Core("configmaps", "cm")));
  EXPECT_EQ(read["data"]["key"], "v");

  read["data"]["key"] = "w";
  ASSERT_OK_AND_ASSIGN(nlohmann::json updated, client_->Update(Core("configmaps"), read));
  EXPECT_EQ(updated["data"]["key"], "w");
  EXPECT_NE(updated["metadata"]["resourceVersion"], rv1);

  // The stale resourceVersion now conflicts.
  read["metadata"]["resourceVersion"] = rv1;
  absl::StatusOr<nlohmann::json> stale = client_->Update(Core("configmaps"), read);
  EXPECT_EQ(stale.status().code(), absl::StatusCode::kAborted) << stale.status();

  absl::Status wrong_uid =
      client_->Delete(Core("configmaps", "cm"), {.precondition_uid = "not-the-uid"});
  EXPECT_EQ(wrong_uid.code(), absl::StatusCode::kAborted) << wrong_uid;

  EXPECT_OK(client_->Delete(Core("configmaps", "cm"), {.precondition_uid = uid}));
  absl::StatusOr<nlohmann::json> gone = client_->Get(Core("configmaps", "cm"));
  EXPECT_EQ(gone.status().code(), absl::StatusCode::kNotFound);
  // Deleting again reports kNotFound, which callers treat as done.
  EXPECT_EQ(client_->Delete(Core("configmaps", "cm")).code(), absl::StatusCode::kNotFound);
}

TEST_F(KubeClientIntegrationTest, NotFoundKeepsTheServersReasonAndMessage) {
  absl::StatusOr<nlohmann::json> missing = client_->Get(Core("secrets", "missing"));
  EXPECT_EQ(missing.status().code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(missing.status().message(),
            "GET /api/v1/namespaces/default/secrets/missing: NotFound: secrets \"missing\" not "
            "found");
}

TEST_F(KubeClientIntegrationTest, AlreadyExistsKeepsTheServersReasonAndMessage) {
  nlohmann::json secret = {{"apiVersion", "v1"}, {"kind", "Secret"}, {"metadata", {{"name", "x"}}}};
  ASSERT_OK(client_->Create(Core("secrets"), secret).status());
  absl::StatusOr<nlohmann::json> again = client_->Create(Core("secrets"), secret);
  EXPECT_EQ(again.status().code(), absl::StatusCode::kAlreadyExists);
  EXPECT_EQ(again.status().message(),
            "POST /api/v1/namespaces/default/secrets: AlreadyExists: secrets \"x\" already exists");
}

TEST_F(KubeClientIntegrationTest, InvalidObjectIsInvalidArgument) {
  absl::StatusOr<nlohmann::json> created =
      client_->Create(Core("configmaps"), ConfigMap("Not_A_Valid_Name", "a"));
  EXPECT_EQ(created.status().code(), absl::StatusCode::kInvalidArgument) << created.status();
  EXPECT_TRUE(absl::StrContains(created.status().message(), ": Invalid: ")) << created.status();
}

TEST_F(KubeClientIntegrationTest, WrongTokenIsUnauthenticatedAndNeverEchoed) {
  ConnectionConfig config = config_;
  config.token = "definitely-not-a-valid-token";
  std::unique_ptr<KubeClient> client = NewClient(config, ClientOptions());
  absl::StatusOr<nlohmann::json> object = client->Get(Core("configmaps", "x"));
  EXPECT_EQ(object.status().code(), absl::StatusCode::kUnauthenticated) << object.status();
  EXPECT_FALSE(absl::StrContains(object.status().message(), config.token));
}

TEST_F(KubeClientIntegrationTest, UntrustedServerCertificateIsAFailedPrecondition) {
  ConnectionConfig config = config_;
  config.ca_pem.clear();  // the system store does not know the test CA
  std::unique_ptr<KubeClient> client = NewClient(config, ClientOptions());
  absl::StatusOr<std::string> version = client->RawGet("/version");
  EXPECT_EQ(version.status().code(), absl::StatusCode::kFailedPrecondition) << version.status();
}

TEST_F(KubeClientIntegrationTest, RewrittenTokenFileIsPickedUpWithoutANewClient) {
  ConnectionConfig config = config_;
  config.token.clear();
  config.token_file = WriteTestFile(dir_.path() / "token", "stale-token");
  std::unique_ptr<KubeClient> client = NewClient(config, ClientOptions());
  EXPECT_EQ(client->RawGet("/api/v1/namespaces/default/configmaps").status().code(),
            absl::StatusCode::kUnauthenticated);
  WriteTestFile(dir_.path() / "token", server_->admin_token() + "\n");
  EXPECT_OK(client->RawGet("/api/v1/namespaces/default/configmaps").status());
}

TEST_F(KubeClientIntegrationTest, TokenRequestThroughTheServiceAccountSubresource) {
  nlohmann::json account = {
      {"apiVersion", "v1"}, {"kind", "ServiceAccount"}, {"metadata", {{"name", "agent"}}}};
  ASSERT_OK(client_->Create(Core("serviceaccounts"), account).status());
  nlohmann::json request = {{"apiVersion", "authentication.k8s.io/v1"},
                            {"kind", "TokenRequest"},
                            {"spec", {{"expirationSeconds", 600}}}};
  ASSERT_OK_AND_ASSIGN(
      nlohmann::json response,
      client_->CreateSubresource(Core("serviceaccounts", "agent"), "token", request));
  std::string token = response["status"].value("token", "");
  EXPECT_EQ(std::vector<std::string>(absl::StrSplit(token, '.')).size(), 3u);  // a JWT
  EXPECT_FALSE(response["status"].value("expirationTimestamp", "").empty());

  absl::StatusOr<nlohmann::json> missing =
      client_->CreateSubresource(Core("serviceaccounts", "nobody"), "token", request);
  EXPECT_EQ(missing.status().code(), absl::StatusCode::kNotFound);
  EXPECT_FALSE(absl::StrContains(missing.status().message(), token));
}

TEST_F(KubeClientIntegrationTest, ListFiltersByLabelSelectorAndReturnsTheListVersion) {
  ASSERT_OK(client_->Create(Core("configmaps"), ConfigMap("a1", "a")).status());
  ASSERT_OK(client_->Create(Core("configmaps"), ConfigMap("a2", "a")).status());
  ASSERT_OK(client_->Create(Core("configmaps"), ConfigMap("b1", "b")).status());
  ASSERT_OK_AND_ASSIGN(ObjectList list,
                       client_->List(Core("configmaps"), {.label_selector = "app=a"}));
  ASSERT_EQ(list.items.size(), 2u);
  EXPECT_EQ(list.items[0]["metadata"]["name"], "a1");
  EXPECT_EQ(list.items[1]["metadata"]["name"], "a2");
  EXPECT_EQ(list.resource_version, std::to_string(server_->resource_version()));
  ASSERT_OK_AND_ASSIGN(ObjectList none,
                       client_->List(Core("configmaps"), {.label_selector = "app=zzz"}));
  EXPECT_TRUE(none.items.empty());
}

TEST_F(KubeClientIntegrationTest, ServerSide503And429AreRetriedHonouringRetryAfter) {
  StepClock clock;  // the client's waits are recorded, not slept
  KubeClientOptions options = ClientOptions();
  options.clock = &clock;
  options.retry.jitter = 0;
  std::unique_ptr<KubeClient> client = NewClient(config_, options);
  ASSERT_OK(client_->Create(Core("configmaps"), ConfigMap("cm", "a")).status());
  server_->faults().Add(Fault("/api/v1/namespaces/default/configmaps/cm", 503, 1));
  kubeapi::Fault throttle = Fault("/api/v1/namespaces/default/configmaps/cm", 429, 1);
  throttle.retry_after_seconds = 2;
  server_->faults().Add(throttle);
  ASSERT_OK(client->Get(Core("configmaps", "cm")).status());
  EXPECT_EQ(server_->faults().fired(), 2);
  EXPECT_EQ(clock.sleeps(),
            (std::vector<absl::Duration>{absl::Milliseconds(10), absl::Seconds(2)}));
}

TEST_F(KubeClientIntegrationTest, ARequestTheServerNeverAnswersTimesOutAndIsRetried) {
  KubeClientOptions options = ClientOptions();
  options.request_timeout = absl::Milliseconds(300);
  std::unique_ptr<KubeClient> client = NewClient(config_, options);
  ASSERT_OK(client_->Create(Core("configmaps"), ConfigMap("cm", "a")).status());
  kubeapi::Fault hang = Fault("/api/v1/namespaces/default/configmaps/cm", 0, 1);
  hang.hang = kubeapi::Hang::kBeforeServing;
  server_->faults().Add(hang);
  const absl::Time start = absl::Now();
  ASSERT_OK_AND_ASSIGN(nlohmann::json object, client->Get(Core("configmaps", "cm")));
  const absl::Duration took = absl::Now() - start;
  EXPECT_EQ(object["data"]["key"], "v");
  EXPECT_EQ(server_->faults().fired(), 1);
  EXPECT_GE(took, absl::Milliseconds(300));
  EXPECT_LT(took, absl::Seconds(3)) << "one request timeout and one short backoff";
  EXPECT_TRUE(server_->faults().AwaitHeld(0, absl::Seconds(5))) << "the client hung up";
}

TEST_F(KubeClientIntegrationTest, StopEndsARequestTheServerHoldsAtOnce) {
  kubeapi::Fault hang = Fault("/api/v1/namespaces/default/configmaps/cm", 0, -1);
  hang.hang = kubeapi::Hang::kBeforeServing;
  server_->faults().Add(hang);
  absl::Status result;
  std::thread caller([&] { result = client_->Get(Core("configmaps", "cm")).status(); });
  ASSERT_TRUE(server_->faults().AwaitHeld(1, absl::Seconds(10)));
  const absl::Time start = absl::Now();
  client_->Stop();
  caller.join();
  EXPECT_LT(absl::Now() - start, absl::Seconds(1));
  EXPECT_EQ(result.code(), absl::StatusCode::kCancelled) << result;
}

TEST_F(KubeClientIntegrationTest, PersistentUnavailabilityEndsAfterMaxAttempts) {
  StepClock clock;
  KubeClientOptions options = ClientOptions();
  options.clock = &clock;
  options.retry.max_attempts = 3;
  std::unique_ptr<KubeClient> client = NewClient(config_, options);
  server_->faults().Add(Fault("/api/v1", 500, -1));
  absl::StatusOr<nlohmann::json> object = client->Get(Core("configmaps", "cm"));
  EXPECT_EQ(object.status().code(), absl::StatusCode::kUnavailable);
  EXPECT_EQ(server_->faults().fired(), 3);
}

// The server on a fake clock, to read its Date header.
class KubeClientServerDateTest : public ApiServerFixture {
 protected:
  void SetUp() override {
    kubeapi::ApiServerOptions options = ServerOptions();
    options.clock = &server_clock_;
    StartServer(options);
  }
  common::FakeClock server_clock_;  // 2026-01-01T00:00:00Z
};

TEST_F(KubeClientServerDateTest, ServerDateIsTheDateOfTheLastResponseInWholeSeconds) {
  EXPECT_FALSE(client_->server_date().has_value());
  ASSERT_TRUE(client_->RawGet("/version").ok());
  EXPECT_EQ(client_->server_date(), absl::FromUnixSeconds(1767225600));

  // An error answer carries the server's clock too.
  server_clock_.Advance(absl::Minutes(10) + absl::Milliseconds(700));
  EXPECT_EQ(client_->Get(Core("configmaps", "missing")).status().code(),
            absl::StatusCode::kNotFound);
  EXPECT_EQ(client_->server_date(), absl::FromUnixSeconds(1767225600 + 600));
}

}  // namespace kube_client_integration_test
}  // namespace credledger::kubebridge
