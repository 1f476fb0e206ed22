// The agent's collector: releases from labelled Flux pairs and capacity from Nodes and
// running Pods, against the test API server; a missing Flux CRD and a failed list through a
// scripted transport.
#include "kubebridge/agent/report_collector.h"

#include <string>
#include <utility>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "test/kubebridge/api_server_fixture.h"
#include "test/kubebridge/fake_transport.h"
#include "test/kubebridge/target_cluster_objects.h"
#include "test/support/status_matchers.h"

namespace credledger::kubebridge {
namespace report_collector_test {

using ::testing::AllOf;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::StartsWith;
using testing::StatusIs;
using Pairs = std::vector<std::pair<std::string, std::string>>;

Pairs Entries(const google::protobuf::RepeatedPtrField<v1::ResourceQuantity>& list) {
  Pairs out;
  for (const v1::ResourceQuantity& q : list) out.emplace_back(q.resource(), q.quantity());
  return out;
}

std::vector<std::string> ReleaseKeys(const v1::TargetReportSpec& spec) {
  std::vector<std::string> out;
  for (const v1::ReleaseStatus& r : spec.releases()) {
    out.push_back(absl::StrCat(r.namespace_(), "/", r.name(), " ", v1::ReleasePhase_Name(r.phase()),
                               " ", r.revision()));
  }
  return out;
}

class ReportCollectorTest : public ApiServerFixture {
 protected:
  void SetUp() override {
    ApiServerFixture::SetUp();
    for (const char* ns : {"apps", "demo"}) {
      ASSERT_OK(
          client_
              ->Create(Core("namespaces", "", ""),
                       {{"apiVersion", "v1"}, {"kind", "Namespace"}, {"metadata", {{"name", ns}}}})
              .status());
    }
  }
  TargetClusterObjects Objects() { return TargetClusterObjects(*client_, config_); }
};

TEST_F(ReportCollectorTest, ReleasesFromLabelledFluxPairsAndCapacityFromRunningPods) {
  TargetClusterObjects objects = Objects();
  objects.CreateFluxPair("healthy", "demo", "web");
  objects.CreateFluxPair("healthy", "apps", "db");
  // A HelmRelease whose OCIRepository does not exist yet.
  objects.Create(
      HelmReleaseResource(),
      TargetClusterObjects::FluxFixture("healthy", "helmrelease.json", "apps", "cache", "cache"));
  // Flux objects without the release label are not releases of the Target.
  nlohmann::json unlabelled = TargetClusterObjects::FluxFixture("healthy", "ocirepository.json",
                                                                "demo", "podinfo", "podinfo");
  unlabelled["metadata"].erase("labels");
  unlabelled["metadata"].erase("annotations");
  objects.Create(OCIRepositoryResource(), unlabelled);
  objects.Create(NodeResource(), TargetClusterObjects::Node("worker-1", "4", "16Gi"));
  objects.Create(NodeResource(), TargetClusterObjects::Node("worker-2", "3800m", "8Gi"));
  objects.Create(PodResource(),
                 TargetClusterObjects::Pod("demo", "web-0", "Running", "250m", "128Mi"));
  objects.Create(PodResource(),
                 TargetClusterObjects::Pod("apps", "db-0", "Running", "500m", "256Mi"));
  objects.Create(PodResource(), TargetClusterObjects::Pod("apps", "db-1", "Pending", "1", "1Gi"));

  ASSERT_OK_AND_ASSIGN(CollectedReport report, CollectTargetReport(*client_));
  EXPECT_THAT(ReleaseKeys(report.spec), ElementsAre("apps/cache RELEASE_PHASE_PENDING 1.2.0",
                                                    "apps/db RELEASE_PHASE_READY 1.2.0",
                                                    "demo/web RELEASE_PHASE_READY 1.2.0"));
  EXPECT_EQ(report.spec.releases(2).source_conditions_size(), 3);
  EXPECT_EQ(report.spec.releases(2).helm_conditions_size(), 3);
  EXPECT_FALSE(report.spec.has_last_report_time());
  EXPECT_EQ(report.spec.preflight_checks_size(), 0);
  EXPECT_EQ(report.spec.capacity().node_count(), 2);
  EXPECT_EQ(Entries(report.spec.capacity().allocatable()),
            (Pairs{{"cpu", "7800m"}, {"memory", "24Gi"}, {"pods", "220"}}));
  EXPECT_EQ(Entries(report.spec.capacity().used()), (Pairs{{"cpu", "750m"}, {"memory", "384Mi"}}));
  EXPECT_THAT(report.skipped, IsEmpty());
}

TEST_F(ReportCollectorTest, AnEmptyClusterGivesNoReleasesAndZeroNodes) {
  ASSERT_OK_AND_ASSIGN(CollectedReport report, CollectTargetReport(*client_));
  EXPECT_EQ(report.spec.releases_size(), 0);
  EXPECT_TRUE(report.spec.has_capacity());
  EXPECT_EQ(report.spec.capacity().node_count(), 0);
}

nlohmann::json List(const std::string& kind, nlohmann::json items = nlohmann::json::array()) {
  return {{"kind", kind},
          {"apiVersion", "v1"},
          {"metadata", {{"resourceVersion", "7"}}},
          {"items", std::move(items)}};
}

// A cluster without the source-controller CRD answers the OCIRepository list with a plain
// 404, as kube-apiserver does for an unknown resource.
TEST(ReportCollectorScriptedTest, AMissingFluxCrdMeansNoObjectsOfThatKind) {
  StepClock clock;
  FakeClient fake = MakeFakeClient(&clock);
  FakeReply not_found;
  not_found.status_code = 404;
  not_found.body = "404 page not found\n";
  fake.transport->Push(not_found);
  fake.transport->Push(FakeReply::Json(
      200, List("HelmReleaseList", {TargetClusterObjects::FluxFixture("healthy", "helmrelease.json",
                                                                      "demo", "web", "web")})));
  fake.transport->Push(FakeReply::Json(200, List("NodeList")));
  fake.transport->Push(FakeReply::Json(200, List("PodList")));

  ASSERT_OK_AND_ASSIGN(CollectedReport report, CollectTargetReport(*fake.client));
  ASSERT_EQ(report.spec.releases_size(), 1);
  EXPECT_EQ(report.spec.releases(0).phase(), v1::RELEASE_PHASE_PENDING);
  EXPECT_THAT(report.skipped,
              ElementsAre(HasSubstr("OCIRepositories: the API server does not serve "
                                    "ocirepositories.source.toolkit.fluxcd.io/v1")));

  std::vector<HttpRequest> requests = fake.transport->requests();
  ASSERT_EQ(requests.size(), 4u);
  EXPECT_EQ(requests[0].path,
            "/apis/source.toolkit.fluxcd.io/v1/ocirepositories"
            "?labelSelector=solar.opendefense.cloud%2Frelease");
  EXPECT_EQ(requests[1].path,
            "/apis/helm.toolkit.fluxcd.io/v2/helmreleases"
            "?labelSelector=solar.opendefense.cloud%2Frelease");
  EXPECT_EQ(requests[2].path, "/api/v1/nodes");
  EXPECT_THAT(requests[3].path, StartsWith("/api/v1/pods?"));
  EXPECT_THAT(requests[3].path, HasSubstr("fieldSelector=status.phase%3DRunning"));
}

TEST(ReportCollectorScriptedTest, AFailedListIsAnErrorNamingWhatFailed) {
  StepClock clock;
  FakeClient fake = MakeFakeClient(&clock);
  fake.transport->Push(FakeReply::Json(200, List("OCIRepositoryList")));
  fake.transport->Push(FakeReply::Json(200, List("HelmReleaseList")));
  fake.transport->Push(FakeReply::Json(200, List("NodeList")));
  fake.transport->Push(FakeReply::Status(
      403, "Forbidden",
      "pods is forbidden: User \"system:serviceaccount:solar:agent\" cannot list resource "
      "\"pods\" in API group \"\" at the cluster scope"));
  EXPECT_THAT(CollectTargetReport(*fake.client),
              StatusIs(absl::StatusCode::kPermissionDenied,
                       AllOf(StartsWith("list Pods: GET /api/v1/pods"),
                             HasSubstr("cannot list resource \"pods\""))));
}

TEST(ReportCollectorScriptedTest, A404OnNodesIsAnError) {
  StepClock clock;
  FakeClient fake = MakeFakeClient(&clock);
  fake.transport->Push(FakeReply::Json(200, List("OCIRepositoryList")));
  fake.transport->Push(FakeReply::Json(200, List("HelmReleaseList")));
  fake.transport->Push(FakeReply::Status(404, "NotFound", "the server could not find it"));
  EXPECT_THAT(CollectTargetReport(*fake.client),
              StatusIs(absl::StatusCode::kNotFound, StartsWith("list Nodes: ")));
}

}  // namespace report_collector_test
}  // namespace credledger::kubebridge
