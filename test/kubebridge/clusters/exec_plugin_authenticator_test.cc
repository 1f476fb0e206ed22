// ExecPluginAuthenticator against a real credential provider: a cpp-httplib HTTPS server
// with its own private CA on loopback, which checks the ExecCredential request and the
// bearer token it receives (docs/connections.md, "execPlugin"). The test API server holds
// the provider's CA, the provider token and the cluster CA, and is also the target cluster:
// the credential the provider hands out really authenticates a KubeClient there.
#include "kubebridge/clusters/exec_plugin_authenticator.h"

#include <functional>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "common/clock.h"
#include "common/rfc3339.h"
#include "gmock/gmock.h"
#include "kubebridge/clusters/secret_resolver.h"
#include "kubebridge/credentials/agent_objects.h"
#include "kubebridge/model/connection_errors.h"
#include "test/kubeapi/tls_material.h"
#include "test/kubebridge/api_server_fixture.h"
#include "test/kubebridge/clusters/credential_provider.h"

namespace credledger::kubebridge {
namespace exec_plugin_authenticator_test {

using ::credledger::testing::StatusIs;
using ::testing::HasSubstr;
using ::testing::Not;

constexpr char kNamespace[] = "ops";
constexpr char kCluster[] = "edge-1";
constexpr char kProviderToken[] = "prov-3f9c0a7e-tk";
constexpr char kRotatedProviderToken[] = "prov-81d2b644-tk";
constexpr char kProviderPath[] = "/v1/credentials";

class ExecPluginAuthenticatorTest : public ApiServerFixture {
 protected:
  void SetUp() override {
    kubeapi::ApiServerOptions options = ServerOptions();
    options.namespaces = {kNamespace};
    StartServer(std::move(options));
    CreateConfigMap("provider-ca", provider_.ca_pem());
    CreateConfigMap("cluster-ca", server_->ca_pem());
    ASSERT_OK(client_->Create(SecretResource(kNamespace),
                              {{"apiVersion", "v1"},
                               {"kind", "Secret"},
                               {"metadata", {{"name", "provider-auth"}}},
                               {"data", {{"token", absl::Base64Escape(kProviderToken)}}}}));
    resolver_ = std::make_unique<SecretResolver>(*client_);

    request_.cluster = kCluster;
    v1::ClusterSpec& spec = request_.spec;
    spec.set_namespace_(kNamespace);
    spec.set_connection_mode(v1::CLUSTER_CONNECTION_MODE_AGENTLESS);
    spec.mutable_agentless()->set_server(server_->url());
    spec.mutable_agentless()->mutable_ca_ref()->set_kind("ConfigMap");
    spec.mutable_agentless()->mutable_ca_ref()->set_name("cluster-ca");
    v1::ClusterAuth* auth = spec.mutable_agentless()->mutable_auth();
    auth->set_type(kAuthExecPlugin);
    v1::ExecPluginAuth* exec = auth->mutable_exec_plugin();
    exec->set_url(provider_.Url(absl::StrCat(kProviderPath, "?audience=edge")));
    exec->mutable_ca_ref()->set_kind("ConfigMap");
    exec->mutable_ca_ref()->set_name("provider-ca");
    exec->mutable_token_ref()->set_name("provider-auth");

    options_.clock = &clock_;
  }

  void CreateConfigMap(const std::string& name, const std::string& ca_pem) {
    ASSERT_OK(
        client_->Create(Core("configmaps", "", kNamespace), {{"apiVersion", "v1"},
                                                             {"kind", "ConfigMap"},
                                                             {"metadata", {{"name", name}}},
                                                             {"data", {{"ca.crt", ca_pem}}}}));
  }

  // The provider hands out the target cluster's admin token, valid for `lifetime` from
  // now (fake time); no expirationTimestamp when `lifetime` is zero.
  void RespondWithAdminToken(absl::Duration lifetime) {
    nlohmann::json status = {{"token", server_->admin_token()}};
    if (lifetime > absl::ZeroDuration()) {
      status["expirationTimestamp"] = common::FormatRfc3339(clock_.Now() + lifetime);
    }
    provider_.Respond(200, ExecCredentialAnswer(status));
  }

