// Contract tests: discovery documents (plain JSON, as kubectl's legacy discovery reads them)
// and registration of CustomResourceDefinitions.
#include <algorithm>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "test/kubeapi/test_support.h"

namespace credledger::kubeapi::testing {
namespace discovery_test {

const nlohmann::json* FindByName(const nlohmann::json& list, const std::string& name) {
  for (const auto& entry : list) {
    if (entry["name"] == name) return &entry;
  }
  return nullptr;
}

using DiscoveryTest = ApiServerTest;

TEST_F(DiscoveryTest, VersionIsServedWithoutAuthentication) {
  Reply reply = As("").Get("/version");
  ASSERT_EQ(reply.status, 200);
  EXPECT_EQ(reply.body["major"], "1");
  EXPECT_EQ(reply.body["minor"], "32");
}

TEST_F(DiscoveryTest, CoreApiListsVersionV1AndTheServerAddress) {
  Reply reply = Admin().Get("/api");
  ASSERT_EQ(reply.status, 200);
  EXPECT_TRUE(MatchesFixture(reply.body, "discovery_api.json", {{"PORT", absl::StrCat(server_->port())}}));
}

TEST_F(DiscoveryTest, CoreV1ListsResourcesAndTheTokenSubresource) {
  Reply reply = Admin().Get("/api/v1");
  ASSERT_EQ(reply.status, 200);
  EXPECT_EQ(reply.body["kind"], "APIResourceList");
  EXPECT_EQ(reply.body["groupVersion"], "v1");
  const nlohmann::json* secrets = FindByName(reply.body["resources"], "secrets");
  ASSERT_NE(secrets, nullptr);
  EXPECT_EQ((*secrets)["namespaced"], true);
  EXPECT_EQ((*secrets)["kind"], "Secret");
  const nlohmann::json* namespaces = FindByName(reply.body["resources"], "namespaces");
  ASSERT_NE(namespaces, nullptr);
  EXPECT_EQ((*namespaces)["namespaced"], false);
  const nlohmann::json* token = FindByName(reply.body["resources"], "serviceaccounts/token");
  ASSERT_NE(token, nullptr);
  EXPECT_TRUE(MatchesFixture(*token, "discovery_serviceaccount_token.json"));
}

TEST_F(DiscoveryTest, BatchV1ServesNamespacedJobsWithTheStatusSubresource) {
  Reply reply = Admin().Get("/apis/batch/v1");
  ASSERT_EQ(reply.status, 200) << reply.raw;
  EXPECT_EQ(reply.body["groupVersion"], "batch/v1");
  const nlohmann::json* jobs = FindByName(reply.body["resources"], "jobs");
  ASSERT_NE(jobs, nullptr) << reply.raw;
  EXPECT_EQ((*jobs)["namespaced"], true);
  EXPECT_EQ((*jobs)["kind"], "Job");
  EXPECT_NE(FindByName(reply.body["resources"], "jobs/status"), nullptr) << reply.raw;
}

TEST_F(DiscoveryTest, GroupListAndGroupVersionDocuments) {
  Reply groups = Admin().Get("/apis");
  ASSERT_EQ(groups.status, 200);
  EXPECT_EQ(groups.body["kind"], "APIGroupList");
  const nlohmann::json* solar = FindByName(groups.body["groups"], "solar.opendefense.cloud");
  ASSERT_NE(solar, nullptr);
  EXPECT_EQ((*solar)["preferredVersion"],
            (nlohmann::json{{"groupVersion", "solar.opendefense.cloud/v1alpha1"}, {"version", "v1alpha1"}}));
  EXPECT_NE(FindByName(groups.body["groups"], "helm.toolkit.fluxcd.io"), nullptr);
  EXPECT_NE(FindByName(groups.body["groups"], "rbac.authorization.k8s.io"), nullptr);
  Reply group = Admin().Get("/apis/solar.opendefense.cloud");
  EXPECT_EQ(group.body["kind"], "APIGroup");
  Reply resources = Admin().Get("/apis/solar.opendefense.cloud/v1alpha1");
  ASSERT_EQ(resources.status, 200);
  EXPECT_TRUE(MatchesFixture(resources.body, "discovery_solar_v1alpha1.json"));
  EXPECT_EQ(Admin().Get("/apis/solar.opendefense.cloud/v9").status, 404);
}

TEST_F(DiscoveryTest, RegisteringACrdAddsItsResourceToDiscovery) {
  nlohmann::json crd = {
      {"apiVersion", "apiextensions.k8s.io/v1"},
      {"kind", "CustomResourceDefinition"},
      {"metadata", {{"name", "widgets.example.com"}}},
      {"spec",
       {{"group", "example.com"},
        {"scope", "Cluster"},
        {"names", {{"plural", "widgets"}, {"singular", "widget"}, {"kind", "Widget"}, {"shortNames", nlohmann::json::array({"wd"})}}},
        {"versions", nlohmann::json::array({{{"name", "v1"}, {"served", true}, {"storage", true},
                                             {"subresources", {{"status", nlohmann::json::object()}}}}})}}}};
  Reply created = Admin().Post("/apis/apiextensions.k8s.io/v1/customresourcedefinitions", crd);
  ASSERT_EQ(created.status, 201) << created.raw;
  EXPECT_EQ(created.body["metadata"]["generation"], 1);
  EXPECT_EQ(created.body["status"]["conditions"][1]["type"], "Established");
  Reply resources = Admin().Get("/apis/example.com/v1");
  ASSERT_EQ(resources.status, 200);
  const nlohmann::json* widgets = FindByName(resources.body["resources"], "widgets");
  ASSERT_NE(widgets, nullptr);
  EXPECT_EQ((*widgets)["namespaced"], false);
  EXPECT_EQ((*widgets)["kind"], "Widget");
  EXPECT_NE(FindByName(resources.body["resources"], "widgets/status"), nullptr);
  Reply widget = Admin().Post("/apis/example.com/v1/widgets",
                              {{"apiVersion", "example.com/v1"}, {"kind", "Widget"}, {"metadata", {{"name", "w"}}}});
  EXPECT_EQ(widget.status, 201) << widget.raw;
  ASSERT_EQ(Admin().Delete("/apis/apiextensions.k8s.io/v1/customresourcedefinitions/widgets.example.com").status, 200);
  EXPECT_EQ(Admin().Get("/apis/example.com/v1").status, 404);
}

TEST_F(DiscoveryTest, CrdNameMustBePluralDotGroup) {
  nlohmann::json crd = {
      {"apiVersion", "apiextensions.k8s.io/v1"},
      {"kind", "CustomResourceDefinition"},
      {"metadata", {{"name", "wrong.example.com"}}},
      {"spec",
       {{"group", "example.com"},
        {"scope", "Namespaced"},
        {"names", {{"plural", "widgets"}, {"kind", "Widget"}}},
        {"versions", nlohmann::json::array({{{"name", "v1"}, {"served", true}, {"storage", true}}})}}}};
  Reply reply = Admin().Post("/apis/apiextensions.k8s.io/v1/customresourcedefinitions", crd);
  EXPECT_EQ(reply.status, 422);
  EXPECT_EQ(reply.body["details"]["causes"][0]["field"], "metadata.name");
}

}  // namespace discovery_test
}  // namespace credledger::kubeapi::testing
