// Given-events / when-command / then-events tests of the Target decider
// (docs/credentials.md, "Lifecycle"; docs/design.md, "Deciders").
//
// The given events are folded with projections::EvolveTarget, the command is decided with
// DecideTarget, and the emitted events are compared field by field with the expected ones.
// Emitted events are then folded too, so a test can go on with a further command.
#include "service/decide/target_decider.h"

#include <google/protobuf/util/message_differencer.h>

#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "projections/proto_time.h"
#include "projections/target_state.h"
#include "test/support/fleet_target_events.h"
#include "test/support/reference_sha256.h"
#include "test/support/status_matchers.h"

namespace credledger::service {
namespace target_decider_test {

using ::credledger::testing::StatusIs;
using ::testing::HasSubstr;
using ::testing::StartsWith;
using v1::CredentialRecord;
using v1::Event;
using namespace ::credledger::testing::fleet_target;  // NOLINT: the shared Target

// Credential Secret `solar-agent-edge-1-<suffix>` of incarnation `incarnation` (each a new
// Kubernetes object with its own uid).
v1::SecretRef Secret(int suffix, int incarnation = 1) {
  v1::SecretRef s;
  s.set_name(absl::StrCat("solar-agent-", kName, "-", suffix));
  std::string tail = absl::StrCat(incarnation * 1000 + suffix);
  s.set_uid(absl::StrCat("5ec7e700-0000-4000-8000-", std::string(12 - tail.size(), '0'), tail));
  return s;
}
std::string Tag(const v1::SecretRef& s) { return testing::ReferenceSha256HexPrefix(s.uid(), 10); }
std::string Fingerprint(const v1::SecretRef& s) {
  return testing::ReferenceSha256HexPrefix(absl::StrCat("token of ", s.name()), 16);
}

// --- Expected events ---

Event MintRequested(const std::string& uid, const std::string& attempt, v1::MintReason reason,
                    const std::string& request_value = "") {
  Event e;
  auto* m = e.mutable_credential_mint_requested();
  m->set_target_uid(uid);
  m->set_attempt_id(attempt);
  m->set_reason(reason);
  m->set_request_value(request_value);
  return e;
}
Event SecretCreated(const std::string& uid, const std::string& attempt, const v1::SecretRef& s,
                    int64_t suffix) {
  Event e;
  auto* c = e.mutable_credential_secret_created();
  c->set_target_uid(uid);
  c->set_attempt_id(attempt);
  *c->mutable_secret() = s;
  c->set_suffix(suffix);
  return e;
}
Event Issued(const std::string& uid, const std::string& attempt, const v1::SecretRef& s,
             absl::Time issued_at, absl::Time expires_at, bool adopted = false) {
  Event e;
  auto* i = e.mutable_credential_issued();
  i->set_target_uid(uid);
  i->set_attempt_id(attempt);
  *i->mutable_secret() = s;
  i->set_credential_tag(Tag(s));
  i->set_token_fingerprint(Fingerprint(s));
  *i->mutable_issued_at() = projections::ToProto(issued_at);
  *i->mutable_expires_at() = projections::ToProto(expires_at);
  i->set_adopted(adopted);
  return e;
}
Event MintFailed(const std::string& attempt, v1::MintStage stage, const std::string& message,
                 const v1::SecretRef* deleted = nullptr) {
  Event e;
  auto* f = e.mutable_credential_mint_failed();
  f->set_target_uid(kUid);
  f->set_attempt_id(attempt);
  f->set_stage(stage);
  f->set_message(message);
  if (deleted != nullptr) *f->mutable_deleted_secret() = *deleted;
  return e;
}
// The abandon reason is free text; EqualsEvent ignores it.
Event Abandoned(const std::string& attempt) {
  Event e;
  e.mutable_credential_mint_abandoned()->set_target_uid(kUid);
  e.mutable_credential_mint_abandoned()->set_attempt_id(attempt);
  return e;
}
Event RotationRequested(const std::string& uid, const std::string& value) {
  Event e;
  e.mutable_rotation_requested()->set_target_uid(uid);
  e.mutable_rotation_requested()->set_request_value(value);
  return e;
}
Event Revoked(const std::string& reason) {
  Event e;
  e.mutable_target_revoked()->set_target_uid(kUid);
  e.mutable_target_revoked()->set_reason(reason);
  return e;
}
Event Lifted() {
  Event e;
  e.mutable_revocation_lifted()->set_target_uid(kUid);
  return e;
}
Event Finalized(const std::vector<std::string>& objects) {
  Event e;
  e.mutable_target_finalized()->set_target_uid(kUid);
  for (const std::string& o : objects) e.mutable_target_finalized()->add_deleted_objects(o);
  return e;
}
Event RolloutConfirmed(const std::string& revision, const std::string& tag,
                       const std::vector<std::string>& released) {
  Event e;
  auto* r = e.mutable_rollout_confirmed();
  r->set_target_uid(kUid);
  r->set_revision(revision);
  r->set_credential_tag(tag);
  for (const std::string& name : released) r->add_released_secrets(name);
  return e;
}
Event SecretDeleted(const v1::SecretRef& s, v1::SecretDeletionReason reason) {
  Event e;
  e.mutable_credential_secret_deleted()->set_target_uid(kUid);
  *e.mutable_credential_secret_deleted()->mutable_secret() = s;
  e.mutable_credential_secret_deleted()->set_reason(reason);
  return e;
}
Event DeletedExternally(const v1::SecretRef& s, absl::Time observed_at) {
  Event e;
  auto* d = e.mutable_credential_secret_deleted_externally();
  d->set_target_uid(kUid);
  *d->mutable_secret() = s;
  *d->mutable_observed_at() = projections::ToProto(observed_at);
  return e;
}

// Field-by-field protobuf equality; the free-text abandon reason is not compared.
MATCHER_P(EqualsEvent, expected, "equals " + expected.ShortDebugString()) {
  google::protobuf::util::MessageDifferencer differencer;
  std::string report;
  differencer.ReportDifferencesToString(&report);
  differencer.IgnoreField(v1::CredentialMintAbandoned::descriptor()->FindFieldByName("reason"));
  if (differencer.Compare(expected, arg)) return true;
  *result_listener << "differs: " << report;
  return false;
}

// A revision as the Target controller renders it: chart version, connection hash, tag.
std::string Revision(const std::string& tag) { return absl::StrCat("1.4.2-0c0ffee123-", tag); }

class TargetDeciderTest : public ::testing::Test {
 protected:
  TargetDeciderTest() {
    service_.set_agent_apiserver_url("https://agents.example:6443");
    service_.set_agent_token_ttl_seconds(86400);
    service_.set_credentials_enabled(true);
  }

