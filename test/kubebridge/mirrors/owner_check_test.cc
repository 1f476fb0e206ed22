// OwnerCheck against the test API server (docs/mirrors.md, "Bindings" and "Kubernetes
// permissions"): an owner exists only with its uid, resolved through discovery; what the
// bridge may not read fails with a message naming the owner and the missing right.
#include "kubebridge/mirrors/owner_check.h"

#include <memory>
#include <optional>
#include <string>

#include "absl/strings/match.h"
#include "gmock/gmock.h"
#include "kubebridge/client/json_util.h"
#include "test/kubebridge/api_server_fixture.h"
#include "test/kubebridge/mirrors/mirror_test_objects.h"

namespace credledger::kubebridge {
namespace owner_check_test {

using ::credledger::testing::StatusIs;
using ::testing::HasSubstr;
using Absence = std::optional<v1::BoundObjectAbsence>;

// The verdict of a check that must succeed.
Absence Ok(const absl::StatusOr<Absence>& checked) {
  EXPECT_OK(checked.status());
  return checked.ok() ? *checked : Absence(v1::BOUND_OBJECT_ABSENCE_UNSPECIFIED);
}

class OwnerCheckTest : public ApiServerFixture {
 protected:
  void SetUp() override {
    kubeapi::ApiServerOptions options = ServerOptions();
    options.namespaces = {"team-a", "team-b"};
    StartServer(std::move(options));
  }

  absl::StatusOr<Absence> Check(const std::string& ns, const v1::OwnerReference& owner) {
    OwnerCheck check(*client_, nullptr, /*server_free=*/false);
    return check.Check(ns, owner);
  }

  static v1::OwnerReference Ref(const std::string& api_version, const std::string& kind,
                                const std::string& name, const std::string& uid) {
    v1::OwnerReference owner;
    owner.set_api_version(api_version);
    owner.set_kind(kind);
    owner.set_name(name);
    owner.set_uid(uid);
    return owner;
  }
};

TEST_F(OwnerCheckTest, AnObjectWithItsUidExistsInTheBindingsNamespaceOnly) {
  ASSERT_OK_AND_ASSIGN(v1::OwnerReference c1, CreateOwner(*client_, "team-a", "c1"));
  EXPECT_EQ(Ok(Check("team-a", c1)), Absence());
  EXPECT_EQ(Ok(Check("team-b", c1)), Absence(v1::BOUND_OBJECT_ABSENCE_NOT_FOUND));
}

TEST_F(OwnerCheckTest, AnObjectOfTheSameNameWithAnotherUidIsAnotherObject) {
  ASSERT_OK_AND_ASSIGN(v1::OwnerReference c1, CreateOwner(*client_, "team-a", "c1"));
  ASSERT_OK(client_->Delete(TerraformClusters("team-a", "c1")));
  ASSERT_OK_AND_ASSIGN(v1::OwnerReference again, CreateOwner(*client_, "team-a", "c1"));
  ASSERT_NE(again.uid(), c1.uid());
  EXPECT_EQ(Ok(Check("team-a", c1)), Absence(v1::BOUND_OBJECT_ABSENCE_OTHER_UID));
}

TEST_F(OwnerCheckTest, CoreAndBuiltInKindsResolveThroughDiscovery) {
  ASSERT_OK_AND_ASSIGN(nlohmann::json job, client_->Create({"batch", "v1", "jobs", "team-a", ""},
                                                           {{"apiVersion", "batch/v1"},
                                                            {"kind", "Job"},
                                                            {"metadata", {{"name", "plan"}}}}));
  EXPECT_EQ(Ok(Check("team-a", Ref("batch/v1", "Job", "plan", StringAt(job, {"metadata", "uid"})))),
            Absence());
  ASSERT_OK_AND_ASSIGN(nlohmann::json cm, client_->Create(Core("configmaps", "", "team-a"),
                                                          ConfigMap("settings", "app")));
  EXPECT_EQ(
      Ok(Check("team-a", Ref("v1", "ConfigMap", "settings", StringAt(cm, {"metadata", "uid"})))),
      Absence());
}

TEST_F(OwnerCheckTest, AClusterScopedOwnerIsReadByNameAlone) {
  ASSERT_OK_AND_ASSIGN(nlohmann::json ns, client_->Get(Core("namespaces", "team-b", "")));
  EXPECT_EQ(
      Ok(Check("team-a", Ref("v1", "Namespace", "team-b", StringAt(ns, {"metadata", "uid"})))),
      Absence());
}

TEST_F(OwnerCheckTest, AKindOrGroupVersionTheServerDoesNotServeIsGone) {
  // No CRD for TerraformClusters: the group-version is not served at all.
  EXPECT_EQ(Ok(Check("team-a", Owner("c1", "u1"))),
            Absence(v1::BOUND_OBJECT_ABSENCE_KIND_NOT_SERVED));
  EXPECT_EQ(Ok(Check("team-a", Ref("batch/v1", "CronTab", "x", "u2"))),
            Absence(v1::BOUND_OBJECT_ABSENCE_KIND_NOT_SERVED));
}

TEST_F(OwnerCheckTest, DiscoveryIsReadOncePerGroupVersion) {
  ASSERT_OK_AND_ASSIGN(v1::OwnerReference c1, CreateOwner(*client_, "team-a", "c1"));
  ASSERT_OK_AND_ASSIGN(v1::OwnerReference c2, CreateOwner(*client_, "team-a", "c2"));
  // From now on, discovery of the group-version fails.
  kubeapi::Fault discovery;
  discovery.method = "GET";
  discovery.path_prefix = "/apis/infrastructure.cluster.x-k8s.io/v1beta1";
  discovery.exact_path = true;
  discovery.status_code = 500;
  OwnerCheck check(*client_, nullptr, /*server_free=*/false);
  ASSERT_EQ(Ok(check.Check("team-a", c1)), Absence());
  server_->faults().Add(discovery);
  EXPECT_EQ(Ok(check.Check("team-a", c2)), Absence());
  EXPECT_EQ(server_->faults().fired(), 0);
  // A new check (the next pass) discovers again.
  EXPECT_THAT(Check("team-a", c2), StatusIs(absl::StatusCode::kUnavailable));
}

TEST_F(OwnerCheckTest, AnOwnerTheBridgeMayNotReadFailsNamingItAndTheMissingRight) {
  ASSERT_OK_AND_ASSIGN(v1::OwnerReference c1, CreateOwner(*client_, "team-a", "c1"));
  // A ServiceAccount with no rights at all: discovery only.
  std::unique_ptr<KubeClient> bridge = ServiceAccountClient("team-a", "bridge");
  ASSERT_NE(bridge, nullptr);
  for (const bool server_free : {false, true}) {
    OwnerCheck check(*bridge, nullptr, server_free);
    absl::StatusOr<Absence> denied = check.Check("team-a", c1);
    EXPECT_THAT(denied, StatusIs(absl::StatusCode::kPermissionDenied));
    EXPECT_THAT(denied.status().message(),
                HasSubstr("bound object TerraformCluster \"c1\" (infrastructure.cluster.x-k8s.io/"
                          "v1beta1, uid " +
                          c1.uid() +
                          ") in namespace team-a could not be read: "
                          "credledger needs `get` on terraformclusters."
                          "infrastructure.cluster.x-k8s.io"));
    // A registered cluster's words stay out: only the code and reason are kept.
    EXPECT_EQ(absl::StrContains(denied.status().message(), ": HTTP 403 Forbidden"), server_free)
        << denied.status().message();
  }
  bridge->Stop();
}

}  // namespace owner_check_test
}  // namespace credledger::kubebridge