  absl::StatusOr<ConnectionConfig> Authenticate(ExecPluginAuthenticator& authenticator) {
    return authenticator.Authenticate(request_, *resolver_, nullptr);
  }

  // Two Authenticate calls at once and what became of them.
  struct TwoCalls {
    absl::StatusOr<ConnectionConfig> first = absl::UnknownError("not run");
    absl::StatusOr<ConnectionConfig> second = absl::UnknownError("not run");
    bool first_asked = false;     // the provider received the first call's request
    bool second_waited = false;   // the second call waited for the first one's provider call
  };

  // Starts a call of `authenticator` and holds its request at the provider; then starts a
  // second call and waits (up to 20 s) until it waits for the first; then runs `before_answer`
  // and lets the provider answer both.
  TwoCalls AuthenticateTwiceAtOnce(ExecPluginAuthenticator& authenticator,
                                   const std::function<void()>& before_answer) {
    TwoCalls calls;
    provider_.Hold(true);
    std::thread a([&] { calls.first = Authenticate(authenticator); });
    calls.first_asked = provider_.WaitForRequests(1, absl::Seconds(20));
    std::thread b([&] { calls.second = Authenticate(authenticator); });
    const absl::Time give_up = absl::Now() + absl::Seconds(20);
    while (authenticator.waiting_for_provider() == 0 && absl::Now() < give_up) {
      std::this_thread::yield();
    }
    calls.second_waited = authenticator.waiting_for_provider() == 1;
    before_answer();
    provider_.Hold(false);
    a.join();
    b.join();
    return calls;
  }

  // Fails the test when `status` holds a token the test knows or the provider's answer.
  void ExpectNoCredentials(const absl::Status& status) {
    const std::string message(status.message());
    for (const std::string& secret :
         {std::string(kProviderToken), server_->admin_token(), std::string("unknown token")}) {
      EXPECT_THAT(message, Not(HasSubstr(secret)));
    }
  }