  void DisableCredentials() {
    service_.clear_agent_apiserver_url();
    service_.set_credentials_enabled(false);
  }

  // Given: folds `events` as the stream's history, each recorded at now_.
  void Given(const std::vector<Event>& events) {
    for (const Event& e : events) {
      ++seq_;
      projections::EvolveTarget(state_, e, {seq_, seq_ - 1, now_}, service_);
    }
  }

  // Given: the Target registered with kUid and credential <suffix> issued by attempt
  // `attempt` at `issued_at` for `lifetime`.
  void GivenIssued(const std::string& attempt, int suffix, absl::Time issued_at,
                   absl::Duration lifetime, v1::MintReason reason = v1::MINT_REASON_INITIAL,
                   const std::string& request_value = "") {
    if (state_.phase() != v1::TargetState::PHASE_ACTIVE) Given({Registered(kUid)});
    if (!request_value.empty()) Given({RotationRequested(kUid, request_value)});
    Given({MintRequested(kUid, attempt, reason, request_value),
           SecretCreated(kUid, attempt, Secret(suffix), suffix),
           Issued(kUid, attempt, Secret(suffix), issued_at, issued_at + lifetime)});
  }

  // When: decides `command` against the folded state at now_.
  absl::StatusOr<std::vector<Event>> When(const TargetCommand& command) {
    CommandContext context{kNamespace, kName, now_, "alice", "req-1", service_};
    return DecideTarget(command, state_, context);
  }

  // Then: the decision emitted exactly `expected`; the emitted events are folded.
  void Then(const absl::StatusOr<std::vector<Event>>& decided, const std::vector<Event>& expected) {
    ASSERT_OK(decided);
    ASSERT_EQ(decided->size(), expected.size()) << Dump(*decided);
    for (size_t i = 0; i < expected.size(); ++i) {
      EXPECT_THAT((*decided)[i], EqualsEvent(expected[i])) << "event " << i;
    }
    Given(*decided);
  }

  static std::string Dump(const std::vector<Event>& events) {
    std::string out = "emitted:";
    for (const Event& e : events) absl::StrAppend(&out, "\n  ", e.ShortDebugString());
    return out;
  }

  const CredentialRecord* Record(const v1::SecretRef& s) const {
    for (const CredentialRecord& c : state_.credentials()) {
      if (c.secret().uid() == s.uid()) return &c;
    }
    return nullptr;
  }

