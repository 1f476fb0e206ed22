// The agent's ServiceAccount, Role and RoleBinding beside other managers of the same objects
// (docs/kubernetes.md, "Objects per Target"): credledger applies only its own fields, so a
// repair keeps the labels, annotations and imagePullSecrets others added, and those
// additions are not drift. The fixture is credential_bridge_fixture.h.
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "absl/time/time.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "kubebridge/client/json_util.h"
#include "kubebridge/client/kubeconfig.h"
#include "kubebridge/credentials/agent_objects.h"
#include "store/event_codec.h"
#include "test/integration/credential_bridge_fixture.h"
#include "test/kubeapi/request_recorder.h"
#include "test/support/status_matchers.h"

namespace credledger {
namespace identity_objects_test {

using credential_bridge_fixture::kNs;
using credential_bridge_fixture::kTarget;
using kubebridge::ResourceRef;
using ::testing::UnorderedElementsAre;

constexpr absl::Duration kWait = absl::Seconds(30);
// The user every client of these tests authenticates as (the test API server's admin).
constexpr char kAdmin[] = "kubernetes-admin";

class IdentityObjectsTest : public credential_bridge_fixture::CredentialBridgeFixture {
 protected:
  void SetUp() override {
    CredentialBridgeFixture::SetUp();
    ASSERT_OK_AND_ASSIGN(kubebridge::ConnectionConfig connection,
                         kubebridge::LoadKubeconfig(api_->kubeconfig_path()));
    kubebridge::KubeClientOptions options = ClientOptions();
    options.transport.user_agent = "kubectl-edit/v1.31.0 (linux/amd64)";
    ASSERT_OK_AND_ASSIGN(editor_, kubebridge::KubeClient::New(connection, options));
    ASSERT_OK(Run(service::RegisterTarget{"0b4e3f4a-8c9d-4e2f-a1b2-c3d4e5f60718", true}, "reg-1"));
    WaitFor([](const v1::TargetState& s) { return !CurrentName(s).empty(); }, "first mint");
    ASSERT_TRUE(bridge_->WaitIdle(kWait));
  }

  void TearDown() override {
    if (editor_ != nullptr) editor_->Stop();
    CredentialBridgeFixture::TearDown();
  }

  static ResourceRef Account() {
    return kubebridge::ServiceAccountResource(kNs, kubebridge::AgentIdentityName(kTarget));
  }
  static ResourceRef Role() {
    return kubebridge::RoleResource(kNs, kubebridge::AgentIdentityName(kTarget));
  }
  static ResourceRef Binding() {
    return kubebridge::RoleBindingResource(kNs, kubebridge::AgentIdentityName(kTarget));
  }

  // Another manager (kubectl edit) reads `ref`, changes it with `edit` and writes it back.
  void Edit(const ResourceRef& ref, const std::function<void(nlohmann::json&)>& edit) {
    ASSERT_OK_AND_ASSIGN(nlohmann::json live, editor_->Get(ref));
    edit(live);
    ASSERT_OK(editor_->Update(ref, live).status());
  }

  // Adds another manager's label, annotation and imagePullSecrets to the identity objects.
  void AddOtherManagersFields() {
    ASSERT_NO_FATAL_FAILURE(Edit(Account(), [](nlohmann::json& account) {
      account["metadata"]["labels"]["extra"] = "keep";
      account["imagePullSecrets"] = {{{"name", "registry-pull"}}};
    }));
    ASSERT_NO_FATAL_FAILURE(Edit(
        Role(), [](nlohmann::json& role) { role["metadata"]["annotations"]["note"] = "mine"; }));
    ASSERT_NO_FATAL_FAILURE(Edit(Binding(), [](nlohmann::json& binding) {
      binding["metadata"]["labels"]["extra"] = "keep";
    }));
  }

  // Runs one resync pass over every Target and waits until the bridge is idle again.
  void Resync() {
    const int64_t resyncs = bridge_->resyncs();
    clock_.Advance(absl::Minutes(11));  // past the resync period, long before rotation
    ASSERT_TRUE(bridge_->WaitResyncs(resyncs + 1, kWait));
    ASSERT_TRUE(bridge_->WaitIdle(kWait));
  }

  // Writes (create, update, patch, delete) every client of the test has made so far.
  int64_t Writes() const {
    int64_t writes = 0;
    for (const kubeapi::RequestCount& c : api_->requests().CountsOf(kAdmin)) {
      if (c.verb == "create" || c.verb == "update" || c.verb == "patch" || c.verb == "delete") {
        writes += c.count;
      }
    }
    return writes;
  }

