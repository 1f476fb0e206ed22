// The credential lifecycle end to end inside one process: a real SQLite log, the command bus,
// the projector and the kube bridge against the test Kubernetes API server over HTTPS
// (docs/credentials.md, "Lifecycle"; the fixture is credential_bridge_fixture.h). Time
// is a FakeClock shared by the log, the bridge and the API server, so rotation and expiry are
// driven without waiting.
#include <memory>

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "common/sha256.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "kubebridge/client/json_util.h"
#include "kubebridge/client/kubeconfig.h"
#include "kubebridge/credentials/agent_objects.h"
#include "kubebridge/credentials/credential_bridge.h"
#include "projections/proto_time.h"
#include "projections/target_state.h"
#include "service/bridge/bridge_outcome_sink.h"
#include "service/bus/target_command_bus.h"
#include "service/server/service_configuration.h"
#include "store/event_codec.h"
#include "store/sqlite_event_store.h"
#include "test/integration/credential_bridge_fixture.h"
#include "test/kubeapi/api_server.h"
#include "test/support/status_matchers.h"

namespace credledger {
namespace credential_bridge_test {

using kubebridge::StringAt;
using ::testing::ElementsAre;
using ::testing::IsEmpty;
using ::testing::UnorderedElementsAre;

using credential_bridge_fixture::kNs;
using credential_bridge_fixture::kTarget;
using CredentialBridgeTest = credential_bridge_fixture::CredentialBridgeFixture;

TEST_F(CredentialBridgeTest, RegisterCreatesTheIdentityAndMintsTheFirstCredential) {
  ASSERT_OK(Run(service::RegisterTarget{"0b4e3f4a-8c9d-4e2f-a1b2-c3d4e5f60718", true}, "reg-1"));
  v1::TargetState state =
      WaitFor([](const v1::TargetState& s) { return !CurrentName(s).empty(); }, "first mint");
  EXPECT_EQ(CurrentName(state), "solar-agent-edge-1-1");
  EXPECT_EQ(state.agent_credential_ready().status(), "True");
  EXPECT_EQ(state.agent_credential_ready().reason(), "Issued");

  ASSERT_OK_AND_ASSIGN(auto sa, client_->Get(kubebridge::ServiceAccountResource(kNs, "solar-agent-edge-1")));
  ASSERT_OK_AND_ASSIGN(auto role, client_->Get(kubebridge::RoleResource(kNs, "solar-agent-edge-1")));
  EXPECT_EQ(role["rules"][0]["resources"][0], "targets");
  EXPECT_EQ(role["rules"][0]["resourceNames"][0], "edge-1");
  EXPECT_EQ(role["rules"][1]["verbs"], nlohmann::json({"get", "update"}));
  ASSERT_OK(client_->Get(kubebridge::RoleBindingResource(kNs, "solar-agent-edge-1")));
  ASSERT_OK_AND_ASSIGN(auto report, client_->Get(kubebridge::TargetReportResource(kNs, "edge-1")));
  EXPECT_EQ(report["spec"], nlohmann::json::object());

  ASSERT_OK_AND_ASSIGN(auto secret, client_->Get(kubebridge::SecretResource(kNs, "solar-agent-edge-1-1")));
  EXPECT_EQ(StringAt(secret, {"metadata", "labels", kubebridge::kCredentialLabel}), "edge-1");
  EXPECT_EQ(StringAt(secret, {"metadata", "labels", kubebridge::kCredentialTargetUidLabel}),
            "0b4e3f4a-8c9d-4e2f-a1b2-c3d4e5f60718");
  // The first mint was not requested: no rotation-request annotation.
  EXPECT_EQ(StringAt(secret, {"metadata", "annotations", kubebridge::kRotationRequestAnnotation}), "");
  const v1::CredentialRecord* current = projections::CurrentCredential(state);
  EXPECT_EQ(StringAt(secret, {"metadata", "annotations", kubebridge::kExpiresAtAnnotation}),
            kubebridge::FormatExpiresAt(projections::FromProto(current->expires_at())));
  EXPECT_EQ(current->credential_tag(), projections::CredentialTag(StringAt(secret, {"metadata", "uid"})));
  std::string token;
  ASSERT_TRUE(absl::Base64Unescape(StringAt(secret, {"data", "token"}), &token));
  EXPECT_EQ(current->token_fingerprint(), kubebridge::TokenFingerprint(token));
  // Lifetime is what the server granted.
  EXPECT_EQ(projections::FromProto(current->expires_at()) - projections::FromProto(current->issued_at()),
            absl::Hours(24));

  EXPECT_THAT(StreamTypes(),
              ElementsAre("TargetRegistered", "CredentialMintRequested", "IdentityObjectsWritten",
                          "CredentialSecretCreated", "CredentialIssued"));
}

TEST_F(CredentialBridgeTest, SteadyStateMakesNoWritesAndAppendsNothing) {
  ASSERT_OK(Run(service::RegisterTarget{"0b4e3f4a-8c9d-4e2f-a1b2-c3d4e5f60718", true}, "reg-1"));
  WaitFor([](const v1::TargetState& s) { return !CurrentName(s).empty(); }, "first mint");
  // Let the passes triggered by the last outcomes finish, then force a resync pass.
  ASSERT_TRUE(bridge_->WaitIdle(absl::Seconds(30)));
  const int64_t rv = api_->resource_version();
  const int64_t head = store_->HeadSeq();
  const int64_t resyncs = bridge_->resyncs();
  clock_.Advance(absl::Minutes(11));  // past the resync period, before rotation is due
  ASSERT_TRUE(bridge_->WaitResyncs(resyncs + 1, absl::Seconds(30)));
  ASSERT_TRUE(bridge_->WaitIdle(absl::Seconds(30)));
  EXPECT_EQ(api_->resource_version(), rv);
  EXPECT_EQ(store_->HeadSeq(), head);
}

TEST_F(CredentialBridgeTest, RotationConfirmationAndExpiryCleanUpOlderSecrets) {
  ASSERT_OK(Run(service::RegisterTarget{"0b4e3f4a-8c9d-4e2f-a1b2-c3d4e5f60718", true}, "reg-1"));
  v1::TargetState first =
      WaitFor([](const v1::TargetState& s) { return CurrentName(s) == "solar-agent-edge-1-1"; }, "mint 1");
  const std::string first_tag = projections::CurrentCredential(first)->credential_tag();

  ASSERT_OK(Run(service::RequestRotation{"r1"}, "rot-1"));
  v1::TargetState second =
      WaitFor([](const v1::TargetState& s) { return CurrentName(s) == "solar-agent-edge-1-2"; }, "mint 2");
  ASSERT_OK_AND_ASSIGN(auto secret2, client_->Get(kubebridge::SecretResource(kNs, "solar-agent-edge-1-2")));
  EXPECT_EQ(StringAt(secret2, {"metadata", "annotations", kubebridge::kRotationRequestAnnotation}), "r1");
  EXPECT_THAT(SecretNames(), UnorderedElementsAre("solar-agent-edge-1-1", "solar-agent-edge-1-2"));

  // A revision with the older tag releases nothing.
  ASSERT_OK(Run(service::ConfirmRollout{absl::StrCat("1.0.0-", service_.connection_hash(), "-", first_tag)}, "c-1"));
  // The current tag releases the older Secret.
  const std::string tag = projections::CurrentCredential(second)->credential_tag();
  ASSERT_OK(Run(service::ConfirmRollout{absl::StrCat("1.0.0-", service_.connection_hash(), "-", tag)}, "c-2"));
  WaitFor([](const v1::TargetState& s) { return s.credentials_size() == 1; }, "cleanup after confirm");
  EXPECT_THAT(SecretNames(), ElementsAre("solar-agent-edge-1-2"));

  // Another rotation, then let the superseded credential expire without confirmation.
  ASSERT_OK(Run(service::RequestRotation{"r2"}, "rot-2"));
  WaitFor([](const v1::TargetState& s) { return CurrentName(s) == "solar-agent-edge-1-3"; }, "mint 3");
  clock_.Advance(absl::Hours(24) + absl::Seconds(1));
  WaitFor([](const v1::TargetState& s) {
    for (const auto& c : s.credentials()) if (c.secret().name() == "solar-agent-edge-1-2") return false;
    return true;
  }, "expiry cleanup");
  auto events = store_->ReadStream(projections::TargetStream(kNs, kTarget), 0, 1000);
  ASSERT_OK(events);
  std::vector<v1::SecretDeletionReason> reasons;
  for (const auto& e : *events) {
    auto decoded = store::EventCodec::Default().Decode(e);
    ASSERT_OK(decoded);
    if (decoded->has_credential_secret_deleted()) reasons.push_back(decoded->credential_secret_deleted().reason());
  }
  EXPECT_THAT(reasons, ElementsAre(v1::SECRET_DELETION_REASON_SUPERSEDED, v1::SECRET_DELETION_REASON_EXPIRED));
}

TEST_F(CredentialBridgeTest, RevokeDeletesCredentialsKeepsIdentityAndLiftMintsAgain) {
  ASSERT_OK(Run(service::RegisterTarget{"0b4e3f4a-8c9d-4e2f-a1b2-c3d4e5f60718", true}, "reg-1"));
  WaitFor([](const v1::TargetState& s) { return !CurrentName(s).empty(); }, "mint");
  ASSERT_OK(Run(service::Revoke{"lost device"}, "rev-1"));
  v1::TargetState revoked = WaitFor([](const v1::TargetState& s) { return s.credentials_size() == 0; }, "revocation");
  EXPECT_EQ(revoked.agent_credential_ready().reason(), "Revoked");
  EXPECT_THAT(SecretNames(), IsEmpty());
  EXPECT_OK(client_->Get(kubebridge::ServiceAccountResource(kNs, "solar-agent-edge-1")));
  EXPECT_OK(client_->Get(kubebridge::RoleResource(kNs, "solar-agent-edge-1")));
  EXPECT_OK(client_->Get(kubebridge::RoleBindingResource(kNs, "solar-agent-edge-1")));

  ASSERT_OK(Run(service::LiftRevocation{}, "lift-1"));
  v1::TargetState lifted = WaitFor([](const v1::TargetState& s) { return !CurrentName(s).empty(); }, "mint after lift");
  EXPECT_EQ(CurrentName(lifted), "solar-agent-edge-1-1");  // names are reused after a revoke
  EXPECT_EQ(lifted.agent_credential_ready().reason(), "Issued");
}

TEST_F(CredentialBridgeTest, TheTokenAuthenticatesAsTheAgentUntilItsSecretIsDeleted) {
  ASSERT_OK(Run(service::RegisterTarget{"0b4e3f4a-8c9d-4e2f-a1b2-c3d4e5f60718", true}, "reg-1"));
  v1::TargetState state = WaitFor(
      [](const v1::TargetState& s) { return CurrentName(s) == "solar-agent-edge-1-1"; }, "mint");
  const std::string uid = projections::CurrentCredential(state)->secret().uid();
  ASSERT_OK_AND_ASSIGN(auto secret,
                       client_->Get(kubebridge::SecretResource(kNs, "solar-agent-edge-1-1")));
  std::string token;
  ASSERT_TRUE(absl::Base64Unescape(StringAt(secret, {"data", "token"}), &token));
  ASSERT_FALSE(token.empty());

  // The cluster says whose token it is.
  ASSERT_OK_AND_ASSIGN(
      auto review,
      client_->Create(kubebridge::ResourceRef{"authentication.k8s.io", "v1", "tokenreviews", "", ""},
                      {{"apiVersion", "authentication.k8s.io/v1"},
                       {"kind", "TokenReview"},
                       {"spec", {{"token", token}}}}));
  EXPECT_EQ(review["status"].value("authenticated", false), true) << review.dump();
  EXPECT_EQ(StringAt(review, {"status", "user", "username"}),
            "system:serviceaccount:demo:solar-agent-edge-1");

  // The agent reads its own TargetReport with it, until the Secret it is bound to is gone.
  kubebridge::ConnectionConfig agent;
  agent.server = api_->url();
  agent.ca_pem = api_->ca_pem();
  agent.token = token;
  ASSERT_OK_AND_ASSIGN(auto agent_client, kubebridge::KubeClient::New(agent));
  ASSERT_OK(agent_client->Get(kubebridge::TargetReportResource(kNs, kTarget)));
  ASSERT_OK(client_->Delete(kubebridge::SecretResource(kNs, "solar-agent-edge-1-1"),
                            {.precondition_uid = uid}));
  absl::Status after = agent_client->Get(kubebridge::TargetReportResource(kNs, kTarget)).status();
  EXPECT_TRUE(absl::IsUnauthenticated(after)) << after;
  agent_client->Stop();
}

TEST_F(CredentialBridgeTest, AnExternallyDeletedCurrentSecretIsRecordedAndReminted) {
  ASSERT_OK(Run(service::RegisterTarget{"0b4e3f4a-8c9d-4e2f-a1b2-c3d4e5f60718", true}, "reg-1"));
  v1::TargetState first = WaitFor(
      [](const v1::TargetState& s) { return CurrentName(s) == "solar-agent-edge-1-1"; }, "mint");
  const std::string first_uid = projections::CurrentCredential(first)->secret().uid();
  ASSERT_OK(client_->Delete(kubebridge::SecretResource(kNs, "solar-agent-edge-1-1")));
  v1::TargetState again = WaitFor([&](const v1::TargetState& s) {
    const v1::CredentialRecord* c = projections::CurrentCredential(s);
    return c != nullptr && c->secret().uid() != first_uid;
  }, "re-mint");
  // The name is free again, so the replacement reuses it with a new uid.
  EXPECT_EQ(CurrentName(again), "solar-agent-edge-1-1");
  std::vector<std::string> types = StreamTypes();
  EXPECT_NE(std::find(types.begin(), types.end(), "CredentialSecretDeletedExternally"), types.end());
}

// Metrics (docs/operations.md): passes that fail are counted; the retry that mints is not.
TEST_F(CredentialBridgeTest, AFailedPassIsCountedAsAReconcileError) {
  // Namespace "late" does not exist yet: the ServiceAccount create fails with NotFound.
  constexpr char kLate[] = "late";
  EXPECT_EQ(bridge_->reconcile_errors(), 0);
  ASSERT_OK(bus_->Execute(service::RegisterTarget{"0b4e3f4a-8c9d-4e2f-a1b2-c3d4e5f60718", true},
                          {kLate, kTarget, clock_.Now(), "operator", "reg-late", service_}));
  auto wait_for_reason = [&](const std::string& reason) {
    const absl::Time give_up = absl::Now() + absl::Seconds(30);
    while (absl::Now() < give_up) {
      const int64_t seq = projector_->seq();
      std::optional<v1::TargetState> state = projector_->Get(kLate, kTarget);
      if (state.has_value() && state->agent_credential_ready().reason() == reason) return true;
      projector_->WaitForSeq(seq + 1, absl::Milliseconds(200));
    }
    return false;
  };
  ASSERT_TRUE(wait_for_reason(projections::kReasonMintFailed));
  // Idle: the failed passes are done and the next one waits for the backoff.
  ASSERT_TRUE(bridge_->WaitIdle(absl::Seconds(30)));
  const int64_t failed = bridge_->reconcile_errors();
  EXPECT_GE(failed, 1);
  ASSERT_OK(client_->Create(kubebridge::ResourceRef{"", "v1", "namespaces", "", ""},
                            {{"apiVersion", "v1"}, {"kind", "Namespace"},
                             {"metadata", {{"name", kLate}}}}));
  // Past the queue's backoff and the mint retry delay.
  clock_.Advance(absl::Minutes(5));
  ASSERT_TRUE(wait_for_reason(projections::kReasonIssued));
  ASSERT_TRUE(bridge_->WaitIdle(absl::Seconds(30)));
  EXPECT_EQ(bridge_->reconcile_errors(), failed);
}

TEST_F(CredentialBridgeTest, DeleteRemovesEveryObjectThenFinalizesAndTheNameCanBeReused) {
  ASSERT_OK(Run(service::RegisterTarget{"0b4e3f4a-8c9d-4e2f-a1b2-c3d4e5f60718", true}, "reg-1"));
  WaitFor([](const v1::TargetState& s) { return !CurrentName(s).empty(); }, "mint");
  ASSERT_OK(Run(service::DeleteTarget{}, "del-1"));
  WaitFor([](const v1::TargetState& s) { return s.phase() == v1::TargetState::PHASE_FINALIZED; }, "finalized");
  EXPECT_THAT(SecretNames(), IsEmpty());
  EXPECT_TRUE(absl::IsNotFound(client_->Get(kubebridge::ServiceAccountResource(kNs, "solar-agent-edge-1")).status()));
  EXPECT_TRUE(absl::IsNotFound(client_->Get(kubebridge::RoleResource(kNs, "solar-agent-edge-1")).status()));
  EXPECT_TRUE(absl::IsNotFound(client_->Get(kubebridge::RoleBindingResource(kNs, "solar-agent-edge-1")).status()));
  EXPECT_TRUE(absl::IsNotFound(client_->Get(kubebridge::TargetReportResource(kNs, "edge-1")).status()));

  ASSERT_OK(Run(service::RegisterTarget{"5f0c1d2e-3a4b-4c5d-8e6f-708192a3b4c5", true}, "reg-2"));
  v1::TargetState again = WaitFor([](const v1::TargetState& s) {
    return s.target_uid() == "5f0c1d2e-3a4b-4c5d-8e6f-708192a3b4c5" && !CurrentName(s).empty();
  }, "new incarnation mint");
  ASSERT_OK_AND_ASSIGN(auto secret, client_->Get(kubebridge::SecretResource(kNs, CurrentName(again))));
  EXPECT_EQ(StringAt(secret, {"metadata", "labels", kubebridge::kCredentialTargetUidLabel}),
            "5f0c1d2e-3a4b-4c5d-8e6f-708192a3b4c5");
}

// Regression: the bridge's request ids named the uid and the attempt only, so registering the
// same uid again after finalization replayed the first incarnation's outcomes and never minted.
TEST_F(CredentialBridgeTest, ReRegisteringTheSameUidAfterFinalizationMintsAgain) {
  const std::string uid = "0b4e3f4a-8c9d-4e2f-a1b2-c3d4e5f60718";
  ASSERT_OK(Run(service::RegisterTarget{uid, true}, "reg-1"));
  WaitFor([](const v1::TargetState& s) { return !CurrentName(s).empty(); }, "mint");
  ASSERT_OK(Run(service::DeleteTarget{}, "del-1"));
  WaitFor([](const v1::TargetState& s) { return s.phase() == v1::TargetState::PHASE_FINALIZED; },
          "finalized");
  ASSERT_OK(Run(service::RegisterTarget{uid, true}, "reg-2"));
  v1::TargetState again = WaitFor(
      [](const v1::TargetState& s) {
        return s.phase() == v1::TargetState::PHASE_ACTIVE && !CurrentName(s).empty();
      },
      "mint of the second incarnation");
  EXPECT_THAT(SecretNames(), ElementsAre(CurrentName(again)));
}

TEST_F(CredentialBridgeTest, LeftoverSecretsOfAnotherIncarnationAreDeletedAndRecordedBeforeMinting) {
  // A predecessor's credential (finalizer bypassed) and one without a uid label.
  for (const auto& [name, uid_label] : std::vector<std::pair<std::string, std::string>>{
           {"solar-agent-edge-1-7", "11111111-2222-4333-8444-555555555555"},
           {"solar-agent-edge-1-8", ""}}) {
    nlohmann::json secret = {{"apiVersion", "v1"},
                             {"kind", "Secret"},
                             {"metadata",
                              {{"name", name},
                               {"namespace", kNs},
                               {"labels", {{kubebridge::kCredentialLabel, kTarget}}}}}};
    if (!uid_label.empty()) {
      secret["metadata"]["labels"][kubebridge::kCredentialTargetUidLabel] = uid_label;
    }
    ASSERT_OK(client_->Create(kubebridge::SecretResource(kNs), secret));
  }
  ASSERT_OK(Run(service::RegisterTarget{"0b4e3f4a-8c9d-4e2f-a1b2-c3d4e5f60718", true}, "reg-1"));
  v1::TargetState state =
      WaitFor([](const v1::TargetState& s) { return !CurrentName(s).empty(); }, "mint");
  // The leftovers neither survive nor raise the suffix.
  EXPECT_EQ(CurrentName(state), "solar-agent-edge-1-1");
  EXPECT_THAT(SecretNames(), ElementsAre("solar-agent-edge-1-1"));
  auto events = store_->ReadStream(projections::TargetStream(kNs, kTarget), 0, 1000);
  ASSERT_OK(events);
  std::vector<std::string> stale;
  std::vector<std::string> stale_uids;
  for (const auto& e : *events) {
    auto decoded = store::EventCodec::Default().Decode(e);
    ASSERT_OK(decoded);
    if (!decoded->has_stale_credentials_deleted()) continue;
    for (const auto& ref : decoded->stale_credentials_deleted().secrets()) stale.push_back(ref.name());
    for (const auto& uid : decoded->stale_credentials_deleted().secret_target_uids()) {
      stale_uids.push_back(uid);
    }
  }
  EXPECT_THAT(stale, UnorderedElementsAre("solar-agent-edge-1-7", "solar-agent-edge-1-8"));
  EXPECT_THAT(stale_uids, UnorderedElementsAre("11111111-2222-4333-8444-555555555555", ""));
}

}  // namespace credential_bridge_test
}  // namespace credledger