  v1::ServiceConfigured service_;
  absl::Time now_ = kT0;
  int64_t seq_ = 0;
  v1::TargetState state_;
};

// --- RegisterTarget ---

TEST_F(TargetDeciderTest, RegisterWithCredentialsEnabledRecordsTheTargetAndAnInitialMintIntent) {
  Then(When(RegisterTarget{kUid, true}),
       {Registered(kUid), MintRequested(kUid, "m1", v1::MINT_REASON_INITIAL)});
}

TEST_F(TargetDeciderTest, RegisterWithCredentialsDisabledRecordsOnlyTheTarget) {
  DisableCredentials();
  Then(When(RegisterTarget{kUid, true}), {Registered(kUid)});
  Then(When(PlanCredential{}), {});
}

TEST_F(TargetDeciderTest, EnablingCredentialsLaterLetsPlanCredentialStartTheInitialMint) {
  DisableCredentials();
  Given({Registered(kUid)});
  service_.set_agent_apiserver_url("https://agents.example:6443");
  service_.set_credentials_enabled(true);
  Then(When(PlanCredential{}), {MintRequested(kUid, "m1", v1::MINT_REASON_INITIAL)});
}

TEST_F(TargetDeciderTest, RegisterAgainWithTheSameOrNoUidEmitsNothing) {
  GivenIssued("m1", 1, kT0, absl::Hours(10));
  Then(When(RegisterTarget{kUid, true}), {});
  Then(When(RegisterTarget{"", false}), {});
}

TEST_F(TargetDeciderTest, RegisterWithAnotherUidWhileActiveIsFailedPrecondition) {
  Given({Registered(kUid)});
  EXPECT_THAT(When(RegisterTarget{kOtherUid, true}),
              StatusIs(absl::StatusCode::kFailedPrecondition, HasSubstr(kOtherUid)));
}

TEST_F(TargetDeciderTest, RegisterWhileThePreviousIncarnationIsBeingDeletedIsFailedPrecondition) {
  GivenIssued("m1", 1, kT0, absl::Hours(10));
  Given({DeletionRequested()});
  EXPECT_THAT(When(RegisterTarget{kOtherUid, true}),
              StatusIs(absl::StatusCode::kFailedPrecondition, HasSubstr("not finalized")));
}

TEST_F(TargetDeciderTest, RegisterAfterFinalizationStartsANewIncarnationWithFreshAttemptIds) {
  GivenIssued("m1", 1, kT0, absl::Hours(10));
  GivenIssued("m2", 2, kT0, absl::Hours(10), v1::MINT_REASON_ROTATION_REQUESTED, "r1");
  Given({DeletionRequested(), SecretDeleted(Secret(1), v1::SECRET_DELETION_REASON_TARGET_DELETED),
         SecretDeleted(Secret(2), v1::SECRET_DELETION_REASON_TARGET_DELETED),
         Finalized({"Secret/solar-agent-edge-1-1", "Secret/solar-agent-edge-1-2"})});

  Then(When(RegisterTarget{kOtherUid, true}),
       {Registered(kOtherUid), MintRequested(kOtherUid, "m1", v1::MINT_REASON_INITIAL)});
  Given({SecretCreated(kOtherUid, "m1", Secret(1, 2), 1),
         Issued(kOtherUid, "m1", Secret(1, 2), kT0, kT0 + absl::Hours(10))});
  // "r1" was answered by the previous incarnation only, so it triggers a mint in this one.
  Then(When(RequestRotation{"r1"}),
       {RotationRequested(kOtherUid, "r1"),
        MintRequested(kOtherUid, "m2", v1::MINT_REASON_ROTATION_REQUESTED, "r1")});
}

// --- RequestRotation ---

TEST_F(TargetDeciderTest, RotationRequestWithANewValueEmitsTheRequestAndAMintForThatValue) {
  GivenIssued("m1", 1, kT0, absl::Hours(10));
  Then(When(RequestRotation{"2026-01-01T00:00:00Z"}),
       {RotationRequested(kUid, "2026-01-01T00:00:00Z"),
        MintRequested(kUid, "m2", v1::MINT_REASON_ROTATION_REQUESTED, "2026-01-01T00:00:00Z")});
}

TEST_F(TargetDeciderTest, RotationRequestAlreadyAnsweredEmitsNothing) {
  GivenIssued("m1", 1, kT0, absl::Hours(10));
  GivenIssued("m2", 2, kT0, absl::Hours(10), v1::MINT_REASON_ROTATION_REQUESTED, "r1");
  Then(When(RequestRotation{"r1"}), {});
}

TEST_F(TargetDeciderTest, RotationRequestAnsweredByAnOlderStillIssuedCredentialEmitsNothing) {
  GivenIssued("m1", 1, kT0, absl::Hours(10));
  GivenIssued("m2", 2, kT0, absl::Hours(10), v1::MINT_REASON_ROTATION_REQUESTED, "r1");
  GivenIssued("m3", 3, kT0, absl::Hours(10), v1::MINT_REASON_ROTATION_REQUESTED, "r2");
  Then(When(RequestRotation{"r1"}), {});
}

TEST_F(TargetDeciderTest, RotationRequestAlreadyPendingEmitsNothing) {
  GivenIssued("m1", 1, kT0, absl::Hours(10));
  Given({RotationRequested(kUid, "r1"),
         MintRequested(kUid, "m2", v1::MINT_REASON_ROTATION_REQUESTED, "r1")});
  Then(When(RequestRotation{"r1"}), {});
}

TEST_F(TargetDeciderTest, RotationRequestDuringAnotherMintIsMintedOnceThatMintFinishes) {
  Given({Registered(kUid), MintRequested(kUid, "m1", v1::MINT_REASON_INITIAL)});
  Then(When(RequestRotation{"r1"}), {RotationRequested(kUid, "r1")});
  Given({SecretCreated(kUid, "m1", Secret(1), 1),
         Issued(kUid, "m1", Secret(1), kT0, kT0 + absl::Hours(10))});
  // m1 answered no request value, so "r1" is still unanswered.
  Then(When(PlanCredential{}),
       {MintRequested(kUid, "m2", v1::MINT_REASON_ROTATION_REQUESTED, "r1")});
  Given({SecretCreated(kUid, "m2", Secret(2), 2),
         Issued(kUid, "m2", Secret(2), kT0, kT0 + absl::Hours(10))});
  Then(When(RequestRotation{"r1"}), {});
  Then(When(PlanCredential{}), {});
}

TEST_F(TargetDeciderTest, RotationRequestOfARevokedTargetIsFailedPrecondition) {
  GivenIssued("m1", 1, kT0, absl::Hours(10));
  Given({Revoked("lost laptop")});
  EXPECT_THAT(When(RequestRotation{"r1"}),
              StatusIs(absl::StatusCode::kFailedPrecondition, HasSubstr("revoked")));
}

TEST_F(TargetDeciderTest, RotationRequestWithCredentialsDisabledIsFailedPrecondition) {
  GivenIssued("m1", 1, kT0, absl::Hours(10));
  DisableCredentials();
  EXPECT_THAT(When(RequestRotation{"r1"}),
              StatusIs(absl::StatusCode::kFailedPrecondition, HasSubstr("disabled")));
}

TEST_F(TargetDeciderTest, RotationRequestOfATargetBeingDeletedIsFailedPrecondition) {
  GivenIssued("m1", 1, kT0, absl::Hours(10));
  Given({DeletionRequested()});
  EXPECT_THAT(When(RequestRotation{"r1"}), StatusIs(absl::StatusCode::kFailedPrecondition));
}

// Regression: the error named the command's internal field "request_value", which no API
// client knows; the API field is RequestRotationRequest.value.
TEST_F(TargetDeciderTest, RotationRequestWithAMalformedValueIsInvalidArgumentNamingValue) {
  GivenIssued("m1", 1, kT0, absl::Hours(10));
  for (const std::string& value :
       {std::string(), std::string("two words"), std::string("tab\tvalue"),
        std::string("caf\xc3\xa9"), std::string("del\x7f"), std::string(254, 'x')}) {
    SCOPED_TRACE(value);
    EXPECT_THAT(When(RequestRotation{value}),
                StatusIs(absl::StatusCode::kInvalidArgument, StartsWith("value: ")));
  }
}

TEST_F(TargetDeciderTest, RotationRequestValueOfTheMaximumLengthIsAccepted) {
  GivenIssued("m1", 1, kT0, absl::Hours(10));
  const std::string value(253, 'x');
  Then(When(RequestRotation{value}),
       {RotationRequested(kUid, value),
        MintRequested(kUid, "m2", v1::MINT_REASON_ROTATION_REQUESTED, value)});
}

// --- Lifetime and PlanCredential ---

TEST_F(TargetDeciderTest, IssuedRecordsTheTokenRequestTimesNotTheClockOrTheConfiguredTtl) {
  Given({Registered(kUid), MintRequested(kUid, "m1", v1::MINT_REASON_INITIAL),
         SecretCreated(kUid, "m1", Secret(1), 1)});
  // The bridge reports later than the TokenRequest answered, and the server granted one hour
  // although --agent-token-ttl asked for a day.
  now_ = kT0 + absl::Seconds(7);
  const absl::Time answered = kT0 + absl::Milliseconds(1500);
  Then(When(RecordCredentialIssued{"m1", Secret(1), Fingerprint(Secret(1)), answered,
                                   answered + absl::Hours(1), false}),
       {Issued(kUid, "m1", Secret(1), answered, answered + absl::Hours(1))});

  const CredentialRecord* c = projections::CurrentCredential(state_);
  ASSERT_NE(c, nullptr);
  EXPECT_EQ(projections::FromProto(c->rotation_due_at()), answered + absl::Minutes(48));
  now_ = answered + absl::Minutes(48);
  Then(When(PlanCredential{}), {MintRequested(kUid, "m2", v1::MINT_REASON_ROTATION_DUE)});
}

TEST_F(TargetDeciderTest, AnAdoptedTokenIsRecordedAsAdopted) {
  Given({Registered(kUid), MintRequested(kUid, "m1", v1::MINT_REASON_INITIAL),
         SecretCreated(kUid, "m1", Secret(1), 1)});
  Then(When(RecordCredentialIssued{"m1", Secret(1), Fingerprint(Secret(1)), kT0,
                                   kT0 + absl::Hours(1), true}),
       {Issued(kUid, "m1", Secret(1), kT0, kT0 + absl::Hours(1), /*adopted=*/true)});
}

TEST_F(TargetDeciderTest, PlanCredentialWhileAnAttemptIsOpenEmitsNothing) {
  Given({Registered(kUid), MintRequested(kUid, "m1", v1::MINT_REASON_INITIAL)});
  Then(When(PlanCredential{}), {});
}

TEST_F(TargetDeciderTest, PlanCredentialPastRotationDueWhileAnAttemptIsOpenEmitsNothing) {
  GivenIssued("m1", 1, kT0, absl::Hours(10));
  Given({RotationRequested(kUid, "r1"),
         MintRequested(kUid, "m2", v1::MINT_REASON_ROTATION_REQUESTED, "r1")});
  now_ = kT0 + absl::Hours(9);
  Then(When(PlanCredential{}), {});
}

TEST_F(TargetDeciderTest, PlanCredentialAtExactlyEightyPercentOfTheLifetimeMintsRotationDue) {
  GivenIssued("m1", 1, kT0, absl::Hours(10));
  now_ = kT0 + absl::Hours(8);
  Then(When(PlanCredential{}), {MintRequested(kUid, "m2", v1::MINT_REASON_ROTATION_DUE)});
}

TEST_F(TargetDeciderTest, PlanCredentialJustBeforeEightyPercentOfTheLifetimeEmitsNothing) {
  GivenIssued("m1", 1, kT0, absl::Hours(10));
  now_ = kT0 + absl::Hours(8) - absl::Microseconds(1);
  Then(When(PlanCredential{}), {});
}

TEST_F(TargetDeciderTest, AFreshCredentialIsNeverDue) {
  GivenIssued("m1", 1, kT0, absl::Hours(10));
  Then(When(PlanCredential{}), {});
}

TEST_F(TargetDeciderTest, AFreshCredentialWithAMicrosecondLifetimeIsNotDueAtItsIssueTime) {
  // 80% of one microsecond rounds down to zero: the due time equals the issue time, yet a
  // credential issued this instant must not be replaced at once.
  GivenIssued("m1", 1, kT0, absl::Microseconds(1));
  Then(When(PlanCredential{}), {});
  now_ = kT0 + absl::Microseconds(1);
  Then(When(PlanCredential{}), {MintRequested(kUid, "m2", v1::MINT_REASON_ROTATION_DUE)});
}

TEST_F(TargetDeciderTest, PlanCredentialAfterAFailedMintMintsAgainAsReplacement) {
  const v1::SecretRef s1 = Secret(1);
  Given({Registered(kUid), MintRequested(kUid, "m1", v1::MINT_REASON_INITIAL),
         SecretCreated(kUid, "m1", s1, 1),
         MintFailed("m1", v1::MINT_STAGE_TOKEN_REQUEST, "tokenrequests forbidden", &s1)});
  now_ += projections::MintRetryDelay(1);
  Then(When(PlanCredential{}), {MintRequested(kUid, "m2", v1::MINT_REASON_REPLACEMENT)});
}

TEST_F(TargetDeciderTest, PlanCredentialWaitsTheRetryDelayAfterAFailure) {
  const v1::SecretRef s1 = Secret(1);
  Given({Registered(kUid), MintRequested(kUid, "m1", v1::MINT_REASON_INITIAL),
         MintFailed("m1", v1::MINT_STAGE_TOKEN_REQUEST, "tokenrequests forbidden")});
  now_ += projections::MintRetryDelay(1) - absl::Microseconds(1);
  Then(When(PlanCredential{}), {});
  now_ += absl::Microseconds(1);
  Then(When(PlanCredential{}), {MintRequested(kUid, "m2", v1::MINT_REASON_REPLACEMENT)});
  // A second failure in a row doubles the delay.
  Given({MintFailed("m2", v1::MINT_STAGE_TOKEN_REQUEST, "tokenrequests forbidden")});
  EXPECT_EQ(projections::MintRetryDelay(2), 2 * projections::MintRetryDelay(1));
  now_ += projections::MintRetryDelay(2) - absl::Microseconds(1);
  Then(When(PlanCredential{}), {});
  now_ += absl::Microseconds(1);
  Then(When(PlanCredential{}), {MintRequested(kUid, "m3", v1::MINT_REASON_REPLACEMENT)});
}

TEST_F(TargetDeciderTest, PlanCredentialAfterAFailedRotationMintRetriesTheRequestValue) {
  GivenIssued("m1", 1, kT0, absl::Hours(10));
  const v1::SecretRef s2 = Secret(2);
  Given({RotationRequested(kUid, "r1"),
         MintRequested(kUid, "m2", v1::MINT_REASON_ROTATION_REQUESTED, "r1"),
         SecretCreated(kUid, "m2", s2, 2),
         MintFailed("m2", v1::MINT_STAGE_SECRET_UPDATE, "conflict", &s2)});
  now_ += projections::MintRetryDelay(1);
  Then(When(PlanCredential{}),
       {MintRequested(kUid, "m3", v1::MINT_REASON_ROTATION_REQUESTED, "r1")});
}

TEST_F(TargetDeciderTest, PlanCredentialForARevokedDisabledOrDeletingTargetEmitsNothing) {
  GivenIssued("m1", 1, kT0, absl::Microseconds(10));
  now_ = kT0 + absl::Hours(1);  // long past due
  Given({Revoked("")});
  Then(When(PlanCredential{}), {});
  Given({Lifted()});
  DisableCredentials();
  Then(When(PlanCredential{}), {});
  Given({DeletionRequested()});
  Then(When(PlanCredential{}), {});
}

// --- Secret deletions observed outside credledger ---

TEST_F(TargetDeciderTest, TheCurrentSecretDeletedExternallyIsRecordedAndReplaced) {
  GivenIssued("m1", 1, kT0, absl::Hours(10));
  now_ = kT0 + absl::Hours(1);
  const absl::Time deleted_at = kT0 + absl::Minutes(59);
  Then(When(RecordSecretDeletedExternally{Secret(1), deleted_at}),
       {DeletedExternally(Secret(1), deleted_at),
        MintRequested(kUid, "m2", v1::MINT_REASON_REPLACEMENT)});
}

TEST_F(TargetDeciderTest,
       PlanCredentialAfterTheCurrentSecretWasDeletedExternallyMintsAReplacement) {
  // The deletion was observed while a rotation mint was in flight, which then failed.
  GivenIssued("m1", 1, kT0, absl::Hours(10));
  Given({MintRequested(kUid, "m2", v1::MINT_REASON_ROTATION_DUE),
         DeletedExternally(Secret(1), kT0 + absl::Hours(9)),
         MintFailed("m2", v1::MINT_STAGE_TOKEN_REQUEST, "connection refused")});
  now_ += projections::MintRetryDelay(1);
  Then(When(PlanCredential{}), {MintRequested(kUid, "m3", v1::MINT_REASON_REPLACEMENT)});
}

TEST_F(TargetDeciderTest, ASupersededSecretDeletedExternallyIsRecordedWithoutAMint) {
  GivenIssued("m1", 1, kT0, absl::Hours(10));
  GivenIssued("m2", 2, kT0, absl::Hours(10), v1::MINT_REASON_ROTATION_REQUESTED, "r1");
  Then(When(RecordSecretDeletedExternally{Secret(1), kT0}), {DeletedExternally(Secret(1), kT0)});
  EXPECT_EQ(Record(Secret(1)), nullptr);
}

// Regression: deleting the newest Secret while an unconfirmed older one remained made the older
// one current again and minted nothing, although the agent may already use the deleted one.
TEST_F(TargetDeciderTest, TheCurrentSecretDeletedExternallyIsReplacedEvenWhenAnOlderOneRemains) {
  GivenIssued("m1", 1, kT0, absl::Hours(10));
  GivenIssued("m2", 2, kT0, absl::Hours(10), v1::MINT_REASON_ROTATION_REQUESTED, "r1");
  now_ = kT0 + absl::Hours(1);
  Then(
      When(RecordSecretDeletedExternally{Secret(2), now_}),
      {DeletedExternally(Secret(2), now_), MintRequested(kUid, "m3", v1::MINT_REASON_REPLACEMENT)});
}

TEST_F(TargetDeciderTest, AnUnknownSecretDeletedExternallyEmitsNothing) {
  GivenIssued("m1", 1, kT0, absl::Hours(10));
  Then(When(RecordSecretDeletedExternally{Secret(7), kT0}), {});
}

// --- ConfirmRollout and cleanup ---

TEST_F(TargetDeciderTest, ConfirmRolloutWithTheCurrentTagReleasesExactlyTheOlderIssuedSecrets) {
  GivenIssued("m1", 1, kT0, absl::Hours(10));
  // m2 was abandoned after creating Secret 2 (already released for deletion).
  Given({RotationRequested(kUid, "r1"),
         MintRequested(kUid, "m2", v1::MINT_REASON_ROTATION_REQUESTED, "r1"),
         SecretCreated(kUid, "m2", Secret(2), 2), Abandoned("m2"), Revoked(""), Lifted()});
  // Secret 1 was revoked too; the credentials minted after lifting are 3 (older) and 4.
  Given({SecretDeleted(Secret(1), v1::SECRET_DELETION_REASON_REVOKED)});
  GivenIssued("m3", 3, kT0, absl::Hours(10), v1::MINT_REASON_REVOCATION_LIFTED);
  GivenIssued("m4", 4, kT0, absl::Hours(10), v1::MINT_REASON_ROTATION_REQUESTED, "r2");
  GivenIssued("m5", 5, kT0, absl::Hours(10), v1::MINT_REASON_ROTATION_REQUESTED, "r3");
  // m6 is in flight with its Secret created: newer than the current one, not issued.
  Given({MintRequested(kUid, "m6", v1::MINT_REASON_ROTATION_DUE),
         SecretCreated(kUid, "m6", Secret(6), 6)});

  Then(When(ConfirmRollout{Revision(Tag(Secret(5)))}),
       {RolloutConfirmed(Revision(Tag(Secret(5))), Tag(Secret(5)),
                         {Secret(3).name(), Secret(4).name()})});
  EXPECT_EQ(Record(Secret(3))->release_reason(), v1::SECRET_DELETION_REASON_SUPERSEDED);
  EXPECT_EQ(Record(Secret(4))->release_reason(), v1::SECRET_DELETION_REASON_SUPERSEDED);
  EXPECT_EQ(Record(Secret(2))->release_reason(), v1::SECRET_DELETION_REASON_MINT_ABANDONED);
  EXPECT_EQ(Record(Secret(5))->phase(), CredentialRecord::PHASE_ISSUED);
  EXPECT_EQ(Record(Secret(6))->phase(), CredentialRecord::PHASE_CREATED);
}

TEST_F(TargetDeciderTest, ConfirmRolloutWithAnOlderTagReleasesNothing) {
  GivenIssued("m1", 1, kT0, absl::Hours(10));
  GivenIssued("m2", 2, kT0, absl::Hours(10), v1::MINT_REASON_ROTATION_REQUESTED, "r1");
  Then(When(ConfirmRollout{Revision(Tag(Secret(1)))}), {});
  EXPECT_EQ(Record(Secret(1))->phase(), CredentialRecord::PHASE_ISSUED);
}

TEST_F(TargetDeciderTest, ConfirmRolloutWithATagNoCredentialHadIsAFailedPrecondition) {
  GivenIssued("m1", 1, kT0, absl::Hours(10));
  const std::string unknown = Revision("ffffffffff");
  EXPECT_THAT(When(ConfirmRollout{unknown}),
              StatusIs(absl::StatusCode::kFailedPrecondition,
                       HasSubstr("carries credential tag \"ffffffffff\", which no credential of "
                                 "this Target has had")));
}

TEST_F(TargetDeciderTest, ConfirmRolloutWithTheTagNotAtTheEndReleasesNothing) {
  GivenIssued("m1", 1, kT0, absl::Hours(10));
  GivenIssued("m2", 2, kT0, absl::Hours(10), v1::MINT_REASON_ROTATION_REQUESTED, "r1");
  Then(When(ConfirmRollout{absl::StrCat("1.4.2-", Tag(Secret(2)), "-rc1")}), {});
  Then(When(ConfirmRollout{absl::StrCat("1.4.2", Tag(Secret(2)))}), {});  // no '-' before it
}

TEST_F(TargetDeciderTest, ConfirmRolloutAgainAfterTheReleaseEmitsNothing) {
  GivenIssued("m1", 1, kT0, absl::Hours(10));
  GivenIssued("m2", 2, kT0, absl::Hours(10), v1::MINT_REASON_ROTATION_REQUESTED, "r1");
  Then(When(ConfirmRollout{Revision(Tag(Secret(2)))}),
       {RolloutConfirmed(Revision(Tag(Secret(2))), Tag(Secret(2)), {Secret(1).name()})});
  Then(When(ConfirmRollout{Revision(Tag(Secret(2)))}), {});
}

TEST_F(TargetDeciderTest, ConfirmRolloutWithoutACurrentCredentialIsFailedPrecondition) {
  Given({Registered(kUid), MintRequested(kUid, "m1", v1::MINT_REASON_INITIAL),
         SecretCreated(kUid, "m1", Secret(1), 1)});
  EXPECT_THAT(When(ConfirmRollout{Revision(Tag(Secret(1)))}),
              StatusIs(absl::StatusCode::kFailedPrecondition, HasSubstr("no current credential")));
}

TEST_F(TargetDeciderTest, ConfirmRolloutWithAnEmptyRevisionIsInvalidArgumentNamingRevision) {
  GivenIssued("m1", 1, kT0, absl::Hours(10));
  EXPECT_THAT(When(ConfirmRollout{""}),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("revision")));
  EXPECT_THAT(When(ConfirmRollout{"1.0 -x"}),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("revision")));
}

