// Tests of the Target fold's derived values (docs/events.md, "Target state and the condition";
// docs/credentials.md, "Credential tag and connection hash" and "Rotation"): the
// AgentCredentialReady condition, credential tags and connection hashes, rotation due times and
// the current credential.
#include "projections/target_state.h"

#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "projections/proto_time.h"
#include "test/support/reference_sha256.h"

namespace credledger::projections {
namespace target_state_test {

using ::testing::HasSubstr;
using v1::CredentialRecord;
using v1::Event;

const absl::Time kT0 = absl::FromUnixSeconds(1767225600);
constexpr char kUid[] = "6f1c2a9e-0b7d-4e52-9c3a-1d2e3f405162";

v1::ServiceConfigured Service(bool enabled) {
  v1::ServiceConfigured s;
  if (enabled) s.set_agent_apiserver_url("https://agents.example:6443");
  s.set_credentials_enabled(enabled);
  return s;
}

CredentialRecord Credential(int64_t suffix, CredentialRecord::Phase phase) {
  CredentialRecord c;
  c.mutable_secret()->set_name(absl::StrCat("solar-agent-a-", suffix));
  c.mutable_secret()->set_uid(absl::StrCat("secret-uid-", suffix));
  c.set_suffix(suffix);
  c.set_phase(phase);
  return c;
}

// --- AgentCredentialReady precedence: Revoked > Disabled > MintFailed > Issued ---

struct ConditionCase {
  std::string name;
  bool revoked;
  bool disabled;
  bool failed;
  bool issued;
  std::string status;
  std::string reason;
};

class ConditionPrecedenceTest : public ::testing::TestWithParam<ConditionCase> {};

TEST_P(ConditionPrecedenceTest, TheHighestApplicableReasonWins) {
  const ConditionCase& c = GetParam();
  v1::TargetState state;
  state.set_phase(v1::TargetState::PHASE_ACTIVE);
  state.set_revoked(c.revoked);
  if (c.failed) {
    state.mutable_last_failure()->set_stage(v1::MINT_STAGE_TOKEN_REQUEST);
    state.mutable_last_failure()->set_message("tokenrequests is forbidden");
  }
  if (c.issued) *state.add_credentials() = Credential(1, CredentialRecord::PHASE_ISSUED);
  UpdateCondition(state, kT0, Service(!c.disabled));
  EXPECT_EQ(state.agent_credential_ready().type(), "AgentCredentialReady");
  EXPECT_EQ(state.agent_credential_ready().status(), c.status);
  EXPECT_EQ(state.agent_credential_ready().reason(), c.reason);
}

INSTANTIATE_TEST_SUITE_P(
    EachPairAndEachAlone, ConditionPrecedenceTest,
    ::testing::Values(
        ConditionCase{"RevokedOverDisabled", true, true, false, false, "False", "Revoked"},
        ConditionCase{"RevokedOverMintFailed", true, false, true, false, "False", "Revoked"},
        ConditionCase{"RevokedOverIssued", true, false, false, true, "False", "Revoked"},
        ConditionCase{"DisabledOverMintFailed", false, true, true, false, "False", "Disabled"},
        ConditionCase{"DisabledOverIssued", false, true, false, true, "False", "Disabled"},
        ConditionCase{"MintFailedOverIssued", false, false, true, true, "False", "MintFailed"},
        ConditionCase{"AllAtOnce", true, true, true, true, "False", "Revoked"},
        ConditionCase{"RevokedAlone", true, false, false, false, "False", "Revoked"},
        ConditionCase{"DisabledAlone", false, true, false, false, "False", "Disabled"},
        ConditionCase{"MintFailedAlone", false, false, true, false, "False", "MintFailed"},
        ConditionCase{"IssuedAlone", false, false, false, true, "True", "Issued"},
        ConditionCase{"NothingYet", false, false, false, false, "Unknown", "MintPending"}),
    [](const ::testing::TestParamInfo<ConditionCase>& info) { return info.param.name; });

TEST(ConditionTest, MintFailedNamesTheStageAndTheKubernetesError) {
  v1::TargetState state;
  state.set_phase(v1::TargetState::PHASE_ACTIVE);
  state.mutable_last_failure()->set_stage(v1::MINT_STAGE_SECRET_CREATE);
  state.mutable_last_failure()->set_message("secrets is forbidden");
  UpdateCondition(state, kT0, Service(true));
  EXPECT_THAT(state.agent_credential_ready().message(), HasSubstr("MINT_STAGE_SECRET_CREATE"));
  EXPECT_THAT(state.agent_credential_ready().message(), HasSubstr("secrets is forbidden"));
}

TEST(ConditionTest, AReleasedOrCreatedSecretIsNotAnIssuedCredential) {
  v1::TargetState state;
  state.set_phase(v1::TargetState::PHASE_ACTIVE);
  *state.add_credentials() = Credential(1, CredentialRecord::PHASE_RELEASED);
  *state.add_credentials() = Credential(2, CredentialRecord::PHASE_CREATED);
  UpdateCondition(state, kT0, Service(true));
  EXPECT_EQ(state.agent_credential_ready().status(), "Unknown");
}

// The Issued message names the current Secret, and a newer issued Secret renames it in the
// same condition: True stays True, so its time stays.
TEST(ConditionTest, TheIssuedMessageNamesTheCurrentSecretAndFollowsARotation) {
  v1::TargetState state;
  state.set_phase(v1::TargetState::PHASE_ACTIVE);
  *state.add_credentials() = Credential(1, CredentialRecord::PHASE_ISSUED);
  UpdateCondition(state, kT0, Service(true));
  EXPECT_EQ(state.agent_credential_ready().message(),
            "Secret solar-agent-a-1 holds the current credential");
  UpdateCondition(state, kT0 + absl::Seconds(1), Service(true));
  EXPECT_EQ(state.agent_credential_ready().message(),
            "Secret solar-agent-a-1 holds the current credential");

  *state.add_credentials() = Credential(12, CredentialRecord::PHASE_ISSUED);
  UpdateCondition(state, kT0 + absl::Seconds(2), Service(true));
  EXPECT_EQ(state.agent_credential_ready().status(), "True");
  EXPECT_EQ(state.agent_credential_ready().message(),
            "Secret solar-agent-a-12 holds the current credential");
  EXPECT_EQ(FromProto(state.agent_credential_ready().last_transition_time()), kT0);
}

// Folds events one at a time at increasing times and records the condition after each.
class ConditionTransitionTest : public ::testing::Test {
 protected:
  void At(absl::Time t, const Event& e) {
    ++seq_;
    EvolveTarget(state_, e, {seq_, seq_ - 1, t}, service_);
  }
  const v1::Condition& condition() const { return state_.agent_credential_ready(); }

