// Contract tests: create, get, list (label selectors), update, patch and delete with the
// semantics of kube-apiserver (server-set metadata, resourceVersion, generation,
// preconditions, finalizers, Secret rules).
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "test/kubeapi/test_support.h"

namespace credledger::kubeapi::testing {
namespace crud_test {

const char kSecrets[] = "/api/v1/namespaces/team-a/secrets";
const char kTargets[] = "/apis/solar.opendefense.cloud/v1alpha1/namespaces/team-a/targets";

int64_t Rv(const nlohmann::json& object) {
  int64_t rv = 0;
  EXPECT_TRUE(absl::SimpleAtoi(object["metadata"]["resourceVersion"].get<std::string>(), &rv));
  return rv;
}

std::vector<std::string> Names(const nlohmann::json& list) {
  std::vector<std::string> names;
  for (const auto& item : list["items"]) names.push_back(item["metadata"]["name"]);
  return names;
}

class CrudTest : public ApiServerTest {
 protected:
  void SetUp() override {
    ApiServerTest::SetUp();
    CreateNamespace("team-a");
  }
  nlohmann::json DbSecret() {
    return {{"apiVersion", "v1"},
            {"kind", "Secret"},
            {"metadata", {{"name", "db-password"}, {"labels", {{"app", "db"}}}}},
            {"data", {{"password", "aHVudGVyMg=="}}}};
  }
  nlohmann::json Target(const std::string& name) {
    return {{"apiVersion", "solar.opendefense.cloud/v1alpha1"},
            {"kind", "Target"},
            {"metadata", {{"name", name}}},
            {"spec", {{"cluster", name}}}};
  }
};

TEST_F(CrudTest, CreateSetsUidResourceVersionTimestampAndDefaultsSecretType) {
  Reply reply = Admin().Post(kSecrets, DbSecret());
  ASSERT_EQ(reply.status, 201) << reply.raw;
  EXPECT_TRUE(MatchesFixture(reply.body, "secret_created.json"));
  Reply got = Admin().Get(absl::StrCat(kSecrets, "/db-password"));
  EXPECT_EQ(got.status, 200);
  EXPECT_EQ(got.body, reply.body);
}

TEST_F(CrudTest, ListOmitsItemTypeMetaAndCarriesTheListResourceVersion) {
  ASSERT_EQ(Admin().Post(kSecrets, DbSecret()).status, 201);
  Reply list = Admin().Get(kSecrets);
  ASSERT_EQ(list.status, 200);
  EXPECT_TRUE(MatchesFixture(list.body, "secret_list.json"));
  EXPECT_EQ(list.body["metadata"]["resourceVersion"], absl::StrCat(server_->resource_version()));
}

TEST_F(CrudTest, LabelSelectorsFilterLists) {
  CreateSecret("team-a", "a", {{"tier", "web"}, {"env", "prod"}});
  CreateSecret("team-a", "b", {{"tier", "db"}, {"env", "prod"}});
  CreateSecret("team-a", "c", {{"tier", "db"}});
  CreateSecret("team-a", "d", nlohmann::json::object());
  auto select = [&](const std::string& selector) {
    return Names(Admin().Get(absl::StrCat(kSecrets, "?labelSelector=", selector)).body);
  };
  using V = std::vector<std::string>;
  EXPECT_EQ(select("tier%3Ddb"), (V{"b", "c"}));
  EXPECT_EQ(select("tier%3D%3Dweb"), (V{"a"}));
  EXPECT_EQ(select("tier!%3Ddb"), (V{"a", "d"}));
  EXPECT_EQ(select("tier%20in%20(web,db),env"), (V{"a", "b"}));
  EXPECT_EQ(select("tier%20notin%20(web)"), (V{"b", "c", "d"}));
  EXPECT_EQ(select("env"), (V{"a", "b"}));
  EXPECT_EQ(select("!env"), (V{"c", "d"}));
  EXPECT_EQ(Admin().Get(absl::StrCat(kSecrets, "?labelSelector=a%20in%20b")).status, 400);
}

TEST_F(CrudTest, ListWithoutNamespaceSpansAllNamespaces) {
  CreateNamespace("team-b");
  CreateSecret("team-a", "one");
  CreateSecret("team-b", "two");
  Reply list = Admin().Get("/api/v1/secrets");
  ASSERT_EQ(list.status, 200);
  EXPECT_EQ(Names(list.body), (std::vector<std::string>{"one", "two"}));
}

TEST_F(CrudTest, ResourceVersionIsOneGlobalIncreasingCounter) {
  int64_t before = server_->resource_version();
  nlohmann::json secret = CreateSecret("team-a", "s");
  nlohmann::json sa = CreateServiceAccount("team-a", "sa");
  EXPECT_EQ(Rv(secret), before + 1);
  EXPECT_EQ(Rv(sa), before + 2);
}

TEST_F(CrudTest, UpdateKeepsIdentityAndBumpsResourceVersion) {
  nlohmann::json created = CreateObject(kSecrets, DbSecret());
  clock_.Advance(absl::Minutes(5));
  nlohmann::json changed = created;
  changed["data"]["extra"] = "eA==";
  changed["metadata"]["uid"] = "";  // an empty uid is not a precondition
  changed["metadata"]["creationTimestamp"] = "2030-01-01T00:00:00Z";
  Reply reply = Admin().Put(absl::StrCat(kSecrets, "/db-password"), changed);
  ASSERT_EQ(reply.status, 200) << reply.raw;
  EXPECT_EQ(reply.body["metadata"]["uid"], created["metadata"]["uid"]);
  EXPECT_EQ(reply.body["metadata"]["creationTimestamp"], "2026-01-01T00:00:00Z");
  EXPECT_GT(Rv(reply.body), Rv(created));
  EXPECT_EQ(reply.body["data"]["extra"], "eA==");
}

TEST_F(CrudTest, UpdateWithoutChangesKeepsTheResourceVersion) {
  nlohmann::json created = CreateObject(kSecrets, DbSecret());
  Reply reply = Admin().Put(absl::StrCat(kSecrets, "/db-password"), created);
  ASSERT_EQ(reply.status, 200);
  EXPECT_EQ(reply.body["metadata"]["resourceVersion"], created["metadata"]["resourceVersion"]);
}

TEST_F(CrudTest, UpdateOfMissingObjectIsNotFound) {
  nlohmann::json secret = DbSecret();
  secret["metadata"]["name"] = "missing";
  Reply reply = Admin().Put(absl::StrCat(kSecrets, "/missing"), secret);
  EXPECT_EQ(reply.status, 404);
  EXPECT_TRUE(MatchesFixture(reply.body, "status_404_secret.json"));
}

TEST_F(CrudTest, UpdateWithAnotherNameThanTheUrlIsBadRequest) {
  nlohmann::json created = CreateObject(kSecrets, DbSecret());
  created["metadata"]["name"] = "other";
  Reply reply = Admin().Put(absl::StrCat(kSecrets, "/db-password"), created);
  EXPECT_EQ(reply.status, 400);
  EXPECT_EQ(reply.body["message"],
            "the name of the object (other) does not match the name on the URL (db-password)");
}

TEST_F(CrudTest, DeleteAnswersSuccessStatusForBuiltInKinds) {
  nlohmann::json created = CreateObject(kSecrets, DbSecret());
  Reply reply = Admin().Delete(absl::StrCat(kSecrets, "/db-password"));
  ASSERT_EQ(reply.status, 200);
  EXPECT_TRUE(MatchesFixture(reply.body, "delete_success_status.json",
                             {{"UID", created["metadata"]["uid"]}}));
  EXPECT_EQ(Admin().Get(absl::StrCat(kSecrets, "/db-password")).status, 404);
}

TEST_F(CrudTest, DeleteHonoursUidPrecondition) {
  nlohmann::json created = CreateObject(kSecrets, DbSecret());
  std::string uid = created["metadata"]["uid"];
  Reply wrong = Admin().Delete(
      absl::StrCat(kSecrets, "/db-password"),
      {{"kind", "DeleteOptions"}, {"apiVersion", "v1"},
       {"preconditions", {{"uid", "00000000-0000-4000-8000-000000000000"}}}});
  EXPECT_EQ(wrong.status, 409);
  EXPECT_TRUE(MatchesFixture(wrong.body, "status_409_delete_precondition.json", {{"UID", uid}}));
  Reply right = Admin().Delete(absl::StrCat(kSecrets, "/db-password"),
                               {{"kind", "DeleteOptions"}, {"apiVersion", "v1"},
                                {"preconditions", {{"uid", uid}}}});
  EXPECT_EQ(right.status, 200);
}

TEST_F(CrudTest, CustomResourceGenerationFollowsSpecChangesOnly) {
  Reply created = Admin().Post(kTargets, Target("cluster-b"));
  ASSERT_EQ(created.status, 201);
  EXPECT_TRUE(MatchesFixture(created.body, "target_created.json"));
  nlohmann::json labelled = created.body;
  labelled["metadata"]["labels"] = {{"x", "y"}};
  Reply relabelled = Admin().Put(absl::StrCat(kTargets, "/cluster-b"), labelled);
  ASSERT_EQ(relabelled.status, 200);
  EXPECT_EQ(relabelled.body["metadata"]["generation"], 1);
  nlohmann::json respec = relabelled.body;
  respec["spec"]["cluster"] = "elsewhere";
  Reply changed = Admin().Put(absl::StrCat(kTargets, "/cluster-b"), respec);
  ASSERT_EQ(changed.status, 200);
  EXPECT_EQ(changed.body["metadata"]["generation"], 2);
}

TEST_F(CrudTest, StatusSubresourceChangesOnlyStatus) {
  nlohmann::json created = CreateObject(kTargets, Target("cluster-b"));
  nlohmann::json with_status = created;
  with_status["status"] = {{"phase", "Ready"}};
  Reply main = Admin().Put(absl::StrCat(kTargets, "/cluster-b"), with_status);
  ASSERT_EQ(main.status, 200);
  EXPECT_FALSE(main.body.contains("status")) << "main resource ignores status";
  with_status["spec"]["cluster"] = "ignored";
  with_status["metadata"]["resourceVersion"] = main.body["metadata"]["resourceVersion"];
  Reply status = Admin().Put(absl::StrCat(kTargets, "/cluster-b/status"), with_status);
  ASSERT_EQ(status.status, 200) << status.raw;
  EXPECT_EQ(status.body["status"]["phase"], "Ready");
  EXPECT_EQ(status.body["spec"]["cluster"], "cluster-b");
  EXPECT_EQ(status.body["metadata"]["generation"], 1);
}

TEST_F(CrudTest, DeleteOfCustomResourceAnswersTheObject) {
  CreateObject(kTargets, Target("cluster-b"));
  Reply reply = Admin().Delete(absl::StrCat(kTargets, "/cluster-b"));
  ASSERT_EQ(reply.status, 200);
  EXPECT_EQ(reply.body["kind"], "Target");
  EXPECT_EQ(reply.body["metadata"]["name"], "cluster-b");
}

TEST_F(CrudTest, FinalizersDelayDeletionUntilTheLastIsRemoved) {
  nlohmann::json target = Target("cluster-b");
  target["metadata"]["finalizers"] = {"solar.opendefense.cloud/cleanup"};
  CreateObject(kTargets, target);
  clock_.Advance(absl::Seconds(30));
  Reply marked = Admin().Delete(absl::StrCat(kTargets, "/cluster-b"));
  ASSERT_EQ(marked.status, 200);
  EXPECT_EQ(marked.body["metadata"]["deletionTimestamp"], "2026-01-01T00:00:30Z");
  Reply still = Admin().Get(absl::StrCat(kTargets, "/cluster-b"));
  ASSERT_EQ(still.status, 200);
  nlohmann::json released = still.body;
  released["metadata"]["finalizers"] = nlohmann::json::array();
  ASSERT_EQ(Admin().Put(absl::StrCat(kTargets, "/cluster-b"), released).status, 200);
  EXPECT_EQ(Admin().Get(absl::StrCat(kTargets, "/cluster-b")).status, 404);
}

TEST_F(CrudTest, SecretStringDataIsEncodedIntoDataAndBadBase64IsRejected) {
  nlohmann::json secret = {{"apiVersion", "v1"}, {"kind", "Secret"},
                           {"metadata", {{"name", "s"}}},
                           {"type", "kubernetes.io/basic-auth"},
                           {"stringData", {{"username", "admin"}}}};
  Reply reply = Admin().Post(kSecrets, secret);
  ASSERT_EQ(reply.status, 201);
  EXPECT_EQ(reply.body["data"]["username"], "YWRtaW4=");
  EXPECT_FALSE(reply.body.contains("stringData"));
  EXPECT_EQ(reply.body["type"], "kubernetes.io/basic-auth");
  nlohmann::json bad = {{"apiVersion", "v1"}, {"kind", "Secret"}, {"metadata", {{"name", "bad"}}},
                        {"data", {{"k", "not base64!"}}}};
  EXPECT_EQ(Admin().Post(kSecrets, bad).status, 400);
}

TEST_F(CrudTest, ImmutableSecretDataCannotChange) {
  nlohmann::json secret = DbSecret();
  secret["immutable"] = true;
  nlohmann::json created = CreateObject(kSecrets, secret);
  created["data"]["password"] = "b3RoZXI=";
  Reply reply = Admin().Put(absl::StrCat(kSecrets, "/db-password"), created);
  EXPECT_EQ(reply.status, 422);
  EXPECT_EQ(reply.body["details"]["causes"][0]["field"], "data");
}

TEST_F(CrudTest, MergeAndJsonPatchesApply) {
  CreateObject(kSecrets, DbSecret());
  Reply merged = Admin().Patch(absl::StrCat(kSecrets, "/db-password"),
                               {{"metadata", {{"labels", {{"team", "a"}}}}}});
  ASSERT_EQ(merged.status, 200) << merged.raw;
  EXPECT_EQ(merged.body["metadata"]["labels"], (nlohmann::json{{"app", "db"}, {"team", "a"}}));
  Reply patched = Admin().Patch(
      absl::StrCat(kSecrets, "/db-password"),
      nlohmann::json::array({{{"op", "remove"}, {"path", "/metadata/labels/app"}}}),
      "application/json-patch+json");
  ASSERT_EQ(patched.status, 200) << patched.raw;
  EXPECT_EQ(patched.body["metadata"]["labels"], (nlohmann::json{{"team", "a"}}));
}

TEST_F(CrudTest, GenerateNameAppendsFiveCharacters) {
  Reply reply = Admin().Post(kSecrets, {{"apiVersion", "v1"}, {"kind", "Secret"},
                                        {"metadata", {{"generateName", "token-"}}}});
  ASSERT_EQ(reply.status, 201) << reply.raw;
  std::string name = reply.body["metadata"]["name"];
  EXPECT_EQ(name.size(), 11u);
  EXPECT_EQ(name.rfind("token-", 0), 0u);
}

TEST_F(CrudTest, DeletingANamespaceDeletesItsObjects) {
  CreateSecret("team-a", "s");
  ASSERT_EQ(Admin().Delete("/api/v1/namespaces/team-a").status, 200);
  EXPECT_EQ(Admin().Get(absl::StrCat(kSecrets, "/s")).status, 404);
  EXPECT_EQ(Admin().Get("/api/v1/namespaces/team-a").status, 404);
}

TEST_F(CrudTest, UnknownResourceUnderANamespaceIsStoredNamespaced) {
  const std::string widgets = "/apis/example.com/v1/namespaces/team-a/widgets";
  Reply created = Admin().Post(widgets, {{"apiVersion", "example.com/v1"}, {"kind", "Widget"},
                                         {"metadata", {{"name", "w"}}}});
  ASSERT_EQ(created.status, 201) << created.raw;
  EXPECT_EQ(created.body["metadata"]["namespace"], "team-a");
  Reply list = Admin().Get(widgets);
  EXPECT_EQ(list.body["kind"], "WidgetList");
  EXPECT_EQ(Names(list.body), (std::vector<std::string>{"w"}));
}

}  // namespace crud_test
}  // namespace credledger::kubeapi::testing