TEST_F(TargetDeciderTest, AnExpiredSupersededSecretDeletedWithoutConfirmationIsRecorded) {
  GivenIssued("m1", 1, kT0, absl::Hours(10));
  GivenIssued("m2", 2, kT0 + absl::Hours(8), absl::Hours(10), v1::MINT_REASON_ROTATION_DUE);
  now_ = kT0 + absl::Hours(10) + absl::Seconds(1);
  Then(When(RecordSecretDeleted{Secret(1), v1::SECRET_DELETION_REASON_EXPIRED}),
       {SecretDeleted(Secret(1), v1::SECRET_DELETION_REASON_EXPIRED)});
  EXPECT_EQ(Record(Secret(1)), nullptr);
  ASSERT_NE(projections::CurrentCredential(state_), nullptr);
  EXPECT_EQ(projections::CurrentCredential(state_)->secret().uid(), Secret(2).uid());
}

// --- Revoke and LiftRevocation ---

TEST_F(TargetDeciderTest, RevokeAbandonsTheMintInFlightAndReleasesEverySecret) {
  GivenIssued("m1", 1, kT0, absl::Hours(10));
  Given({RotationRequested(kUid, "r1"),
         MintRequested(kUid, "m2", v1::MINT_REASON_ROTATION_REQUESTED, "r1"),
         SecretCreated(kUid, "m2", Secret(2), 2)});
  absl::StatusOr<std::vector<Event>> decided = When(Revoke{"lost laptop"});
  Then(decided, {Abandoned("m2"), Revoked("lost laptop")});
  EXPECT_THAT(decided->front().credential_mint_abandoned().reason(), HasSubstr("revoked"));

  EXPECT_FALSE(state_.has_open_attempt());
  EXPECT_EQ(projections::CurrentCredential(state_), nullptr);
  EXPECT_EQ(Record(Secret(1))->release_reason(), v1::SECRET_DELETION_REASON_REVOKED);
  EXPECT_EQ(Record(Secret(2))->release_reason(), v1::SECRET_DELETION_REASON_MINT_ABANDONED);
  Then(When(PlanCredential{}), {});
}