  common::FakeClock clock_;
  CredentialProvider provider_{kProviderToken};
  std::unique_ptr<SecretResolver> resolver_;
  ClusterAuthRequest request_;
  ExecPluginOptions options_;
};

TEST_F(ExecPluginAuthenticatorTest, ATokenAnswerAuthenticatesAgainstTheTargetCluster) {
  RespondWithAdminToken(absl::Hours(1));
  ExecPluginAuthenticator authenticator(options_);
  ASSERT_OK_AND_ASSIGN(ConnectionConfig config, Authenticate(authenticator));

  EXPECT_EQ(config.server, server_->url());
  EXPECT_EQ(config.ca_pem, server_->ca_pem());
  EXPECT_EQ(config.token, server_->admin_token());
  EXPECT_TRUE(config.client_certificate_pem.empty());
  EXPECT_THAT(config.source, HasSubstr(kCluster));
  EXPECT_EQ(authenticator.provider_calls(), 1);

  const std::vector<ProviderRequest> seen = provider_.requests();
  ASSERT_EQ(seen.size(), 1u);
  EXPECT_EQ(seen[0].authorization, absl::StrCat("Bearer ", kProviderToken));
  EXPECT_EQ(seen[0].content_type, "application/json");
  EXPECT_EQ(seen[0].path, kProviderPath);
  EXPECT_EQ(seen[0].audience, "edge");
  const nlohmann::json want_body = {
      {"apiVersion", "client.authentication.k8s.io/v1"},
      {"kind", "ExecCredential"},
      {"spec",
       {{"interactive", false},
        {"cluster",
         {{"server", server_->url()},
          {"certificate-authority-data", absl::Base64Escape(server_->ca_pem())}}}}}};
  EXPECT_EQ(seen[0].body, want_body);

  // The handed-out token is accepted by the target cluster for a read that needs it.
  std::unique_ptr<KubeClient> target = NewClient(config, ClientOptions());
  ASSERT_NE(target, nullptr);
  ASSERT_OK_AND_ASSIGN(nlohmann::json secret,
                       target->Get(SecretResource(kNamespace, "provider-auth")));
  EXPECT_EQ(secret["metadata"]["name"], "provider-auth");
}

TEST_F(ExecPluginAuthenticatorTest, AClusterWithoutCaRefSendsNoCertificateAuthorityData) {
  request_.spec.mutable_agentless()->clear_ca_ref();
  RespondWithAdminToken(absl::ZeroDuration());
  ExecPluginAuthenticator authenticator(options_);
  ASSERT_OK_AND_ASSIGN(ConnectionConfig config, Authenticate(authenticator));
  EXPECT_TRUE(config.ca_pem.empty());
  const std::vector<ProviderRequest> seen = provider_.requests();
  ASSERT_EQ(seen.size(), 1u);
  EXPECT_EQ(seen[0].body["spec"]["cluster"], nlohmann::json({{"server", server_->url()}}));
}

TEST_F(ExecPluginAuthenticatorTest, AClientCertificateAnswerAuthenticatesToTheTargetCluster) {
  // A certificate from the target cluster's client CA for a user in system:masters.
  ASSERT_OK_AND_ASSIGN(kubeapi::ClientCertificate certificate,
                       server_->IssueClientCertificate("edge-operator", {"system:masters"}));
  provider_.Respond(200,
                    ExecCredentialAnswer({{"clientCertificateData", certificate.certificate_pem},
                                          {"clientKeyData", certificate.key_pem}}));
  ExecPluginAuthenticator authenticator(options_);
  ASSERT_OK_AND_ASSIGN(ConnectionConfig config, Authenticate(authenticator));
  EXPECT_EQ(config.client_certificate_pem, certificate.certificate_pem);
  EXPECT_EQ(config.client_key_pem, certificate.key_pem);
  EXPECT_TRUE(config.token.empty());
  EXPECT_EQ(config.server, server_->url());
  EXPECT_EQ(config.ca_pem, server_->ca_pem());

  std::unique_ptr<KubeClient> target = NewClient(config, ClientOptions());
  ASSERT_NE(target, nullptr);
  ASSERT_OK(target->Get(SecretResource(kNamespace, "provider-auth")));
}

TEST_F(ExecPluginAuthenticatorTest, ACredentialIsReusedUntilItsRefreshPoint) {
  // Lifetime 60 min: refresh once less than max(1 min, 20% of 60 min = 12 min) remains,
  // i.e. after 48 min.
  RespondWithAdminToken(absl::Minutes(60));
  ExecPluginAuthenticator authenticator(options_);
  ASSERT_OK(Authenticate(authenticator));
  clock_.Advance(absl::Minutes(48));
  ASSERT_OK_AND_ASSIGN(ConnectionConfig cached, Authenticate(authenticator));
  EXPECT_EQ(cached.token, server_->admin_token());
  EXPECT_EQ(cached.ca_pem, server_->ca_pem());
  EXPECT_EQ(authenticator.provider_calls(), 1);
  EXPECT_EQ(provider_.requests().size(), 1u);

  clock_.Advance(absl::Seconds(1));
  RespondWithAdminToken(absl::Minutes(60));
  ASSERT_OK(Authenticate(authenticator));
  EXPECT_EQ(authenticator.provider_calls(), 2);
  EXPECT_EQ(provider_.requests().size(), 2u);
}

// A burst of connections for one cluster costs one provider call: a connection that misses
// the cache while another one asks the provider waits for that answer.
TEST_F(ExecPluginAuthenticatorTest, ConcurrentMissesForOneClusterShareOneProviderCall) {
  RespondWithAdminToken(absl::Minutes(60));
  ExecPluginAuthenticator authenticator(options_);
  const TwoCalls calls = AuthenticateTwiceAtOnce(authenticator, [] {});
  ASSERT_TRUE(calls.first_asked);
  EXPECT_TRUE(calls.second_waited);
  ASSERT_OK(calls.first);
  ASSERT_OK(calls.second);
  EXPECT_EQ(calls.second->token, server_->admin_token());
  EXPECT_EQ(authenticator.provider_calls(), 1);
  EXPECT_EQ(provider_.requests().size(), 1u);
}

// A waiting connection whose wait ends without a usable answer (the call in flight failed)
// asks the provider itself.
TEST_F(ExecPluginAuthenticatorTest, AWaiterAsksItselfWhenTheCallInFlightFails) {
  provider_.Respond(503, "{}");
  ExecPluginAuthenticator authenticator(options_);
  const TwoCalls calls = AuthenticateTwiceAtOnce(authenticator, [&] {
    RespondWithAdminToken(absl::Minutes(60));  // the waiter's own call succeeds
  });
  ASSERT_TRUE(calls.first_asked);
  EXPECT_TRUE(calls.second_waited);
  EXPECT_THAT(calls.first, StatusIs(absl::StatusCode::kUnavailable));
  ASSERT_OK(calls.second);
  EXPECT_EQ(authenticator.provider_calls(), 2);
}

TEST_F(ExecPluginAuthenticatorTest, AShortLivedCredentialKeepsTheMinimumMargin) {
  // Lifetime 2 min: 20% is 24 s, less than the 1 min minimum, so refresh after 1 min.
  RespondWithAdminToken(absl::Minutes(2));
  ExecPluginAuthenticator authenticator(options_);
  ASSERT_OK(Authenticate(authenticator));
  clock_.Advance(absl::Seconds(60));
  ASSERT_OK(Authenticate(authenticator));
  EXPECT_EQ(authenticator.provider_calls(), 1);
  clock_.Advance(absl::Seconds(1));
  ASSERT_OK(Authenticate(authenticator));
  EXPECT_EQ(authenticator.provider_calls(), 2);
}

TEST_F(ExecPluginAuthenticatorTest, ACredentialWithoutExpiryIsNeverReused) {
  RespondWithAdminToken(absl::ZeroDuration());
  ExecPluginAuthenticator authenticator(options_);
  ASSERT_OK(Authenticate(authenticator));
  ASSERT_OK(Authenticate(authenticator));
  ASSERT_OK(Authenticate(authenticator));
  EXPECT_EQ(authenticator.provider_calls(), 3);
  EXPECT_EQ(provider_.requests().size(), 3u);
}

TEST_F(ExecPluginAuthenticatorTest, ACredentialThatArrivesExpiredIsNotReused) {
  provider_.Respond(
      200, ExecCredentialAnswer(
               {{"token", server_->admin_token()},
                {"expirationTimestamp", common::FormatRfc3339(clock_.Now() - absl::Minutes(5))}}));
  ExecPluginAuthenticator authenticator(options_);
  ASSERT_OK(Authenticate(authenticator));
  ASSERT_OK(Authenticate(authenticator));
  EXPECT_EQ(authenticator.provider_calls(), 2);
}

TEST_F(ExecPluginAuthenticatorTest, ARotatedProviderTokenMissesTheCache) {
  RespondWithAdminToken(absl::Hours(1));
  ExecPluginAuthenticator authenticator(options_);
  ASSERT_OK(Authenticate(authenticator));

  ASSERT_OK_AND_ASSIGN(nlohmann::json secret,
                       client_->Get(SecretResource(kNamespace, "provider-auth")));
  secret["data"]["token"] = absl::Base64Escape(kRotatedProviderToken);
  ASSERT_OK(client_->Update(SecretResource(kNamespace, "provider-auth"), secret));
  provider_.ExpectToken(kRotatedProviderToken);

  ASSERT_OK_AND_ASSIGN(ConnectionConfig config, Authenticate(authenticator));
  EXPECT_EQ(config.token, server_->admin_token());
  EXPECT_EQ(authenticator.provider_calls(), 2);
  const std::vector<ProviderRequest> seen = provider_.requests();
  ASSERT_EQ(seen.size(), 2u);
  EXPECT_EQ(seen[1].authorization, absl::StrCat("Bearer ", kRotatedProviderToken));
}

TEST_F(ExecPluginAuthenticatorTest, ClustersAreCachedSeparately) {
  RespondWithAdminToken(absl::Hours(1));
  ExecPluginAuthenticator authenticator(options_);
  ASSERT_OK(Authenticate(authenticator));
  request_.cluster = "edge-2";
  ASSERT_OK(Authenticate(authenticator));
  EXPECT_EQ(authenticator.provider_calls(), 2);
  request_.cluster = kCluster;
  ASSERT_OK(Authenticate(authenticator));
  EXPECT_EQ(authenticator.provider_calls(), 2);
}

TEST_F(ExecPluginAuthenticatorTest, ProviderAnswersMapToTheDocumentedErrors) {
  const std::string expiry = common::FormatRfc3339(clock_.Now() + absl::Hours(1));
  struct Case {
    const char* what;
    int status;
    std::string body;
    absl::StatusCode code;
  };
  const std::vector<Case> cases = {
      {"forbidden", 403, R"({"error":"no"})", absl::StatusCode::kPermissionDenied},
      {"server error", 500, "boom", absl::StatusCode::kUnavailable},
      {"throttled", 429, "", absl::StatusCode::kUnavailable},
      {"created, not 200", 201, ExecCredentialAnswer({{"token", server_->admin_token()}}),
       absl::StatusCode::kInvalidArgument},
      {"invalid JSON", 200, "{\"apiVersion\": ", absl::StatusCode::kInvalidArgument},
      {"JSON array", 200, "[]", absl::StatusCode::kInvalidArgument},
      {"wrong apiVersion", 200,
       nlohmann::json{{"apiVersion", "client.authentication.k8s.io/v1beta1"},
                      {"kind", "ExecCredential"},
                      {"status", {{"token", server_->admin_token()}}}}
           .dump(),
       absl::StatusCode::kInvalidArgument},
      {"wrong kind", 200,
       nlohmann::json{{"apiVersion", "client.authentication.k8s.io/v1"},
                      {"kind", "Status"},
                      {"status", {{"token", server_->admin_token()}}}}
           .dump(),
       absl::StatusCode::kInvalidArgument},
      {"no status", 200,
       nlohmann::json{{"apiVersion", "client.authentication.k8s.io/v1"}, {"kind", "ExecCredential"}}
           .dump(),
       absl::StatusCode::kInvalidArgument},
      {"no token", 200, ExecCredentialAnswer({{"expirationTimestamp", expiry}}),
       absl::StatusCode::kInvalidArgument},
      {"token not a string", 200, ExecCredentialAnswer({{"token", 42}}),
       absl::StatusCode::kInvalidArgument},
      {"certificate without key", 200,
       ExecCredentialAnswer({{"clientCertificateData", server_->ca_pem()}}),
       absl::StatusCode::kInvalidArgument},
      {"certificate not PEM", 200,
       ExecCredentialAnswer({{"clientCertificateData", "abc"}, {"clientKeyData", "def"}}),
       absl::StatusCode::kInvalidArgument},
      {"malformed expiry", 200,
       ExecCredentialAnswer(
           {{"token", server_->admin_token()}, {"expirationTimestamp", "next tuesday"}}),
       absl::StatusCode::kInvalidArgument},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.what);
    provider_.Respond(c.status, c.body);
    ExecPluginAuthenticator authenticator(options_);
    absl::StatusOr<ConnectionConfig> config = Authenticate(authenticator);
    EXPECT_THAT(config, StatusIs(c.code, HasSubstr(provider_.Url(kProviderPath))));
    EXPECT_FALSE(IsUnsupported(config.status()));
    ExpectNoCredentials(config.status());
    EXPECT_EQ(authenticator.provider_calls(), 1);
  }
}

TEST_F(ExecPluginAuthenticatorTest, ARejectedProviderTokenIsUnauthenticatedWithoutEchoes) {
  RespondWithAdminToken(absl::Hours(1));
  provider_.ExpectToken("another-token");
  ExecPluginAuthenticator authenticator(options_);
  absl::StatusOr<ConnectionConfig> config = Authenticate(authenticator);
  EXPECT_THAT(config, StatusIs(absl::StatusCode::kUnauthenticated,
                               HasSubstr(provider_.Url(kProviderPath))));
  // The message leaves out the query and the provider's body, which echoes the token.
  EXPECT_THAT(config.status().message(), Not(HasSubstr("audience")));
  ExpectNoCredentials(config.status());
}

TEST_F(ExecPluginAuthenticatorTest, AFailedRefreshIsNotAnsweredFromTheCache) {
  RespondWithAdminToken(absl::Hours(1));
  ExecPluginAuthenticator authenticator(options_);
  ASSERT_OK(Authenticate(authenticator));
  clock_.Advance(absl::Minutes(50));
  provider_.Respond(503, "");
  EXPECT_THAT(Authenticate(authenticator), StatusIs(absl::StatusCode::kUnavailable));
  EXPECT_EQ(authenticator.provider_calls(), 2);
}

TEST_F(ExecPluginAuthenticatorTest, RedirectsAreNotFollowed) {
  RespondWithAdminToken(absl::Hours(1));
  provider_.Respond(307, "", provider_.Url("/elsewhere"));
  ExecPluginAuthenticator authenticator(options_);
  absl::StatusOr<ConnectionConfig> config = Authenticate(authenticator);
  EXPECT_FALSE(config.ok());
  EXPECT_THAT(config.status().message(), HasSubstr("HTTP 307"));
  EXPECT_EQ(provider_.requests().size(), 1u);
}

TEST_F(ExecPluginAuthenticatorTest, AnUntrustedProviderCertificateIsRefused) {
  // The provider's certificate is checked against the API server's CA, which did not sign
  // it.
  request_.spec.mutable_agentless()
      ->mutable_auth()
      ->mutable_exec_plugin()
      ->mutable_ca_ref()
      ->set_name("cluster-ca");
  RespondWithAdminToken(absl::Hours(1));
  ExecPluginAuthenticator authenticator(options_);
  absl::StatusOr<ConnectionConfig> config = Authenticate(authenticator);
  EXPECT_THAT(config, StatusIs(absl::StatusCode::kFailedPrecondition,
                               HasSubstr(provider_.Url(kProviderPath))));
  ExpectNoCredentials(config.status());
  EXPECT_TRUE(provider_.requests().empty());
}

TEST_F(ExecPluginAuthenticatorTest, AnUnreachableProviderIsUnavailable) {
  auto gone = std::make_unique<CredentialProvider>(kProviderToken);
  const std::string url = gone->Url(kProviderPath);
  gone.reset();
  request_.spec.mutable_agentless()->mutable_auth()->mutable_exec_plugin()->set_url(url);
  ExecPluginAuthenticator authenticator(options_);
  EXPECT_THAT(Authenticate(authenticator),
              StatusIs(absl::StatusCode::kUnavailable, HasSubstr(url)));
}

TEST_F(ExecPluginAuthenticatorTest, AProviderUrlMustBeHttpsWithoutUserInfo) {
  ExecPluginAuthenticator authenticator(options_);
  for (const std::string& url :
       {absl::StrCat("http://127.0.0.1:1", kProviderPath), std::string(""), std::string("https://"),
        std::string("https://user:pa55word@127.0.0.1/x"), std::string("https://127.0.0.1/x#frag"),
        std::string("ftp://127.0.0.1/x")}) {
    SCOPED_TRACE(url);
    request_.spec.mutable_agentless()->mutable_auth()->mutable_exec_plugin()->set_url(url);
    absl::StatusOr<ConnectionConfig> config = Authenticate(authenticator);
    EXPECT_THAT(config, StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("https://")));
    EXPECT_THAT(config.status().message(), Not(HasSubstr("pa55word")));
  }
  EXPECT_EQ(authenticator.provider_calls(), 0);
  EXPECT_TRUE(provider_.requests().empty());
}