  // The writes of the Target's IdentityObjectsWritten events after `seq`, in log order.
  std::vector<std::string> IdentityWritesAfter(int64_t seq) {
    std::vector<std::string> writes;
    auto events = store_->ReadStream(projections::TargetStream(kNs, kTarget), 0, 1000);
    EXPECT_OK(events);
    if (!events.ok()) return writes;
    for (const auto& e : *events) {
      if (e.seq <= seq) continue;
      auto decoded = store::EventCodec::Default().Decode(e);
      EXPECT_OK(decoded);
      if (decoded.ok() && decoded->has_identity_objects_written()) {
        const auto& written = decoded->identity_objects_written().writes();
        writes.insert(writes.end(), written.begin(), written.end());
      }
    }
    return writes;
  }

  // Waits until the IdentityObjectsWritten events after `seq` hold `count` writes: the caches'
  // watches queue a repair as soon as they bring a drift, so one pass or several may do them.
  std::vector<std::string> AwaitIdentityWrites(int64_t seq, size_t count) {
    const absl::Time give_up = absl::Now() + kWait;
    std::vector<std::string> writes = IdentityWritesAfter(seq);
    while (writes.size() < count && absl::Now() < give_up) {
      projector_->WaitForSeq(store_->HeadSeq() + 1, give_up - absl::Now());
      writes = IdentityWritesAfter(seq);
    }
    return writes;
  }

  std::unique_ptr<kubebridge::KubeClient> editor_;
};

TEST_F(IdentityObjectsTest, ARepairRestoresCredledgersFieldsAndKeepsWhatOthersAdded) {
  ASSERT_NO_FATAL_FAILURE(AddOtherManagersFields());
  const int64_t before = store_->HeadSeq();
  // The editor also drifts credledger's own fields: the ServiceAccount's label, a Role rule.
  ASSERT_NO_FATAL_FAILURE(Edit(Account(), [](nlohmann::json& account) {
    account["metadata"]["labels"][kubebridge::kManagedByLabel] = "someone-else";
  }));
  ASSERT_NO_FATAL_FAILURE(Edit(Role(), [](nlohmann::json& role) {
    role["rules"][1]["verbs"] = {"get", "update", "delete"};
  }));
  ASSERT_NO_FATAL_FAILURE(Resync());
  EXPECT_THAT(AwaitIdentityWrites(before, 2),
              UnorderedElementsAre("updated ServiceAccount/solar-agent-edge-1",
                                   "updated Role/solar-agent-edge-1"));
  ASSERT_TRUE(bridge_->WaitIdle(kWait));

  ASSERT_OK_AND_ASSIGN(nlohmann::json account, client_->Get(Account()));
  EXPECT_EQ(account["metadata"]["labels"],
            (nlohmann::json{{kubebridge::kManagedByLabel, kubebridge::kManagedByValue},
                            {"extra", "keep"}}));
  EXPECT_EQ(account["imagePullSecrets"], (nlohmann::json{{{"name", "registry-pull"}}}));
  ASSERT_OK_AND_ASSIGN(nlohmann::json role, client_->Get(Role()));
  EXPECT_EQ(role["rules"], kubebridge::RoleObject(kNs, kTarget)["rules"]);
  EXPECT_EQ(role["metadata"]["annotations"], (nlohmann::json{{"note", "mine"}}));
  ASSERT_OK_AND_ASSIGN(nlohmann::json binding, client_->Get(Binding()));
  EXPECT_EQ(binding["metadata"]["labels"]["extra"], "keep");
  EXPECT_EQ(bridge_->reconcile_errors(), 0);
}

TEST_F(IdentityObjectsTest, FieldsOtherManagersAddAreNotDriftAndMakeNoWrite) {
  ASSERT_NO_FATAL_FAILURE(AddOtherManagersFields());
  const int64_t rv = api_->resource_version();
  const int64_t head = store_->HeadSeq();
  const int64_t writes = Writes();
  ASSERT_NO_FATAL_FAILURE(Resync());
  EXPECT_EQ(Writes(), writes) << "a pass over objects others added to made a write";
  EXPECT_EQ(api_->resource_version(), rv);
  EXPECT_EQ(store_->HeadSeq(), head);
}

}  // namespace identity_objects_test
}  // namespace credledger
