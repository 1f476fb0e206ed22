// Contract tests: TokenRequest (defaults, minimum, clamping, bound objects) and the
// lifetime of the tokens it issues (expiry on the injected clock, revocation when the
// bound Secret or the ServiceAccount goes away), and TokenReview.
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "gtest/gtest.h"
#include "test/kubeapi/encoding.h"
#include "test/kubeapi/test_support.h"

namespace credledger::kubeapi::testing {
namespace token_test {

const char kTokenPath[] = "/api/v1/namespaces/team-a/serviceaccounts/agent/token";

nlohmann::json TokenRequest(const nlohmann::json& spec) {
  return {{"apiVersion", "authentication.k8s.io/v1"}, {"kind", "TokenRequest"}, {"spec", spec}};
}

nlohmann::json BoundTo(const std::string& secret, const std::string& uid = "") {
  nlohmann::json ref = {{"kind", "Secret"}, {"apiVersion", "v1"}, {"name", secret}};
  if (!uid.empty()) ref["uid"] = uid;
  return ref;
}

nlohmann::json Claims(const std::string& jwt) {
  std::vector<std::string> parts = absl::StrSplit(jwt, '.');
  EXPECT_EQ(parts.size(), 3u);
  std::optional<std::string> text = Base64UrlDecode(parts.size() == 3 ? parts[1] : "");
  return nlohmann::json::parse(text.value_or(""), nullptr, false);
}

class TokenTest : public ApiServerTest {
 protected:
  void SetUp() override {
    ApiServerTest::SetUp();
    CreateNamespace("team-a");
    sa_ = CreateServiceAccount("team-a", "agent");
    secret_ = CreateSecret("team-a", "agent-token");
  }
  // True when `token` authenticates a request (any verb it may do: a 403 also proves it).
  int StatusWith(const std::string& token) {
    return As(token).Get("/api/v1/namespaces/team-a/secrets/agent-token").status;
  }
  nlohmann::json sa_;
  nlohmann::json secret_;
};

TEST_F(TokenTest, TokenRequestAnswersTheTokenAndItsExpiry) {
  Reply reply = Admin().Post(kTokenPath, TokenRequest({{"boundObjectRef", BoundTo("agent-token")}}));
  ASSERT_EQ(reply.status, 201) << reply.raw;
  EXPECT_TRUE(MatchesFixture(reply.body, "token_request_response.json",
                             {{"SA_UID", sa_["metadata"]["uid"]}}));
  nlohmann::json claims = Claims(reply.body["status"]["token"]);
  EXPECT_EQ(claims["iss"], "https://kubernetes.default.svc.cluster.local");
  EXPECT_EQ(claims["sub"], "system:serviceaccount:team-a:agent");
  EXPECT_EQ(claims["aud"], nlohmann::json::array({"https://kubernetes.default.svc.cluster.local"}));
  EXPECT_EQ(claims["iat"], 1767225600);
  EXPECT_EQ(claims["nbf"], 1767225600);
  EXPECT_EQ(claims["exp"], 1767225600 + 3600);
  EXPECT_TRUE(claims["jti"].is_string());
  EXPECT_EQ(claims["kubernetes.io"],
            (nlohmann::json{{"namespace", "team-a"},
                            {"serviceaccount", {{"name", "agent"}, {"uid", sa_["metadata"]["uid"]}}},
                            {"secret", {{"name", "agent-token"}, {"uid", secret_["metadata"]["uid"]}}}}));
}

TEST_F(TokenTest, ExpirationBelowTenMinutesIsInvalid) {
  Reply reply = Admin().Post(kTokenPath, TokenRequest({{"expirationSeconds", 599}}));
  EXPECT_EQ(reply.status, 422);
  EXPECT_TRUE(MatchesFixture(reply.body, "status_422_token_expiration.json"));
  EXPECT_EQ(Admin().Post(kTokenPath, TokenRequest({{"expirationSeconds", 600}})).status, 201);
}

TEST_F(TokenTest, ExpirationAboveTheMaximumIsClamped) {
  Reply reply = Admin().Post(kTokenPath, TokenRequest({{"expirationSeconds", 7 * 24 * 3600}}));
  ASSERT_EQ(reply.status, 201);
  EXPECT_EQ(reply.body["spec"]["expirationSeconds"], 48 * 3600);
  EXPECT_EQ(reply.body["status"]["expirationTimestamp"], "2026-01-03T00:00:00Z");
  EXPECT_EQ(Claims(reply.body["status"]["token"])["exp"], 1767225600 + 48 * 3600);
}

TEST_F(TokenTest, MissingServiceAccountIsNotFound) {
  Reply reply = Admin().Post("/api/v1/namespaces/team-a/serviceaccounts/ghost/token",
                             TokenRequest(nlohmann::json::object()));
  EXPECT_EQ(reply.status, 404);
  EXPECT_TRUE(MatchesFixture(reply.body, "status_404_serviceaccount.json"));
}

TEST_F(TokenTest, MissingBoundSecretIsNotFound) {
  Reply reply = Admin().Post(kTokenPath, TokenRequest({{"boundObjectRef", BoundTo("missing")}}));
  EXPECT_EQ(reply.status, 404);
  EXPECT_TRUE(MatchesFixture(reply.body, "status_404_secret.json"));
}

TEST_F(TokenTest, BoundSecretUidMismatchIsConflict) {
  Reply reply = Admin().Post(
      kTokenPath,
      TokenRequest({{"boundObjectRef", BoundTo("agent-token", "00000000-0000-4000-8000-000000000000")}}));
  EXPECT_EQ(reply.status, 409);
  EXPECT_TRUE(MatchesFixture(reply.body, "status_409_token_bound_uid.json"));
  EXPECT_EQ(Admin().Post(kTokenPath, TokenRequest({{"boundObjectRef",
                                                    BoundTo("agent-token", secret_["metadata"]["uid"])}}))
                .status,
            201);
}

TEST_F(TokenTest, TokenStopsWorkingWhenItsBoundSecretIsDeleted) {
  std::string token = IssueToken("team-a", "agent", "agent-token");
  EXPECT_EQ(StatusWith(token), 403) << "authenticated (but not authorized)";
  ASSERT_EQ(Admin().Delete("/api/v1/namespaces/team-a/secrets/agent-token").status, 200);
  EXPECT_EQ(StatusWith(token), 401);
  // A re-created Secret of the same name has another uid: the token stays revoked.
  CreateSecret("team-a", "agent-token");
  Reply reply = As(token).Get("/api/v1/namespaces/team-a/secrets/agent-token");
  EXPECT_EQ(reply.status, 401);
  EXPECT_TRUE(MatchesFixture(reply.body, "status_401_unauthorized.json"));
}

TEST_F(TokenTest, TokenStopsWorkingWhenItsServiceAccountIsDeleted) {
  std::string token = IssueToken("team-a", "agent");
  EXPECT_EQ(StatusWith(token), 403);
  ASSERT_EQ(Admin().Delete("/api/v1/namespaces/team-a/serviceaccounts/agent").status, 200);
  EXPECT_EQ(StatusWith(token), 401);
}

TEST_F(TokenTest, TokenExpiresOnTheInjectedClock) {
  std::string token = IssueToken("team-a", "agent", "", 600);
  clock_.Advance(absl::Seconds(599));
  EXPECT_EQ(StatusWith(token), 403);
  clock_.Advance(absl::Seconds(1));
  EXPECT_EQ(StatusWith(token), 401);
}

TEST_F(TokenTest, TokenForAnotherAudienceDoesNotAuthenticateToTheApiServer) {
  Reply reply = Admin().Post(kTokenPath, TokenRequest({{"audiences", nlohmann::json::array({"vault"})}}));
  ASSERT_EQ(reply.status, 201);
  std::string token = reply.body["status"]["token"];
  EXPECT_EQ(StatusWith(token), 401);
  Reply review = Admin().Post("/apis/authentication.k8s.io/v1/tokenreviews",
                              {{"apiVersion", "authentication.k8s.io/v1"}, {"kind", "TokenReview"},
                               {"spec", {{"token", token}, {"audiences", nlohmann::json::array({"vault"})}}}});
  ASSERT_EQ(review.status, 201);
  EXPECT_EQ(review.body["status"]["authenticated"], true);
  EXPECT_EQ(review.body["status"]["audiences"], nlohmann::json::array({"vault"}));
}

TEST_F(TokenTest, TokenReviewAuthenticatesAServiceAccountToken) {
  std::string token = IssueToken("team-a", "agent");
  Reply review = Admin().Post("/apis/authentication.k8s.io/v1/tokenreviews",
                              {{"apiVersion", "authentication.k8s.io/v1"}, {"kind", "TokenReview"},
                               {"spec", {{"token", token}}}});
  ASSERT_EQ(review.status, 201) << review.raw;
  EXPECT_TRUE(MatchesFixture(review.body, "token_review_authenticated.json",
                             {{"SA_UID", sa_["metadata"]["uid"]}}));
  std::string credential = review.body["status"]["user"]["extra"]
                                      ["authentication.kubernetes.io/credential-id"][0];
  EXPECT_EQ(credential, absl::StrCat("JTI=", Claims(token)["jti"].get<std::string>()));
}

TEST_F(TokenTest, TokenReviewRejectsAnUnknownToken) {
  Reply review = Admin().Post("/apis/authentication.k8s.io/v1/tokenreviews",
                              {{"apiVersion", "authentication.k8s.io/v1"}, {"kind", "TokenReview"},
                               {"spec", {{"token", "not-a-token"}}}});
  ASSERT_EQ(review.status, 201);
  EXPECT_TRUE(MatchesFixture(review.body, "token_review_rejected.json"));
}

TEST_F(TokenTest, ForgedSignatureIsRejected) {
  std::string token = IssueToken("team-a", "agent");
  std::vector<std::string> parts = absl::StrSplit(token, '.');
  nlohmann::json claims = Claims(token);
  claims["sub"] = "system:serviceaccount:kube-system:admin";
  std::string forged = absl::StrCat(parts[0], ".", Base64UrlEncode(claims.dump()), ".", parts[2]);
  EXPECT_EQ(StatusWith(forged), 401);
}

}  // namespace token_test
}  // namespace credledger::kubeapi::testing