// Stricter than the hand-written split, which sent any authority to the transport: a port
// outside 1-65535 or a host libcurl cannot read is refused before any call.
TEST_F(ExecPluginAuthenticatorTest, AProviderUrlWithABadPortOrHostIsRefusedBeforeAnyCall) {
  ExecPluginAuthenticator authenticator(options_);
  for (const char* url : {"https://127.0.0.1:99999/x", "https://127.0.0.1:0/x",
                          "https://bad!host/x", "https://[::1/x"}) {
    SCOPED_TRACE(url);
    request_.spec.mutable_agentless()->mutable_auth()->mutable_exec_plugin()->set_url(url);
    EXPECT_THAT(Authenticate(authenticator),
                StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("https://")));
  }
  EXPECT_EQ(authenticator.provider_calls(), 0);
}

// Looser than refusing every '#': libcurl drops an empty fragment, which is never sent.
TEST_F(ExecPluginAuthenticatorTest, AnEmptyFragmentIsDropped) {
  RespondWithAdminToken(absl::Hours(1));
  request_.spec.mutable_agentless()->mutable_auth()->mutable_exec_plugin()->set_url(
      provider_.Url(absl::StrCat(kProviderPath, "#")));
  ExecPluginAuthenticator authenticator(options_);
  ASSERT_OK(Authenticate(authenticator));
  const std::vector<ProviderRequest> seen = provider_.requests();
  ASSERT_EQ(seen.size(), 1u);
  EXPECT_EQ(seen[0].path, kProviderPath);
}

