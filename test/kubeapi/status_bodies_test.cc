// Contract tests: error responses carry kube-apiserver's exact Status bodies (fixtures in
// test/testdata/kubeapi/status_*.json, written from the Kubernetes API conventions).
#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "test/kubeapi/test_support.h"

namespace credledger::kubeapi::testing {
namespace status_bodies_test {

class StatusBodiesTest : public ApiServerTest {
 protected:
  void SetUp() override {
    ApiServerTest::SetUp();
    CreateNamespace("team-a");
  }
  const std::string secrets_ = "/api/v1/namespaces/team-a/secrets";
  nlohmann::json Secret(const std::string& name) {
    return {{"apiVersion", "v1"}, {"kind", "Secret"}, {"metadata", {{"name", name}}}};
  }
};

TEST_F(StatusBodiesTest, MissingTokenIsUnauthorized) {
  Reply reply = As("").Get(secrets_);
  EXPECT_EQ(reply.status, 401);
  EXPECT_TRUE(MatchesFixture(reply.body, "status_401_unauthorized.json"));
}

TEST_F(StatusBodiesTest, UnknownTokenIsUnauthorized) {
  Reply reply = As("not-a-token").Get(secrets_);
  EXPECT_EQ(reply.status, 401);
  EXPECT_TRUE(MatchesFixture(reply.body, "status_401_unauthorized.json"));
}

TEST_F(StatusBodiesTest, GetOfMissingSecretIsNotFound) {
  Reply reply = Admin().Get(secrets_ + "/missing");
  EXPECT_EQ(reply.status, 404);
  EXPECT_TRUE(MatchesFixture(reply.body, "status_404_secret.json"));
}

TEST_F(StatusBodiesTest, NotFoundOfCustomResourceNamesTheGroup) {
  Reply reply = Admin().Get("/apis/solar.opendefense.cloud/v1alpha1/namespaces/team-a/targets/missing");
  EXPECT_EQ(reply.status, 404);
  EXPECT_TRUE(MatchesFixture(reply.body, "status_404_target.json"));
}

TEST_F(StatusBodiesTest, CreateInMissingNamespaceIsNotFound) {
  Reply reply = Admin().Post("/api/v1/namespaces/nowhere/secrets", Secret("db-password"));
  EXPECT_EQ(reply.status, 404);
  EXPECT_TRUE(MatchesFixture(reply.body, "status_404_namespace.json"));
}

TEST_F(StatusBodiesTest, SecondCreateIsAlreadyExists) {
  ASSERT_EQ(Admin().Post(secrets_, Secret("db-password")).status, 201);
  Reply reply = Admin().Post(secrets_, Secret("db-password"));
  EXPECT_EQ(reply.status, 409);
  EXPECT_TRUE(MatchesFixture(reply.body, "status_409_already_exists.json"));
}

TEST_F(StatusBodiesTest, UpdateWithStaleResourceVersionIsConflict) {
  Reply created = Admin().Post(secrets_, Secret("db-password"));
  ASSERT_EQ(created.status, 201);
  nlohmann::json first = created.body;
  first["data"] = {{"k", "YQ=="}};
  ASSERT_EQ(Admin().Put(secrets_ + "/db-password", first).status, 200);
  nlohmann::json stale = created.body;  // still carries the original resourceVersion
  stale["data"] = {{"k", "Yg=="}};
  Reply reply = Admin().Put(secrets_ + "/db-password", stale);
  EXPECT_EQ(reply.status, 409);
  EXPECT_TRUE(MatchesFixture(reply.body, "status_409_stale_update.json"));
}

TEST_F(StatusBodiesTest, MissingNameIsInvalid) {
  Reply reply = Admin().Post(secrets_, {{"apiVersion", "v1"}, {"kind", "Secret"},
                                        {"metadata", nlohmann::json::object()}});
  EXPECT_EQ(reply.status, 422);
  EXPECT_TRUE(MatchesFixture(reply.body, "status_422_missing_name.json"));
}

TEST_F(StatusBodiesTest, NameThatIsNotADnsSubdomainIsInvalid) {
  Reply reply = Admin().Post(secrets_, Secret("Bad_Name"));
  EXPECT_EQ(reply.status, 422);
  EXPECT_TRUE(MatchesFixture(reply.body, "status_422_invalid_name.json"));
}

TEST_F(StatusBodiesTest, BodyOfAnotherKindIsInvalid) {
  Reply reply = Admin().Post(secrets_, {{"apiVersion", "v1"}, {"kind", "ConfigMap"},
                                        {"metadata", {{"name", "settings"}}}});
  EXPECT_EQ(reply.status, 422);
  EXPECT_TRUE(MatchesFixture(reply.body, "status_422_kind_mismatch.json"));
}

TEST_F(StatusBodiesTest, BodyWithoutKindIsBadRequest) {
  Reply reply = Admin().Post(secrets_, {{"apiVersion", "v1"}, {"metadata", {{"name", "x"}}}});
  EXPECT_EQ(reply.status, 400);
  EXPECT_EQ(reply.body["reason"], "BadRequest");
  EXPECT_EQ(reply.body["message"],
            "Object 'Kind' is missing in '{\"apiVersion\":\"v1\",\"metadata\":{\"name\":\"x\"}}'");
}

TEST_F(StatusBodiesTest, UnknownPathIsNotFoundWithEmptyDetails) {
  Reply reply = Admin().Get("/apis/no.such.group");
  EXPECT_EQ(reply.status, 404);
  EXPECT_TRUE(MatchesJson(reply.body, {{"kind", "Status"},
                                       {"apiVersion", "v1"},
                                       {"metadata", nlohmann::json::object()},
                                       {"status", "Failure"},
                                       {"message", "the server could not find the requested resource"},
                                       {"reason", "NotFound"},
                                       {"details", nlohmann::json::object()},
                                       {"code", 404}}));
}

TEST_F(StatusBodiesTest, ProtobufBodyIsUnsupportedMediaType) {
  Reply reply = Admin().Send("POST", secrets_, "\x6b\x38\x73", "application/vnd.kubernetes.protobuf");
  EXPECT_EQ(reply.status, 415);
  EXPECT_EQ(reply.body["reason"], "UnsupportedMediaType");
}

}  // namespace status_bodies_test
}  // namespace credledger::kubeapi::testing