TEST_F(TargetDeciderTest, RevokeTwiceEmitsNothing) {
  GivenIssued("m1", 1, kT0, absl::Hours(10));
  Given({Revoked("")});
  Then(When(Revoke{"again"}), {});
}

TEST_F(TargetDeciderTest, RevokeHoldsWhenCredentialsAreDisabled) {
  GivenIssued("m1", 1, kT0, absl::Hours(10));
  DisableCredentials();
  Then(When(Revoke{"offboarding"}), {Revoked("offboarding")});
  EXPECT_EQ(Record(Secret(1))->release_reason(), v1::SECRET_DELETION_REASON_REVOKED);
}

TEST_F(TargetDeciderTest, RevokeOfATargetBeingDeletedIsFailedPrecondition) {
  GivenIssued("m1", 1, kT0, absl::Hours(10));
  Given({DeletionRequested()});
  EXPECT_THAT(When(Revoke{""}), StatusIs(absl::StatusCode::kFailedPrecondition));
}

TEST_F(TargetDeciderTest, LiftRevocationMintsAFreshCredential) {
  GivenIssued("m1", 1, kT0, absl::Hours(10));
  Given({Revoked(""), SecretDeleted(Secret(1), v1::SECRET_DELETION_REASON_REVOKED)});
  Then(When(LiftRevocation{}),
       {Lifted(), MintRequested(kUid, "m2", v1::MINT_REASON_REVOCATION_LIFTED)});
}