TEST_F(ExecPluginAuthenticatorTest, AnUpperCaseSchemeAndNoPathPostToTheRoot) {
  RespondWithAdminToken(absl::Hours(1));
  std::string url = provider_.Url("");
  url.replace(0, 5, "HTTPS");
  request_.spec.mutable_agentless()->mutable_auth()->mutable_exec_plugin()->set_url(url);
  ExecPluginAuthenticator authenticator(options_);
  ASSERT_OK(Authenticate(authenticator));
  const std::vector<ProviderRequest> seen = provider_.requests();
  ASSERT_EQ(seen.size(), 1u);
  EXPECT_EQ(seen[0].path, "/");
}

TEST_F(ExecPluginAuthenticatorTest, AMissingBlockIsUnsupported) {
  request_.spec.mutable_agentless()->mutable_auth()->clear_exec_plugin();
  ExecPluginAuthenticator authenticator(options_);
  absl::StatusOr<ConnectionConfig> config = Authenticate(authenticator);
  EXPECT_TRUE(IsUnsupported(config.status())) << config.status();
}

TEST_F(ExecPluginAuthenticatorTest, AnEmptyServerIsInvalid) {
  request_.spec.mutable_agentless()->clear_server();
  ExecPluginAuthenticator authenticator(options_);
  EXPECT_THAT(Authenticate(authenticator),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("agentless.server")));
  EXPECT_EQ(authenticator.provider_calls(), 0);
}

