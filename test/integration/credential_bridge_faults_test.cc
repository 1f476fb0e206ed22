// The credential bridge under API server faults (docs/architecture.md,
// "Kubernetes API faults"): 409 Conflicts on writes, requests whose answer is lost after the
// server acted on them, and requests the server never answers. What an operator relies on: the
// cluster converges, no Secret is made twice, no failure is recorded when a retry succeeds, and
// one Target's stuck requests do not hold up the others. The fixture is
// credential_bridge_fixture.h.
#include <string>
#include <vector>

#include "absl/strings/escaping.h"
#include "absl/time/time.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "kubebridge/client/json_util.h"
#include "kubebridge/credentials/agent_objects.h"
#include "kubebridge/credentials/credential_minter.h"
#include "projections/target_state.h"
#include "test/integration/credential_bridge_fixture.h"
#include "test/support/status_matchers.h"

namespace credledger {
namespace credential_bridge_faults_test {

using credential_bridge_fixture::kNs;
using credential_bridge_fixture::kTarget;
using ::testing::ElementsAre;

constexpr char kFaultTargetUid[] = "0b4e3f4a-8c9d-4e2f-a1b2-c3d4e5f60718";
constexpr char kSecretPath[] = "/api/v1/namespaces/demo/secrets";
constexpr char kFirstSecretPath[] = "/api/v1/namespaces/demo/secrets/solar-agent-edge-1-1";
constexpr absl::Duration kFaultWait = absl::Seconds(30);

// The events of a first mint that went through without a recorded failure.
const std::vector<std::string>& CleanFirstMint() {
  static const auto* types = new std::vector<std::string>{
      "TargetRegistered", "CredentialMintRequested", "IdentityObjectsWritten",
      "CredentialSecretCreated", "CredentialIssued"};
  return *types;
}

bool MintSettled(const v1::TargetState& s) {
  const std::string& reason = s.agent_credential_ready().reason();
  return reason == projections::kReasonIssued || reason == projections::kReasonMintFailed;
}

class CredentialBridgeFaultTest : public credential_bridge_fixture::CredentialBridgeFixture {
 protected:
  // Requests give up after half a second and are retried quickly (real time).
  kubebridge::KubeClientOptions ClientOptions() override {
    kubebridge::KubeClientOptions options = CredentialBridgeFixture::ClientOptions();
    options.request_timeout = absl::Milliseconds(500);
    options.retry.initial_delay = absl::Milliseconds(50);
    options.retry.max_delay = absl::Milliseconds(200);
    return options;
  }

  // A fault firing once on `method` requests to exactly `path`; the test sets what it does.
  static kubeapi::Fault FaultOn(const std::string& method, const std::string& path) {
    kubeapi::Fault fault;
    fault.method = method;
    fault.path_prefix = path;
    fault.exact_path = true;
    fault.times = 1;
    return fault;
  }

  // Registers the Target and waits until its first mint is issued or failed.
  v1::TargetState RegisterAndSettle() {
    EXPECT_OK(Run(service::RegisterTarget{kFaultTargetUid, true}, "reg-1"));
    return WaitFor(MintSettled, "first mint issued or failed");
  }

