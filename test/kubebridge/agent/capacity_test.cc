// Cluster capacity from Node and Pod list items shaped like a kubeadm cluster's: node
// allocatable sums, requests of running pods (init containers, sidecars, overhead), and
// bad quantities skipped with a reason.
#include "kubebridge/agent/capacity.h"

#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace credledger::kubebridge {
namespace capacity_test {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using Pairs = std::vector<std::pair<std::string, std::string>>;

nlohmann::json Node(const std::string& name, nlohmann::json allocatable) {
  return {{"metadata",
           {{"name", name},
            {"uid", "7c4c5f0e-2c1d-4c59-9d5e-0f6a2b7d1e11"},
            {"labels", {{"kubernetes.io/hostname", name}}}}},
          {"spec", {{"podCIDR", "10.244.0.0/24"}}},
          {"status",
           {{"capacity", allocatable},
            {"allocatable", std::move(allocatable)},
            {"conditions", {{{"type", "Ready"}, {"status", "True"}, {"reason", "KubeletReady"}}}},
            {"nodeInfo", {{"kubeletVersion", "v1.32.2"}}}}}};
}

nlohmann::json Container(const std::string& name, nlohmann::json requests) {
  return {{"name", name},
          {"image", absl::StrCat("registry.example/", name, ":1.0")},
          {"resources", {{"requests", std::move(requests)}, {"limits", {{"memory", "1Gi"}}}}}};
}

nlohmann::json Pod(const std::string& ns, const std::string& name, const std::string& phase,
                   nlohmann::json containers, nlohmann::json init_containers = nullptr) {
  nlohmann::json pod = {{"metadata", {{"name", name}, {"namespace", ns}}},
                        {"spec",
                         {{"nodeName", "worker-1"},
                          {"restartPolicy", "Always"},
                          {"containers", std::move(containers)}}},
                        {"status", {{"phase", phase}, {"qosClass", "Burstable"}}}};
  if (!init_containers.is_null()) pod["spec"]["initContainers"] = std::move(init_containers);
  return pod;
}

Pairs Entries(const google::protobuf::RepeatedPtrField<v1::ResourceQuantity>& list) {
  Pairs out;
  for (const v1::ResourceQuantity& q : list) out.emplace_back(q.resource(), q.quantity());
  return out;
}

nlohmann::json ThreeNodes() {
  return nlohmann::json::array({Node("control-plane", {{"cpu", "4"},
                                                       {"memory", "16265540Ki"},
                                                       {"pods", "110"},
                                                       {"ephemeral-storage", "47093746742"},
                                                       {"hugepages-1Gi", "0"}}),
                                Node("worker-1", {{"cpu", "3800m"},
                                                  {"memory", "15766420Ki"},
                                                  {"pods", "110"},
                                                  {"ephemeral-storage", "94580335255"},
                                                  {"hugepages-1Gi", "0"}}),
                                Node("worker-2", {{"cpu", "8"},
                                                  {"memory", "32Gi"},
                                                  {"pods", "110"},
                                                  {"ephemeral-storage", "94580335255"},
                                                  {"nvidia.com/gpu", "2"}})});
}

TEST(CapacityTest, SumsNodeAllocatableByResourceName) {
  std::vector<std::string> skipped;
  v1::ClusterCapacity capacity = CapacityFrom(ThreeNodes(), nlohmann::json::array(), &skipped);
  EXPECT_EQ(capacity.node_count(), 3);
  EXPECT_EQ(Entries(capacity.allocatable()), (Pairs{{"cpu", "15800m"},
                                                    {"ephemeral-storage", "236254417252"},
                                                    {"hugepages-1Gi", "0"},
                                                    {"memory", "65586392Ki"},
                                                    {"nvidia.com/gpu", "2"},
                                                    {"pods", "330"}}));
  EXPECT_EQ(capacity.used_size(), 0);
  EXPECT_THAT(skipped, IsEmpty());
}

TEST(CapacityTest, UsedCountsRequestsOfRunningPodsOnly) {
  nlohmann::json pods = nlohmann::json::array(
      {Pod("shop", "web-0", "Running",
           {Container("web", {{"cpu", "100m"}, {"memory", "128Mi"}}),
            Container("envoy", {{"cpu", "250m"}, {"memory", "64Mi"}})}),
       Pod("shop", "web-1", "Pending", {Container("web", {{"cpu", "1"}, {"memory", "1Gi"}})}),
       Pod("batch", "job-x", "Succeeded", {Container("job", {{"cpu", "2"}})}),
       Pod("batch", "job-y", "Failed", {Container("job", {{"cpu", "2"}})}),
       Pod("kube-system", "coredns-0", "Running",
           {Container("coredns", {{"cpu", "100m"}, {"memory", "70Mi"}}),
            {{"name", "no-requests"}, {"image", "pause:3.10"}}})});
  v1::ClusterCapacity capacity = CapacityFrom(ThreeNodes(), pods);
  EXPECT_EQ(Entries(capacity.used()), (Pairs{{"cpu", "450m"}, {"memory", "262Mi"}}));
}

TEST(CapacityTest, AnInitContainerLargerThanTheAppContainersSetsThePodsRequest) {
  nlohmann::json pod = Pod("db", "postgres-0", "Running",
                           {Container("postgres", {{"cpu", "500m"}, {"memory", "1Gi"}})},
                           {Container("migrate", {{"cpu", "2"}, {"memory", "256Mi"}})});
  v1::ClusterCapacity capacity =
      CapacityFrom(nlohmann::json::array(), nlohmann::json::array({pod}));
  // cpu: max(500m, 2) = 2; memory: max(1Gi, 256Mi) = 1Gi.
  EXPECT_EQ(Entries(capacity.used()), (Pairs{{"cpu", "2"}, {"memory", "1Gi"}}));
}

TEST(CapacityTest, SidecarsAddToTheAppContainersAndToLaterInitContainers) {
  nlohmann::json sidecar = Container("log-shipper", {{"cpu", "200m"}, {"memory", "100Mi"}});
  sidecar["restartPolicy"] = "Always";
  nlohmann::json pod =
      Pod("shop", "api-0", "Running", {Container("api", {{"cpu", "300m"}, {"memory", "200Mi"}})},
          {sidecar, Container("seed", {{"cpu", "1"}, {"memory", "50Mi"}})});
  pod["spec"]["overhead"] = {{"cpu", "250m"}, {"memory", "120Mi"}};
  v1::ClusterCapacity capacity =
      CapacityFrom(nlohmann::json::array(), nlohmann::json::array({pod}));
  // app + sidecar = 500m / 300Mi; seed after the sidecar = 1200m / 150Mi; sidecar alone
  // 200m / 100Mi. Max: 1200m / 300Mi, plus overhead 250m / 120Mi.
  EXPECT_EQ(Entries(capacity.used()), (Pairs{{"cpu", "1450m"}, {"memory", "420Mi"}}));
}

TEST(CapacityTest, BadQuantitiesAreSkippedWithTheObjectFieldAndReason) {
  nlohmann::json nodes = ThreeNodes();
  nodes[2]["status"]["allocatable"]["cpu"] = "eight";
  nodes[1]["status"]["allocatable"]["pods"] = 110;
  nlohmann::json pods =
      nlohmann::json::array({Pod("shop", "web-0", "Running",
                                 {Container("web", {{"cpu", "100m"}, {"memory", "128Mi"}}),
                                  Container("envoy", {{"cpu", "1K"}, {"memory", "64Mi"}})})});
  std::vector<std::string> skipped;
  v1::ClusterCapacity capacity = CapacityFrom(nodes, pods, &skipped);
  EXPECT_EQ(capacity.node_count(), 3);
  EXPECT_EQ(Entries(capacity.allocatable())[0],
            (std::pair<std::string, std::string>{"cpu", "7800m"}));
  EXPECT_EQ(Entries(capacity.allocatable()).back(),
            (std::pair<std::string, std::string>{"pods", "220"}));
  EXPECT_EQ(Entries(capacity.used()), (Pairs{{"cpu", "100m"}, {"memory", "192Mi"}}));
  EXPECT_THAT(
      skipped,
      ElementsAre("node \"worker-1\": status.allocatable.pods: want a quantity string",
                  HasSubstr("node \"worker-2\": status.allocatable.cpu: quantity \"eight\": "),
                  HasSubstr("pod \"shop/web-0\": spec.containers[1].resources.requests.cpu: "
                            "quantity \"1K\": unknown suffix")));
}

TEST(CapacityTest, MalformedListsAndItemsCountAsEmptyAndAreReported) {
  std::vector<std::string> skipped;
  nlohmann::json nodes = ThreeNodes();
  nodes.push_back("not-a-node");
  nodes[0]["status"]["allocatable"] = "lots";
  v1::ClusterCapacity capacity = CapacityFrom(nodes, nlohmann::json::object(), &skipped);
  EXPECT_EQ(capacity.node_count(), 3);
  EXPECT_THAT(skipped, ElementsAre("node \"control-plane\": status.allocatable: want an object of "
                                   "quantities",
                                   "nodes: list[3]: want an object", "pods: list: want an array"));
}

TEST(CapacityTest, NoNodesAndNoPodsGiveAnEmptyCapacity) {
  v1::ClusterCapacity capacity = CapacityFrom(nlohmann::json::array(), nlohmann::json::array());
  EXPECT_EQ(capacity.node_count(), 0);
  EXPECT_EQ(capacity.allocatable_size(), 0);
  EXPECT_EQ(capacity.used_size(), 0);
}

}  // namespace capacity_test
}  // namespace credledger::kubebridge