TEST_F(TargetDeciderTest, LiftRevocationBeforeTheRevokedSecretsAreGoneStillMints) {
  GivenIssued("m1", 1, kT0, absl::Hours(10));
  Given({Revoked("")});
  Then(When(LiftRevocation{}),
       {Lifted(), MintRequested(kUid, "m2", v1::MINT_REASON_REVOCATION_LIFTED)});
}

TEST_F(TargetDeciderTest, LiftRevocationOfATargetNotRevokedEmitsNothing) {
  GivenIssued("m1", 1, kT0, absl::Hours(10));
  Then(When(LiftRevocation{}), {});
}

TEST_F(TargetDeciderTest, LiftRevocationWithCredentialsDisabledMintsNothing) {
  GivenIssued("m1", 1, kT0, absl::Hours(10));
  Given({Revoked("")});
  DisableCredentials();
  Then(When(LiftRevocation{}), {Lifted()});
}

// --- DeleteTarget and finalization ---

TEST_F(TargetDeciderTest, DeleteAbandonsTheMintInFlightAndReleasesEverySecret) {
  GivenIssued("m1", 1, kT0, absl::Hours(10));
  now_ = kT0 + absl::Hours(8);
  Given({MintRequested(kUid, "m2", v1::MINT_REASON_ROTATION_DUE)});
  absl::StatusOr<std::vector<Event>> decided = When(DeleteTarget{});
  Then(decided, {Abandoned("m2"), DeletionRequested()});
  EXPECT_THAT(decided->front().credential_mint_abandoned().reason(), HasSubstr("deleted"));
  EXPECT_EQ(state_.phase(), v1::TargetState::PHASE_DELETING);
  EXPECT_FALSE(state_.has_open_attempt());
  EXPECT_EQ(Record(Secret(1))->release_reason(), v1::SECRET_DELETION_REASON_TARGET_DELETED);
}