  // Checks that the current credential's recorded fingerprint is that of the token its
  // Secret holds.
  void ExpectRecordedTokenIsStored(const v1::TargetState& state) {
    const v1::CredentialRecord* current = projections::CurrentCredential(state);
    ASSERT_NE(current, nullptr);
    ASSERT_OK_AND_ASSIGN(nlohmann::json secret, client_->Get(kubebridge::SecretResource(
                                                    kNs, current->secret().name())));
    std::string token;
    ASSERT_TRUE(absl::Base64Unescape(kubebridge::StringAt(secret, {"data", "token"}), &token));
    EXPECT_EQ(current->token_fingerprint(), kubebridge::TokenFingerprint(token));
  }
};

TEST_F(CredentialBridgeFaultTest, AConflictOnTheRoleApplyIsRetried) {
  ASSERT_EQ(RegisterAndSettle().agent_credential_ready().reason(), projections::kReasonIssued);
  ASSERT_TRUE(bridge_->WaitIdle(kFaultWait));
  // Someone empties the Role; the pass this change queues puts its rules back, through one
  // Conflict.
  const kubebridge::ResourceRef role =
      kubebridge::RoleResource(kNs, kubebridge::AgentIdentityName(kTarget));
  kubeapi::Fault conflict = FaultOn(
      "PATCH", "/apis/rbac.authorization.k8s.io/v1/namespaces/demo/roles/solar-agent-edge-1");
  conflict.status_code = 409;
  api_->faults().Add(conflict);
  ASSERT_OK_AND_ASSIGN(nlohmann::json edited, client_->Get(role));
  edited["rules"] = nlohmann::json::array();
  ASSERT_OK(client_->Update(role, edited));

  // The Role cache's watch brings the edit and the Target's pass repairs it.
  ASSERT_TRUE(api_->faults().AwaitFired(1, kFaultWait));
  ASSERT_TRUE(bridge_->WaitIdle(kFaultWait));

  EXPECT_EQ(api_->faults().fired(), 1);
  ASSERT_OK_AND_ASSIGN(nlohmann::json restored, client_->Get(role));
  EXPECT_EQ(restored["rules"], kubebridge::RoleObject(kNs, kTarget)["rules"]);
  EXPECT_EQ(bridge_->reconcile_errors(), 0);
  std::vector<std::string> expected = CleanFirstMint();
  expected.push_back("IdentityObjectsWritten");
  EXPECT_EQ(StreamTypes(), expected);
}

// Regression: a Conflict on the PUT that stores the token into the new Secret failed the
// attempt: the Secret was deleted, CredentialMintFailed recorded, and the Target went
// without a credential until the mint retry delay had passed.
TEST_F(CredentialBridgeFaultTest, AConflictOnStoringTheTokenIsRetriedFromAFreshRead) {
  kubeapi::Fault conflict = FaultOn("PUT", kFirstSecretPath);
  conflict.status_code = 409;
  api_->faults().Add(conflict);
  v1::TargetState state = RegisterAndSettle();
  EXPECT_EQ(state.agent_credential_ready().reason(), projections::kReasonIssued);
  EXPECT_EQ(api_->faults().fired(), 1);
  EXPECT_EQ(StreamTypes(), CleanFirstMint());
  EXPECT_THAT(SecretNames(), ElementsAre("solar-agent-edge-1-1"));
  ExpectRecordedTokenIsStored(state);
}

// Regression: when the answer to the token PUT was lost (the Secret already held the token),
// the client's retry met a Conflict and the attempt failed, deleting a Secret whose token
// was good.
TEST_F(CredentialBridgeFaultTest, AStoredTokenWhoseAnswerWasLostCountsAsStored) {
  kubeapi::Fault lost = FaultOn("PUT", kFirstSecretPath);
  lost.hang = kubeapi::Hang::kAfterServing;
  api_->faults().Add(lost);
  v1::TargetState state = RegisterAndSettle();
  EXPECT_EQ(state.agent_credential_ready().reason(), projections::kReasonIssued);
  EXPECT_EQ(api_->faults().fired(), 1);
  EXPECT_EQ(StreamTypes(), CleanFirstMint());
  EXPECT_THAT(SecretNames(), ElementsAre("solar-agent-edge-1-1"));
  ExpectRecordedTokenIsStored(state);
}

// The Secret create reached the cluster but its answer did not: the client's retry meets
// AlreadyExists and the pass fails; the next pass adopts that Secret by its attempt
// annotation instead of making a second one.
TEST_F(CredentialBridgeFaultTest, ASecretCreateWhoseAnswerWasLostIsAdoptedNotRepeated) {
  kubeapi::Fault lost = FaultOn("POST", kSecretPath);
  lost.hang = kubeapi::Hang::kAfterServing;
  api_->faults().Add(lost);
  ASSERT_OK(Run(service::RegisterTarget{kFaultTargetUid, true}, "reg-1"));
  ASSERT_TRUE(api_->faults().AwaitFired(1, kFaultWait));
  ASSERT_TRUE(bridge_->WaitIdle(kFaultWait));  // the failed pass, and any pass after it, ended
  EXPECT_EQ(bridge_->reconcile_errors(), 1);
  clock_.Advance(absl::Seconds(2));  // past the work queue's first backoff, should a pass wait
  v1::TargetState state = WaitFor(MintSettled, "mint after the lost answer");
  EXPECT_EQ(state.agent_credential_ready().reason(), projections::kReasonIssued);
  EXPECT_EQ(CurrentName(state), "solar-agent-edge-1-1");
  EXPECT_THAT(SecretNames(), ElementsAre("solar-agent-edge-1-1"));
  EXPECT_EQ(StreamTypes(), CleanFirstMint());
  ExpectRecordedTokenIsStored(state);
}

class CredentialBridgeHangTest : public CredentialBridgeFaultTest {
 protected:
  // Two tries of half a second each: a pass stuck on a silent server ends within about 1 s.
  kubebridge::KubeClientOptions ClientOptions() override {
    kubebridge::KubeClientOptions options = CredentialBridgeFaultTest::ClientOptions();
    options.retry.max_attempts = 2;
    return options;
  }
};

TEST_F(CredentialBridgeHangTest, ATargetWhoseRequestsHangDoesNotHoldUpTheOthers) {
  constexpr char kSlow[] = "slow";
  CreateNamespace(kSlow);
  kubeapi::Fault hang;
  hang.path_prefix = "/api/v1/namespaces/slow/";
  hang.hang = kubeapi::Hang::kBeforeServing;
  api_->faults().Add(hang);
  ASSERT_OK(Run(service::RegisterTarget{"5f0c1d2e-3a4b-4c5d-8e6f-708192a3b4c5", true},
                "reg-slow", kSlow, kTarget));
  ASSERT_TRUE(api_->faults().AwaitHeld(1, kFaultWait));  // slow/edge-1's pass is stuck

  // Another Target converges meanwhile, on the bridge's other workers.
  v1::TargetState fast = RegisterAndSettle();
  EXPECT_EQ(fast.agent_credential_ready().reason(), projections::kReasonIssued);

  // The stuck pass ends after its two tries: the failure is recorded, nothing is wedged (the
  // failure it recorded may start another pass at once, which the fault holds again).
  WaitFor(
      [](const v1::TargetState& s) {
        return s.agent_credential_ready().reason() == projections::kReasonMintFailed;
      },
      "the stuck Target's failure", kSlow, kTarget);
  EXPECT_GE(api_->faults().fired(), 2);

  api_->faults().Clear();
  ASSERT_TRUE(api_->faults().AwaitHeld(0, kFaultWait));
  ASSERT_TRUE(bridge_->WaitIdle(kFaultWait));
  clock_.Advance(absl::Minutes(1));  // past the work queue's backoff and the mint retry delay
  v1::TargetState recovered = WaitFor(
      [](const v1::TargetState& s) { return !CurrentName(s).empty(); },
      "the stuck Target's mint once the server answers", kSlow, kTarget);
  EXPECT_EQ(recovered.agent_credential_ready().reason(), projections::kReasonIssued);
}

}  // namespace credential_bridge_faults_test
}  // namespace credledger
