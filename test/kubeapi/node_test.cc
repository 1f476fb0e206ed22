// Contract tests: the cluster-scoped core Node resource as a kubelet registers it and as the
// agent lists it for its capacity (docs/reports.md, "The agent"). Fixtures follow the
// Kubernetes API reference for Node (core/v1) and a kubelet's registration.
#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "test/kubeapi/test_support.h"

namespace credledger::kubeapi::testing {
namespace node_test {

const char kNodes[] = "/api/v1/nodes";

nlohmann::json Node(const std::string& name, const std::string& cpu) {
  return {{"apiVersion", "v1"},
          {"kind", "Node"},
          {"metadata",
           {{"name", name},
            {"labels", {{"kubernetes.io/hostname", name}, {"kubernetes.io/os", "linux"}}}}},
          {"spec", {{"podCIDR", "10.244.1.0/24"}, {"podCIDRs", {"10.244.1.0/24"}}}},
          {"status",
           {{"capacity",
             {{"cpu", "4"},
              {"ephemeral-storage", "102625208Ki"},
              {"memory", "16380820Ki"},
              {"pods", "110"}}},
            {"allocatable",
             {{"cpu", cpu},
              {"ephemeral-storage", "94580335255"},
              {"memory", "15766420Ki"},
              {"pods", "110"}}}}}};
}

std::vector<std::string> Names(const nlohmann::json& list) {
  std::vector<std::string> names;
  for (const auto& item : list["items"]) names.push_back(item["metadata"]["name"]);
  return names;
}

using NodeTest = ApiServerTest;

TEST_F(NodeTest, RegistrationKeepsTheStatusTheKubeletSends) {
  Reply created = Admin().Post(kNodes, Node("worker-1", "3800m"));
  ASSERT_EQ(created.status, 201) << created.raw;
  EXPECT_TRUE(MatchesFixture(created.body, "node_created.json"));
  Reply got = Admin().Get(absl::StrCat(kNodes, "/worker-1"));
  ASSERT_EQ(got.status, 200);
  EXPECT_EQ(got.body, created.body);
}

TEST_F(NodeTest, NodesAreClusterScopedAndListedWithoutANamespace) {
  ASSERT_EQ(Admin().Post(kNodes, Node("worker-2", "4")).status, 201);
  ASSERT_EQ(Admin().Post(kNodes, Node("worker-1", "4")).status, 201);
  Reply list = Admin().Get(kNodes);
  ASSERT_EQ(list.status, 200) << list.raw;
  EXPECT_EQ(list.body["kind"], "NodeList");
  EXPECT_EQ(Names(list.body), (std::vector<std::string>{"worker-1", "worker-2"}));
  EXPECT_FALSE(list.body["items"][0]["metadata"].contains("namespace"));
  // A cluster-scoped resource has no namespaced path.
  EXPECT_EQ(Admin().Get("/api/v1/namespaces/default/nodes").status, 404);
}

TEST_F(NodeTest, UpdateKeepsStatusAndTheStatusSubresourceChangesOnlyStatus) {
  nlohmann::json node = CreateObject(kNodes, Node("worker-1", "3800m"));
  nlohmann::json changed = node;
  changed["status"]["allocatable"]["cpu"] = "1";
  changed["spec"]["unschedulable"] = true;
  Reply updated = Admin().Put(absl::StrCat(kNodes, "/worker-1"), changed);
  ASSERT_EQ(updated.status, 200) << updated.raw;
  EXPECT_EQ(updated.body["spec"]["unschedulable"], true);
  EXPECT_EQ(updated.body["status"]["allocatable"]["cpu"], "3800m");

  nlohmann::json status_change = updated.body;
  status_change["status"]["allocatable"]["cpu"] = "3500m";
  status_change["spec"].erase("unschedulable");
  Reply status = Admin().Put(absl::StrCat(kNodes, "/worker-1/status"), status_change);
  ASSERT_EQ(status.status, 200) << status.raw;
  EXPECT_EQ(status.body["status"]["allocatable"]["cpu"], "3500m");
  EXPECT_EQ(status.body["spec"]["unschedulable"], true);
}

TEST_F(NodeTest, DiscoveryListsNodesWithShortNameAndStatusSubresource) {
  Reply reply = Admin().Get("/api/v1");
  ASSERT_EQ(reply.status, 200);
  nlohmann::json entries = nlohmann::json::array();
  for (const auto& entry : reply.body["resources"]) {
    if (entry["name"] == "nodes" || entry["name"] == "nodes/status") entries.push_back(entry);
  }
  EXPECT_TRUE(MatchesFixture(entries, "discovery_nodes.json"));
}

}  // namespace node_test
}  // namespace credledger::kubeapi::testing