TEST_F(TargetDeciderTest, DeleteTwiceEmitsNothing) {
  GivenIssued("m1", 1, kT0, absl::Hours(10));
  Given({DeletionRequested()});
  Then(When(DeleteTarget{}), {});
}

TEST_F(TargetDeciderTest, FinalizeWhileDeletingRecordsTheDeletedObjects) {
  GivenIssued("m1", 1, kT0, absl::Hours(10));
  Given({DeletionRequested(), SecretDeleted(Secret(1), v1::SECRET_DELETION_REASON_TARGET_DELETED)});
  const std::vector<std::string> objects = {
      "Secret/solar-agent-edge-1-1", "RoleBinding/solar-agent-edge-1", "Role/solar-agent-edge-1",
      "ServiceAccount/solar-agent-edge-1", "TargetReport/edge-1"};
  Then(When(RecordTargetFinalized{objects}), {Finalized(objects)});
  EXPECT_EQ(state_.phase(), v1::TargetState::PHASE_FINALIZED);
}

TEST_F(TargetDeciderTest, FinalizeOfATargetNotBeingDeletedIsFailedPrecondition) {
  GivenIssued("m1", 1, kT0, absl::Hours(10));
  EXPECT_THAT(When(RecordTargetFinalized{{}}),
              StatusIs(absl::StatusCode::kFailedPrecondition, HasSubstr("not being deleted")));
}

// --- Unknown Targets ---

TEST_F(TargetDeciderTest, EveryCommandButRegisterOnAnUnknownTargetIsNotFound) {
  const std::vector<TargetCommand> commands = {
      DeleteTarget{},
      RequestRotation{"r1"},
      Revoke{""},
      LiftRevocation{},
      ConfirmRollout{"1.0.0-abc"},
      PlanCredential{},
      RecordIdentityWritten{{"created ServiceAccount/solar-agent-edge-1"}},
      RecordStaleCredentialsDeleted{"m1", {Secret(1)}, {kOtherUid}},
      RecordSecretCreated{"m1", Secret(1), 1},
      RecordCredentialIssued{"m1", Secret(1), "0123456789abcdef", kT0, kT0 + absl::Hours(1)},
      RecordMintFailed{"m1", v1::MINT_STAGE_SECRET_CREATE, "forbidden", std::nullopt},
      RecordSecretDeleted{Secret(1), v1::SECRET_DELETION_REASON_SUPERSEDED},
      RecordSecretDeletedExternally{Secret(1), kT0},
      RecordTargetFinalized{{}},
  };
  for (const TargetCommand& command : commands) {
    SCOPED_TRACE(command.index());
    EXPECT_THAT(When(command), StatusIs(absl::StatusCode::kNotFound, HasSubstr("fleet/edge-1")));
  }
  // A finalized incarnation is gone as well.
  GivenIssued("m1", 1, kT0, absl::Hours(10));
  Given({DeletionRequested(), Finalized({})});
  for (const TargetCommand& command : commands) {
    SCOPED_TRACE(command.index());
    EXPECT_THAT(When(command), StatusIs(absl::StatusCode::kNotFound));
  }
}

// --- Outcome commands ---

TEST_F(TargetDeciderTest, SecretCreatedTwiceEmitsNothingTheSecondTime) {
  Given({Registered(kUid), MintRequested(kUid, "m1", v1::MINT_REASON_INITIAL)});
  Then(When(RecordSecretCreated{"m1", Secret(1), 1}), {SecretCreated(kUid, "m1", Secret(1), 1)});
  Then(When(RecordSecretCreated{"m1", Secret(1), 1}), {});
}

TEST_F(TargetDeciderTest, CredentialIssuedTwiceEmitsNothingTheSecondTime) {
  Given({Registered(kUid), MintRequested(kUid, "m1", v1::MINT_REASON_INITIAL),
         SecretCreated(kUid, "m1", Secret(1), 1)});
  const RecordCredentialIssued issued{"m1", Secret(1), Fingerprint(Secret(1)), kT0,
                                      kT0 + absl::Hours(1)};
  Then(When(issued), {Issued(kUid, "m1", Secret(1), kT0, kT0 + absl::Hours(1))});
  Then(When(issued), {});
}

TEST_F(TargetDeciderTest, MintFailedTwiceEmitsNothingTheSecondTime) {
  const v1::SecretRef s1 = Secret(1);
  Given({Registered(kUid), MintRequested(kUid, "m1", v1::MINT_REASON_INITIAL),
         SecretCreated(kUid, "m1", s1, 1)});
  const RecordMintFailed failed{"m1", v1::MINT_STAGE_TOKEN_REQUEST, "forbidden", s1};
  Then(When(failed), {MintFailed("m1", v1::MINT_STAGE_TOKEN_REQUEST, "forbidden", &s1)});
  Then(When(failed), {});
  // Also once the next attempt is in flight: the repeat must not mark it failed.
  now_ += projections::MintRetryDelay(1);
  Then(When(PlanCredential{}), {MintRequested(kUid, "m2", v1::MINT_REASON_REPLACEMENT)});
  Then(When(failed), {});
  EXPECT_EQ(state_.open_attempt().attempt_id(), "m2");
}