  v1::ServiceConfigured service_ = Service(true);
  v1::TargetState state_;
  int64_t seq_ = 0;
};

TEST_F(ConditionTransitionTest, LastTransitionTimeMovesOnlyWhenTheStatusChanges) {
  Event registered;
  registered.mutable_target_registered()->set_target_uid(kUid);
  registered.mutable_target_registered()->set_namespace_("ns");
  registered.mutable_target_registered()->set_name("a");
  At(kT0, registered);
  EXPECT_EQ(condition().status(), "Unknown");
  EXPECT_EQ(FromProto(condition().last_transition_time()), kT0);

  Event mint;
  mint.mutable_credential_mint_requested()->set_target_uid(kUid);
  mint.mutable_credential_mint_requested()->set_attempt_id("m1");
  At(kT0 + absl::Seconds(1), mint);
  EXPECT_EQ(FromProto(condition().last_transition_time()), kT0);  // still Unknown

  Event failed;
  failed.mutable_credential_mint_failed()->set_target_uid(kUid);
  failed.mutable_credential_mint_failed()->set_attempt_id("m1");
  failed.mutable_credential_mint_failed()->set_stage(v1::MINT_STAGE_TOKEN_REQUEST);
  failed.mutable_credential_mint_failed()->set_message("forbidden");
  const absl::Time failed_at = kT0 + absl::Seconds(2);
  At(failed_at, failed);
  EXPECT_EQ(condition().reason(), "MintFailed");
  EXPECT_EQ(FromProto(condition().last_transition_time()), failed_at);

  // False/MintFailed -> False/Revoked: reason and message change, the time stays.
  Event revoked;
  revoked.mutable_target_revoked()->set_target_uid(kUid);
  At(kT0 + absl::Seconds(3), revoked);
  EXPECT_EQ(condition().status(), "False");
  EXPECT_EQ(condition().reason(), "Revoked");
  EXPECT_EQ(FromProto(condition().last_transition_time()), failed_at);

  // Lifting leaves the last failure: False/MintFailed again, time still kept.
  Event lifted;
  lifted.mutable_revocation_lifted()->set_target_uid(kUid);
  At(kT0 + absl::Seconds(4), lifted);
  EXPECT_EQ(condition().reason(), "MintFailed");
  EXPECT_EQ(FromProto(condition().last_transition_time()), failed_at);

  // A second failure with another message: only the message changes.
  Event mint2 = mint;
  mint2.mutable_credential_mint_requested()->set_attempt_id("m2");
  At(kT0 + absl::Seconds(5), mint2);
  Event failed2 = failed;
  failed2.mutable_credential_mint_failed()->set_attempt_id("m2");
  failed2.mutable_credential_mint_failed()->set_message("connection refused");
  At(kT0 + absl::Seconds(6), failed2);
  EXPECT_THAT(condition().message(), HasSubstr("connection refused"));
  EXPECT_EQ(FromProto(condition().last_transition_time()), failed_at);

  // Issued: the status changes to True and the time moves.
  Event mint3 = mint;
  mint3.mutable_credential_mint_requested()->set_attempt_id("m3");
  At(kT0 + absl::Seconds(7), mint3);
  Event created;
  created.mutable_credential_secret_created()->set_target_uid(kUid);
  created.mutable_credential_secret_created()->set_attempt_id("m3");
  created.mutable_credential_secret_created()->mutable_secret()->set_name("solar-agent-a-1");
  created.mutable_credential_secret_created()->mutable_secret()->set_uid("secret-uid-1");
  created.mutable_credential_secret_created()->set_suffix(1);
  At(kT0 + absl::Seconds(8), created);
  Event issued;
  issued.mutable_credential_issued()->set_target_uid(kUid);
  issued.mutable_credential_issued()->set_attempt_id("m3");
  *issued.mutable_credential_issued()->mutable_secret() =
      created.credential_secret_created().secret();
  *issued.mutable_credential_issued()->mutable_issued_at() = ToProto(kT0 + absl::Seconds(9));
  *issued.mutable_credential_issued()->mutable_expires_at() = ToProto(kT0 + absl::Hours(1));
  const absl::Time issued_at = kT0 + absl::Seconds(9);
  At(issued_at, issued);
  EXPECT_EQ(condition().status(), "True");
  EXPECT_EQ(condition().reason(), "Issued");
  EXPECT_THAT(condition().message(), HasSubstr("solar-agent-a-1"));
  EXPECT_EQ(FromProto(condition().last_transition_time()), issued_at);

  // Credentials disabled (the same fold under a new configuration): True -> False moves it.
  service_ = Service(false);
  const absl::Time disabled_at = kT0 + absl::Seconds(10);
  UpdateCondition(state_, disabled_at, service_);
  EXPECT_EQ(condition().reason(), "Disabled");
  EXPECT_EQ(FromProto(condition().last_transition_time()), disabled_at);
}

// --- Credential tag and connection hash, against OpenSSL directly ---

// Regression: a Target being deleted kept "True/Issued: Secret ... holds the current
// credential" while its Secrets were removed, and a finalized one still showed it.
TEST_F(ConditionTransitionTest, ADeletedTargetIsFalseDeletingThenHasNoCondition) {
  Event registered;
  registered.mutable_target_registered()->set_target_uid(kUid);
  registered.mutable_target_registered()->set_namespace_("ns");
  registered.mutable_target_registered()->set_name("a");
  At(kT0, registered);
  Event deleting;
  deleting.mutable_target_deletion_requested()->set_target_uid(kUid);
  At(kT0 + absl::Seconds(1), deleting);
  EXPECT_EQ(condition().status(), "False");
  EXPECT_EQ(condition().reason(), "Deleting");
  Event finalized;
  finalized.mutable_target_finalized()->set_target_uid(kUid);
  At(kT0 + absl::Seconds(2), finalized);
  EXPECT_FALSE(state_.has_agent_credential_ready());
}

TEST(CredentialTagTest, IsTheFirstTenHexCharactersOfSha256OverTheSecretUid) {
  for (const std::string uid :
       {"5ec7e700-0000-4000-8000-000000001001", "0f0e0d0c-0b0a-4909-8807-060504030201", ""}) {
    SCOPED_TRACE(uid);
    const std::string tag = CredentialTag(uid);
    EXPECT_EQ(tag, testing::ReferenceSha256HexPrefix(uid, 10));
    EXPECT_THAT(tag, ::testing::MatchesRegex("[0-9a-f]{10}"));
  }
  EXPECT_NE(CredentialTag("5ec7e700-0000-4000-8000-000000001001"),
            CredentialTag("5ec7e700-0000-4000-8000-000000001002"));
}

TEST(ConnectionHashTest, IsTheFirstTenHexCharactersOfSha256OverUrlNewlineAndCaBundle) {
  const std::string url = "https://agents.example:6443";
  const std::string pem = "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n";
  EXPECT_EQ(ConnectionHash(url, pem), testing::ReferenceSha256HexPrefix(url + "\n" + pem, 10));
  EXPECT_EQ(ConnectionHash(url, ""), testing::ReferenceSha256HexPrefix(url + "\n", 10));
  EXPECT_THAT(ConnectionHash(url, pem), ::testing::MatchesRegex("[0-9a-f]{10}"));
}

TEST(ConnectionHashTest, HashesEveryByteOfABinaryCaBundle) {
  // DER bundles contain NUL bytes; hashing must not stop at the first one.
  const std::string url = "https://agents.example:6443";
  const std::string der_a("\x30\x82\x00\x01\xff", 5);
  const std::string der_b("\x30\x82\x00\x02\xff", 5);
  EXPECT_EQ(ConnectionHash(url, der_a), testing::ReferenceSha256HexPrefix(url + "\n" + der_a, 10));
  EXPECT_NE(ConnectionHash(url, der_a), ConnectionHash(url, der_b));
}

TEST(ConnectionHashTest, ChangesWithTheUrlOrTheCa) {
  const std::string pem = "ca";
  EXPECT_NE(ConnectionHash("https://a.example", pem), ConnectionHash("https://b.example", pem));
  EXPECT_NE(ConnectionHash("https://a.example", "ca1"), ConnectionHash("https://a.example", "ca2"));
  // The newline separates the two parts: moving a byte across it changes the input.
  EXPECT_NE(ConnectionHash("https://a.example", "xca"), ConnectionHash("https://a.examplex", "ca"));
}

// --- Rotation due time ---

TEST(RotationDueAtTest, IsIssuedAtPlusEightyPercentOfTheLifetime) {
  struct Case {
    absl::Duration lifetime;
    absl::Duration due_after;
  };
  for (const Case& c : {Case{absl::Hours(24), absl::Hours(19) + absl::Minutes(12)},
                        Case{absl::Hours(1), absl::Minutes(48)},
                        Case{absl::Seconds(10), absl::Seconds(8)},
                        Case{absl::Milliseconds(1500), absl::Milliseconds(1200)},
                        Case{absl::Microseconds(7), absl::Microseconds(5)},  // 5.6 rounds down
                        Case{absl::Microseconds(1), absl::ZeroDuration()}}) {
    SCOPED_TRACE(absl::FormatDuration(c.lifetime));
    const absl::Time issued = kT0 + absl::Milliseconds(250);
    EXPECT_EQ(RotationDueAt(issued, issued + c.lifetime), issued + c.due_after);
  }
}

TEST(RotationDueAtTest, AnExpiryBeforeTheIssueTimeIsDueAtTheIssueTime) {
  EXPECT_EQ(RotationDueAt(kT0, kT0 - absl::Hours(1)), kT0);
}

TEST(RotationDueAtTest, IsRecordedOnTheIssuedCredential) {
  v1::TargetState state;
  Event registered;
  registered.mutable_target_registered()->set_target_uid(kUid);
  EvolveTarget(state, registered, {1, 0, kT0}, Service(true));
  Event mint;
  mint.mutable_credential_mint_requested()->set_attempt_id("m1");
  EvolveTarget(state, mint, {2, 1, kT0}, Service(true));
  Event issued;
  issued.mutable_credential_issued()->set_attempt_id("m1");
  issued.mutable_credential_issued()->mutable_secret()->set_uid("secret-uid-1");
  *issued.mutable_credential_issued()->mutable_issued_at() = ToProto(kT0);
  *issued.mutable_credential_issued()->mutable_expires_at() = ToProto(kT0 + absl::Hours(10));
  EvolveTarget(state, issued, {3, 2, kT0}, Service(true));
  ASSERT_NE(CurrentCredential(state), nullptr);
  EXPECT_EQ(FromProto(CurrentCredential(state)->rotation_due_at()), kT0 + absl::Hours(8));
}

// --- Current credential ---

TEST(CurrentCredentialTest, IsTheIssuedCredentialWithTheHighestSuffix) {
  v1::TargetState state;
  // Deliberately not in suffix order.
  *state.add_credentials() = Credential(3, CredentialRecord::PHASE_ISSUED);
  *state.add_credentials() = Credential(5, CredentialRecord::PHASE_RELEASED);
  *state.add_credentials() = Credential(6, CredentialRecord::PHASE_CREATED);
  *state.add_credentials() = Credential(4, CredentialRecord::PHASE_ISSUED);
  *state.add_credentials() = Credential(2, CredentialRecord::PHASE_ISSUED);
  ASSERT_NE(CurrentCredential(state), nullptr);
  EXPECT_EQ(CurrentCredential(state)->suffix(), 4);
}

TEST(CurrentCredentialTest, IsNoneWithoutAnIssuedCredential) {
  v1::TargetState state;
  EXPECT_EQ(CurrentCredential(state), nullptr);
  *state.add_credentials() = Credential(1, CredentialRecord::PHASE_RELEASED);
  *state.add_credentials() = Credential(2, CredentialRecord::PHASE_CREATED);
  EXPECT_EQ(CurrentCredential(state), nullptr);
}

TEST(CurrentCredentialTest, TheFoldKeepsCredentialsOrderedBySuffix) {
  v1::TargetState state;
  int64_t seq = 0;
  auto apply = [&](const Event& e) {
    ++seq;
    EvolveTarget(state, e, {seq, seq - 1, kT0}, Service(true));
  };
  Event registered;
  registered.mutable_target_registered()->set_target_uid(kUid);
  apply(registered);
  // Secrets recorded out of suffix order (one attempt abandoned, one live).
  for (auto [attempt, suffix] : std::vector<std::pair<std::string, int>>{{"m1", 7}, {"m2", 3}}) {
    Event mint;
    mint.mutable_credential_mint_requested()->set_attempt_id(attempt);
    apply(mint);
    Event created;
    created.mutable_credential_secret_created()->set_attempt_id(attempt);
    created.mutable_credential_secret_created()->mutable_secret()->set_uid(
        absl::StrCat("secret-uid-", suffix));
    created.mutable_credential_secret_created()->set_suffix(suffix);
    apply(created);
  }
  ASSERT_EQ(state.credentials_size(), 2);
  EXPECT_EQ(state.credentials(0).suffix(), 3);
  EXPECT_EQ(state.credentials(1).suffix(), 7);
}

TEST(RequestAnsweredTest, OnlyValuesAnsweredInThisIncarnationCount) {
  v1::TargetState state;
  state.add_answered_request_values("r1");
  EXPECT_TRUE(RequestAnswered(state, "r1"));
  EXPECT_FALSE(RequestAnswered(state, "r2"));
  Event registered;
  registered.mutable_target_registered()->set_target_uid(kUid);
  EvolveTarget(state, registered, {1, 0, kT0}, Service(true));
  EXPECT_FALSE(RequestAnswered(state, "r1"));
}

TEST(TargetStreamTest, IsTargetSlashNamespaceSlashName) {
  EXPECT_EQ(TargetStream("fleet", "edge-1"), "target/fleet/edge-1");
}

}  // namespace target_state_test
}  // namespace credledger::projections