TEST_F(ExecPluginAuthenticatorTest, AMissingProviderTokenSecretNamesTheReference) {
  request_.spec.mutable_agentless()
      ->mutable_auth()
      ->mutable_exec_plugin()
      ->mutable_token_ref()
      ->set_name("absent");
  ExecPluginAuthenticator authenticator(options_);
  EXPECT_THAT(Authenticate(authenticator),
              StatusIs(absl::StatusCode::kNotFound,
                       ::testing::AllOf(HasSubstr("execPlugin.tokenRef"), HasSubstr("absent"))));
  EXPECT_EQ(authenticator.provider_calls(), 0);
}

TEST_F(ExecPluginAuthenticatorTest, AnEmptyProviderTokenIsInvalid) {
  ASSERT_OK(client_->Create(SecretResource(kNamespace),
                            {{"apiVersion", "v1"},
                             {"kind", "Secret"},
                             {"metadata", {{"name", "blank"}}},
                             {"data", {{"token", absl::Base64Escape(" \n")}}}}));
  request_.spec.mutable_agentless()
      ->mutable_auth()
      ->mutable_exec_plugin()
      ->mutable_token_ref()
      ->set_name("blank");
  ExecPluginAuthenticator authenticator(options_);
  EXPECT_THAT(Authenticate(authenticator),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("ops/blank")));
  EXPECT_TRUE(provider_.requests().empty());
}

TEST_F(ExecPluginAuthenticatorTest, AnAnswerAboveTheSizeLimitIsRefused) {
  RespondWithAdminToken(absl::Hours(1));
  options_.max_response_bytes = 64;
  ExecPluginAuthenticator authenticator(options_);
  EXPECT_THAT(Authenticate(authenticator),
              StatusIs(absl::StatusCode::kResourceExhausted, HasSubstr("64 bytes")));
}

}  // namespace exec_plugin_authenticator_test
}  // namespace credledger::kubebridge