TEST_F(TargetDeciderTest, AnIdentityFailureRepeatedEmitsNothingButANewOneIsRecorded) {
  Given({Registered(kUid)});
  const RecordMintFailed failed{"", v1::MINT_STAGE_IDENTITY, "roles is forbidden", std::nullopt};
  Then(When(failed), {MintFailed("", v1::MINT_STAGE_IDENTITY, "roles is forbidden")});
  Then(When(failed), {});
  Then(When(RecordMintFailed{"", v1::MINT_STAGE_IDENTITY, "quota exceeded", std::nullopt}),
       {MintFailed("", v1::MINT_STAGE_IDENTITY, "quota exceeded")});
}

TEST_F(TargetDeciderTest, SecretDeletedTwiceEmitsNothingTheSecondTime) {
  GivenIssued("m1", 1, kT0, absl::Hours(10));
  GivenIssued("m2", 2, kT0, absl::Hours(10), v1::MINT_REASON_ROTATION_REQUESTED, "r1");
  Given({RolloutConfirmed(Revision(Tag(Secret(2))), Tag(Secret(2)), {Secret(1).name()})});
  const RecordSecretDeleted deleted{Secret(1), v1::SECRET_DELETION_REASON_SUPERSEDED};
  Then(When(deleted), {SecretDeleted(Secret(1), v1::SECRET_DELETION_REASON_SUPERSEDED)});
  Then(When(deleted), {});
}

TEST_F(TargetDeciderTest, IssuedWithAnExpiryNotAfterTheIssueTimeIsInvalidArgument) {
  Given({Registered(kUid), MintRequested(kUid, "m1", v1::MINT_REASON_INITIAL),
         SecretCreated(kUid, "m1", Secret(1), 1)});
  for (absl::Duration lifetime : {absl::ZeroDuration(), -absl::Seconds(1)}) {
    EXPECT_THAT(
        When(RecordCredentialIssued{"m1", Secret(1), Fingerprint(Secret(1)), kT0, kT0 + lifetime}),
        StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("expires_at")));
  }
}

TEST_F(TargetDeciderTest, TheSecretOfAnAttemptAbandonedByRevokeIsReleasedNeverCurrent) {
  GivenIssued("m1", 1, kT0, absl::Hours(10));
  Given({RotationRequested(kUid, "r1"),
         MintRequested(kUid, "m2", v1::MINT_REASON_ROTATION_REQUESTED, "r1")});
  Then(When(Revoke{""}), {Abandoned("m2"), Revoked("")});

  // The bridge was already creating m2's Secret and finishing its token.
  Then(When(RecordSecretCreated{"m2", Secret(2), 2}), {SecretCreated(kUid, "m2", Secret(2), 2)});
  Then(When(RecordCredentialIssued{"m2", Secret(2), Fingerprint(Secret(2)), kT0,
                                   kT0 + absl::Hours(10)}),
       {Issued(kUid, "m2", Secret(2), kT0, kT0 + absl::Hours(10))});

  EXPECT_EQ(projections::CurrentCredential(state_), nullptr);
  EXPECT_EQ(Record(Secret(2))->phase(), CredentialRecord::PHASE_RELEASED);
  EXPECT_EQ(Record(Secret(2))->release_reason(), v1::SECRET_DELETION_REASON_MINT_ABANDONED);
  EXPECT_FALSE(projections::RequestAnswered(state_, "r1"));
}

TEST_F(TargetDeciderTest, ALateSecretOfAnAbandonedAttemptNeverBecomesCurrentEvenWithAHigherSuffix) {
  GivenIssued("m1", 1, kT0, absl::Hours(10));
  Given({MintRequested(kUid, "m2", v1::MINT_REASON_ROTATION_DUE)});
  Then(When(Revoke{""}), {Abandoned("m2"), Revoked("")});
  Given({SecretDeleted(Secret(1), v1::SECRET_DELETION_REASON_REVOKED)});
  Then(When(LiftRevocation{}),
       {Lifted(), MintRequested(kUid, "m3", v1::MINT_REASON_REVOCATION_LIFTED)});
  Given({SecretCreated(kUid, "m3", Secret(2), 2),
         Issued(kUid, "m3", Secret(2), kT0, kT0 + absl::Hours(10))});
  ASSERT_NE(projections::CurrentCredential(state_), nullptr);

  // m2's Secret appears afterwards with the highest suffix.
  Then(When(RecordSecretCreated{"m2", Secret(3), 3}), {SecretCreated(kUid, "m2", Secret(3), 3)});
  Then(When(RecordCredentialIssued{"m2", Secret(3), Fingerprint(Secret(3)), kT0,
                                   kT0 + absl::Hours(10)}),
       {Issued(kUid, "m2", Secret(3), kT0, kT0 + absl::Hours(10))});
  EXPECT_EQ(projections::CurrentCredential(state_)->secret().uid(), Secret(2).uid());
  EXPECT_EQ(Record(Secret(3))->release_reason(), v1::SECRET_DELETION_REASON_MINT_ABANDONED);
  // Its tag proves nothing either.
  Then(When(ConfirmRollout{Revision(Tag(Secret(3)))}), {});
}

TEST_F(TargetDeciderTest, StaleCredentialsDeletedBeforeMintingAreRecorded) {
  Given({Registered(kUid), MintRequested(kUid, "m1", v1::MINT_REASON_INITIAL)});
  const v1::SecretRef leftover = Secret(4, 0);
  Event expected;
  auto* d = expected.mutable_stale_credentials_deleted();
  d->set_target_uid(kUid);
  d->set_attempt_id("m1");
  *d->add_secrets() = leftover;
  d->add_secret_target_uids(kOtherUid);
  Then(When(RecordStaleCredentialsDeleted{"m1", {leftover}, {kOtherUid}}), {expected});
  Then(When(RecordStaleCredentialsDeleted{"m1", {}, {}}), {});
}

TEST_F(TargetDeciderTest, IdentityWritesAreRecordedInOrderAndNoWritesEmitNothing) {
  Given({Registered(kUid)});
  Event expected;
  expected.mutable_identity_objects_written()->set_target_uid(kUid);
  expected.mutable_identity_objects_written()->add_writes(
      "created ServiceAccount/solar-agent-edge-1");
  expected.mutable_identity_objects_written()->add_writes("updated Role/solar-agent-edge-1");
  Then(When(RecordIdentityWritten{
           {"created ServiceAccount/solar-agent-edge-1", "updated Role/solar-agent-edge-1"}}),
       {expected});
  Then(When(RecordIdentityWritten{{}}), {});
}

}  // namespace target_decider_test
}  // namespace credledger::service
