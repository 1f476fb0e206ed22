// Given-events / when-command / then-events tests of the report decider (docs/reports.md,
// "Validation", "Ingest" and "Rollups"; docs/design.md, "Deciders"), on the fixture of
// report_decider_fixture.h.
#include "service/decide/report_decider.h"

#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "projections/proto_time.h"
#include "projections/target_state.h"
#include "projections/target_status.h"
#include "test/service/decide/report_decider_fixture.h"
#include "test/support/fleet_target_events.h"
#include "test/support/reference_sha256.h"
#include "test/support/status_matchers.h"

namespace credledger::service {
namespace report_decider_test {

using ::credledger::testing::StatusIs;
using projections::ToProto;
using ::testing::AllOf;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using v1::Event;
using namespace ::credledger::testing::fleet_target;  // NOLINT: the shared Target
using report_decider_fixture::EqualsEvent;
using report_decider_fixture::Release;
using report_decider_fixture::Report;
using report_decider_fixture::ReportDeciderTest;

// --- Given events ---

Event Finalized() {
  Event e;
  e.mutable_target_finalized()->set_target_uid(kUid);
  return e;
}
v1::SecretRef Secret(int suffix) {
  v1::SecretRef s;
  s.set_name(absl::StrCat("solar-agent-", kName, "-", suffix));
  s.set_uid(absl::StrCat("5ec7e700-0000-4000-8000-00000000000", suffix));
  return s;
}
std::string Tag(int suffix) { return testing::ReferenceSha256HexPrefix(Secret(suffix).uid(), 10); }
// The three events of a credential minted and issued by attempt m<suffix>.
std::vector<Event> CredentialIssued(int suffix) {
  const std::string attempt = absl::StrCat("m", suffix);
  Event requested, created, issued;
  requested.mutable_credential_mint_requested()->set_target_uid(kUid);
  requested.mutable_credential_mint_requested()->set_attempt_id(attempt);
  created.mutable_credential_secret_created()->set_target_uid(kUid);
  created.mutable_credential_secret_created()->set_attempt_id(attempt);
  *created.mutable_credential_secret_created()->mutable_secret() = Secret(suffix);
  created.mutable_credential_secret_created()->set_suffix(suffix);
  v1::CredentialIssued* i = issued.mutable_credential_issued();
  i->set_target_uid(kUid);
  i->set_attempt_id(attempt);
  *i->mutable_secret() = Secret(suffix);
  i->set_credential_tag(Tag(suffix));
  *i->mutable_issued_at() = ToProto(kT0);
  *i->mutable_expires_at() = ToProto(kT0 + absl::Hours(24));
  return {requested, created, issued};
}

v1::BoundRelease BoundRelease(const std::string& ns, const std::string& name) {
  v1::BoundRelease b;
  b.set_namespace_(ns);
  b.set_name(name);
  return b;
}

// --- Expected events ---

Event Confirmed(const std::string& revision, const std::string& tag,
                const std::vector<std::string>& released) {
  Event e;
  v1::RolloutConfirmed* r = e.mutable_rollout_confirmed();
  r->set_target_uid(kUid);
  r->set_revision(revision);
  r->set_credential_tag(tag);
  for (const std::string& name : released) r->add_released_secrets(name);
  return e;
}
Event BoundSet(const std::vector<v1::BoundRelease>& releases, const std::string& version) {
  Event e;
  e.mutable_bound_releases_set()->set_target_uid(kUid);
  for (const v1::BoundRelease& b : releases) *e.mutable_bound_releases_set()->add_releases() = b;
  e.mutable_bound_releases_set()->set_bootstrap_version(version);
  return e;
}

// A chart version as the Target controller renders it: version, connection hash, tag.
std::string Revision(const std::string& tag) { return absl::StrCat("1.4.2-0c0ffee123-", tag); }

// --- Which Targets take reports ---

TEST_F(ReportDeciderTest, EveryCommandForAnUnregisteredTargetIsNotFound) {
  EXPECT_THAT(When(SubmitReport{Report(kT0), kT0, std::nullopt}),
              StatusIs(absl::StatusCode::kNotFound, HasSubstr("fleet/edge-1")));
  EXPECT_THAT(When(SetBoundReleases{{}, ""}), StatusIs(absl::StatusCode::kNotFound));
  EXPECT_THAT(When(MarkStale{kT0, absl::Minutes(10)}), StatusIs(absl::StatusCode::kNotFound));
}

TEST_F(ReportDeciderTest, EveryCommandForAFinalizedTargetIsNotFound) {
  Given({Registered(), DeletionRequested(), Finalized()});
  EXPECT_THAT(When(SubmitReport{Report(kT0), kT0, std::nullopt}),
              StatusIs(absl::StatusCode::kNotFound));
  EXPECT_THAT(When(SetBoundReleases{{}, "v2"}), StatusIs(absl::StatusCode::kNotFound));
  EXPECT_THAT(When(MarkStale{kT0, absl::Minutes(10)}), StatusIs(absl::StatusCode::kNotFound));
}

TEST_F(ReportDeciderTest, ReportsAndBindingsForATargetBeingDeletedAreFailedPrecondition) {
  Given({Registered(), DeletionRequested()});
  EXPECT_THAT(When(SubmitReport{Report(kT0), kT0, std::nullopt}),
              StatusIs(absl::StatusCode::kFailedPrecondition, HasSubstr("being deleted")));
  EXPECT_THAT(When(SetBoundReleases{{BoundRelease("apps", "web")}, "v2"}),
              StatusIs(absl::StatusCode::kFailedPrecondition));
}

// --- SubmitReport ---

TEST_F(ReportDeciderTest, AFirstReportIsAcceptedWithTheServicesReceiveTime) {
  Given({Registered()});
  const absl::Time received = kT0 + absl::Seconds(3);
  const absl::StatusOr<ReportDecision> decided =
      When(SubmitReport{Report(kT0), received, std::nullopt});
  Then(decided, {Accepted(Report(kT0), received)});
  EXPECT_FALSE(decided->heartbeat);
}

TEST_F(ReportDeciderTest, AnInvalidReportIsInvalidArgumentNamingTheFieldUnderReport) {
  Given({Registered()});
  v1::TargetReportSpec report = Report(kT0, {Release("Web", v1::RELEASE_PHASE_READY)});
  EXPECT_THAT(When(SubmitReport{report, kT0, std::nullopt}),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("report.releases[0].name")));
}

TEST_F(ReportDeciderTest, TheSameReportAgainIsARetryWithoutEventsOrError) {
  Given({Registered()});
  GivenAccepted(kT0);
  ThenHeartbeat(When(SubmitReport{Report(kT0), kT0 + absl::Seconds(5), std::nullopt}));
}

TEST_F(ReportDeciderTest, TheSameReportWithALaterTimeIsAHeartbeat) {
  Given({Registered()});
  GivenAccepted(kT0);
  now_ = kT0 + absl::Minutes(1);
  ThenHeartbeat(When(SubmitReport{Report(now_), now_, std::nullopt}));
}

TEST_F(ReportDeciderTest, AHeartbeatSeenAlreadyIsARetryWithoutError) {
  Given({Registered()});
  GivenAccepted(kT0);
  now_ = kT0 + absl::Minutes(1);
  ThenHeartbeat(When(SubmitReport{Report(now_), now_, now_}));
}

TEST_F(ReportDeciderTest, AChangedReportIsAccepted) {
  Given({Registered()});
  GivenAccepted(kT0);
  now_ = kT0 + absl::Minutes(1);
  const v1::TargetReportSpec changed = Report(now_, {Release("web", v1::RELEASE_PHASE_DEGRADED)});
  Then(When(SubmitReport{changed, now_, std::nullopt}), {Accepted(changed, now_)});
}

TEST_F(ReportDeciderTest, AReportNotLaterThanTheLastAcceptedIsFailedPrecondition) {
  Given({Registered()});
  GivenAccepted(kT0);
  const v1::TargetReportSpec changed = Report(kT0, {Release("web", v1::RELEASE_PHASE_FAILED)});
  EXPECT_THAT(
      When(SubmitReport{changed, kT0, std::nullopt}),
      StatusIs(absl::StatusCode::kFailedPrecondition, HasSubstr("report.lastReportTime: ")));
  // Equal content with an older time is neither a retry nor a heartbeat.
  EXPECT_THAT(When(SubmitReport{Report(kT0 - absl::Seconds(1)), kT0, std::nullopt}),
              StatusIs(absl::StatusCode::kFailedPrecondition));
}

TEST_F(ReportDeciderTest, AReportMustBeLaterThanHeartbeatsNotYetInTheLog) {
  Given({Registered()});
  GivenAccepted(kT0);
  now_ = kT0 + absl::Minutes(2);
  const v1::TargetReportSpec changed =
      Report(kT0 + absl::Minutes(1), {Release("web", v1::RELEASE_PHASE_FAILED)});
  EXPECT_THAT(When(SubmitReport{changed, now_, kT0 + absl::Minutes(1)}),
              StatusIs(absl::StatusCode::kFailedPrecondition));
  Then(When(SubmitReport{changed, now_, kT0 + absl::Seconds(59)}), {Accepted(changed, now_)});
}

TEST_F(ReportDeciderTest, AReportMustBeLaterThanHeartbeatsInTheLog) {
  Given({Registered()});
  GivenAccepted(kT0);
  Given({Liveness({Heartbeat(kT0 + absl::Minutes(5), kT0 + absl::Minutes(5))})});
  now_ = kT0 + absl::Minutes(6);
  const v1::TargetReportSpec changed =
      Report(kT0 + absl::Minutes(4), {Release("web", v1::RELEASE_PHASE_FAILED)});
  EXPECT_THAT(When(SubmitReport{changed, now_, std::nullopt}),
              StatusIs(absl::StatusCode::kFailedPrecondition));
}

// A report too far ahead of the server's clock: report_clock_skew_test.cc.

// --- Rollout confirmation ---

TEST_F(ReportDeciderTest, AReadyReleaseWithTheCurrentTagConfirmsTheRolloutInTheTargetStream) {
  Given({Registered()});
  Given(CredentialIssued(1));
  Given(CredentialIssued(2));
  const v1::TargetReportSpec report =
      Report(kT0, {Release("infra", v1::RELEASE_PHASE_PROGRESSING),
                   Release("agent", v1::RELEASE_PHASE_READY, Revision(Tag(2)))});
  Then(When(SubmitReport{report, kT0, std::nullopt}), {Accepted(report, kT0)},
       {Confirmed(Revision(Tag(2)), Tag(2), {Secret(1).name()})});
}

TEST_F(ReportDeciderTest, ARolledBackReleaseWithTheCurrentTagConfirmsNothing) {
  Given({Registered()});
  Given(CredentialIssued(1));
  Given(CredentialIssued(2));
  v1::ReleaseStatus release = Release("agent", v1::RELEASE_PHASE_READY, Revision(Tag(2)));
  v1::ReportCondition* remediated = release.add_helm_conditions();
  remediated->set_type("Remediated");
  remediated->set_status("True");
  remediated->set_reason("RollbackSucceeded");
  const v1::TargetReportSpec report = Report(kT0, {release});
  Then(When(SubmitReport{report, kT0, std::nullopt}), {Accepted(report, kT0)});
}

TEST_F(ReportDeciderTest, AReleaseNotReadyOrWithAnOlderTagConfirmsNothing) {
  Given({Registered()});
  Given(CredentialIssued(1));
  Given(CredentialIssued(2));
  const v1::TargetReportSpec report =
      Report(kT0, {Release("agent", v1::RELEASE_PHASE_DEGRADED, Revision(Tag(2))),
                   Release("old", v1::RELEASE_PHASE_READY, Revision(Tag(1)))});
  Then(When(SubmitReport{report, kT0, std::nullopt}), {Accepted(report, kT0)});
}

TEST_F(ReportDeciderTest, AReportWithoutACurrentCredentialIsAcceptedAndConfirmsNothing) {
  Given({Registered()});
  const v1::TargetReportSpec report =
      Report(kT0, {Release("agent", v1::RELEASE_PHASE_READY, Revision(Tag(2)))});
  Then(When(SubmitReport{report, kT0, std::nullopt}), {Accepted(report, kT0)});
}

TEST_F(ReportDeciderTest, AHeartbeatConfirmsNothingEvenWithTheCurrentTag) {
  Given({Registered()});
  Given(CredentialIssued(1));
  const std::vector<v1::ReleaseStatus> releases = {
      Release("agent", v1::RELEASE_PHASE_READY, Revision(Tag(2)))};
  Given({Accepted(Report(kT0, releases), kT0)});
  Given(CredentialIssued(2));
  now_ = kT0 + absl::Minutes(1);
  ThenHeartbeat(When(SubmitReport{Report(now_, releases), now_, std::nullopt}));
}

// --- Limits: held and refused reports (docs/reports.md, "Limits") ---

TEST_F(ReportDeciderTest, AChangedReportWithinTheIntervalIsHeldUnlessANewFailureOrStale) {
  Given({Registered()});
  GivenAccepted(kT0);
  Given({Liveness({Heartbeat(kT0, kT0)})});  // Reporting=True
  now_ = kT0 + absl::Seconds(9);
  const v1::TargetReportSpec degraded = Report(now_, {Release("web", v1::RELEASE_PHASE_DEGRADED)});
  absl::StatusOr<ReportDecision> held =
      When(SubmitReport{degraded, now_, std::nullopt, absl::Seconds(10)});
  ASSERT_OK(held);
  EXPECT_TRUE(held->held);
  EXPECT_THAT(held->report_events, IsEmpty());
  const v1::TargetReportSpec failed = Report(now_, {Release("web", v1::RELEASE_PHASE_FAILED)});
  Then(When(SubmitReport{failed, now_, std::nullopt, absl::Seconds(10)}), {Accepted(failed, now_)});
  now_ = kT0 + absl::Seconds(10);
  Then(When(SubmitReport{degraded, now_, std::nullopt, absl::Seconds(10)}),
       {Accepted(degraded, now_)});
}

TEST_F(ReportDeciderTest, BelowTheReserveOnlyARolloutConfirmationIsAppended) {
  Given({Registered()});
  Given(CredentialIssued(1));
  Given(CredentialIssued(2));
  const v1::TargetReportSpec plain = Report(kT0, {Release("web", v1::RELEASE_PHASE_DEGRADED)});
  absl::StatusOr<ReportDecision> refused =
      When(SubmitReport{plain, kT0, std::nullopt, absl::ZeroDuration(), /*space_low=*/true});
  ASSERT_OK(refused);
  EXPECT_TRUE(refused->refused);
  EXPECT_THAT(refused->report_events, IsEmpty());
  // Also within the interval: a confirmation is neither refused nor held.
  const v1::TargetReportSpec confirming =
      Report(kT0, {Release("agent", v1::RELEASE_PHASE_READY, Revision(Tag(2)))});
  Then(When(SubmitReport{confirming, kT0, std::nullopt, absl::Hours(1), true}),
       {Accepted(confirming, kT0)}, {Confirmed(Revision(Tag(2)), Tag(2), {Secret(1).name()})});
}

// --- SetBoundReleases ---

TEST_F(ReportDeciderTest, BoundReleasesAreStoredOrderedByNamespaceThenName) {
  Given({Registered()});
  Then(When(SetBoundReleases{
           {BoundRelease("b", "x"), BoundRelease("a", "z"), BoundRelease("a", "y")}, "2026.1"}),
       {BoundSet({BoundRelease("a", "y"), BoundRelease("a", "z"), BoundRelease("b", "x")},
                 "2026.1")});
}

TEST_F(ReportDeciderTest, TheSameBoundReleasesInAnotherOrderYieldNothingButANewVersionDoes) {
  Given({Registered()});
  Given({BoundSet({BoundRelease("a", "y"), BoundRelease("b", "x")}, "2026.1")});
  Then(When(SetBoundReleases{{BoundRelease("b", "x"), BoundRelease("a", "y")}, "2026.1"}), {});
  Then(When(SetBoundReleases{{BoundRelease("b", "x"), BoundRelease("a", "y")}, "2026.2"}),
       {BoundSet({BoundRelease("a", "y"), BoundRelease("b", "x")}, "2026.2")});
  Then(When(SetBoundReleases{{BoundRelease("a", "y")}, "2026.1"}),
       {BoundSet({BoundRelease("a", "y")}, "2026.1")});
}

TEST_F(ReportDeciderTest, NoBoundReleasesWhenNoneAreBoundYieldsNothing) {
  Given({Registered()});
  Then(When(SetBoundReleases{{}, ""}), {});
}

TEST_F(ReportDeciderTest, InvalidBoundReleasesAreInvalidArgumentNamingTheField) {
  Given({Registered()});
  EXPECT_THAT(When(SetBoundReleases{{BoundRelease("a", "y"), BoundRelease("a", "Y")}, ""}),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("releases[1].name")));
  EXPECT_THAT(When(SetBoundReleases{{BoundRelease("a-", "y")}, ""}),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("releases[0].namespace")));
  EXPECT_THAT(
      When(SetBoundReleases{
          {BoundRelease("a", "y"), BoundRelease("b", "x"), BoundRelease("a", "y")}, ""}),
      StatusIs(absl::StatusCode::kInvalidArgument,
               AllOf(HasSubstr("releases[2]"), HasSubstr("releases[0]"), HasSubstr("a/y"))));
  EXPECT_THAT(When(SetBoundReleases{{}, "two words"}),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("bootstrap_version")));
  EXPECT_THAT(When(SetBoundReleases{{}, std::string(254, 'v')}),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("bootstrap_version")));
  Then(When(SetBoundReleases{{}, std::string(253, 'v')}), {BoundSet({}, std::string(253, 'v'))});
}

// --- MarkStale ---

TEST_F(ReportDeciderTest, ATargetSilentForTheStalePeriodIsMarkedStale) {
  Given({Registered()});
  GivenAccepted(kT0);
  now_ = kT0 + absl::Minutes(10);
  Then(When(MarkStale{kT0, absl::Minutes(10)}), {Stale(kT0, 600)});
}

TEST_F(ReportDeciderTest, ATargetSilentForLessThanTheStalePeriodIsNotMarked) {
  Given({Registered()});
  GivenAccepted(kT0);
  now_ = kT0 + absl::Minutes(10) - absl::Microseconds(1);
  Then(When(MarkStale{kT0, absl::Minutes(10)}), {});
}

TEST_F(ReportDeciderTest, AHeartbeatNewerThanTheSchedulersViewPreventsTheMark) {
  Given({Registered()});
  GivenAccepted(kT0);
  Given({Liveness({Heartbeat(kT0 + absl::Minutes(5), kT0 + absl::Minutes(5))})});
  now_ = kT0 + absl::Minutes(20);
  Then(When(MarkStale{kT0, absl::Minutes(10)}), {});
  Then(When(MarkStale{kT0 + absl::Minutes(5), absl::Minutes(10)}),
       {Stale(kT0 + absl::Minutes(5), 600)});
}

TEST_F(ReportDeciderTest, AStaleTargetOrOneThatNeverReportedIsNotMarkedAgain) {
  Given({Registered()});
  now_ = kT0 + absl::Hours(1);
  Then(When(MarkStale{absl::UnixEpoch(), absl::Minutes(10)}), {});
  GivenAccepted(kT0);
  Given({Stale(kT0, 600)});
  Then(When(MarkStale{kT0, absl::Minutes(10)}), {});
}

TEST_F(ReportDeciderTest, AStalePeriodThatIsNotPositiveIsInvalidArgument) {
  Given({Registered()});
  GivenAccepted(kT0);
  EXPECT_THAT(When(MarkStale{kT0, absl::ZeroDuration()}),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("stale_after")));
}

// --- RecordLiveness ---

TEST_F(ReportDeciderTest, RecordLivenessIsNotDecidedPerTarget) {
  Given({Registered()});
  EXPECT_THAT(When(RecordLiveness{{Heartbeat(kT0, kT0)}}),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("DecideLiveness")));
}

v1::TargetState State(v1::TargetState::Phase phase, const std::string& uid) {
  v1::TargetState state;
  state.set_phase(phase);
  state.set_target_uid(uid);
  return state;
}

TEST(DecideLivenessTest, KeepsTheLatestEntryOfEachRegisteredTargetOfTheSameUidInNameOrder) {
  const RecordLiveness command{{
      Heartbeat(kT0 + absl::Seconds(2), kT0, kUid, "edge-3"),
      Heartbeat(kT0 + absl::Seconds(1), kT0, kUid, "edge-1"),
      Heartbeat(kT0 + absl::Seconds(3), kT0, kOtherUid, "edge-2"),  // another incarnation
      Heartbeat(kT0 + absl::Seconds(4), kT0, kUid, "edge-4"),       // finalized
      Heartbeat(kT0 + absl::Seconds(5), kT0, kUid, "edge-5"),       // never registered
      Heartbeat(kT0 + absl::Seconds(6), kT0, kUid, "edge-1"),
  }};
  const std::vector<v1::TargetState> targets = {State(v1::TargetState::PHASE_ACTIVE, kUid),
                                                State(v1::TargetState::PHASE_DELETING, kUid),
                                                State(v1::TargetState::PHASE_ACTIVE, kUid),
                                                State(v1::TargetState::PHASE_FINALIZED, kUid),
                                                v1::TargetState(),
                                                State(v1::TargetState::PHASE_DELETING, kUid)};
  const std::vector<Event> decided = DecideLiveness(command, targets);
  ASSERT_EQ(decided.size(), 1u);
  EXPECT_THAT(decided[0], EqualsEvent(Liveness({command.entries[5], command.entries[0]})));
}

TEST(DecideLivenessTest, NoEntryLeftYieldsNoEvent) {
  const RecordLiveness command{{Heartbeat(kT0, kT0, kOtherUid)}};
  EXPECT_THAT(DecideLiveness(command, {State(v1::TargetState::PHASE_ACTIVE, kUid)}), IsEmpty());
  EXPECT_THAT(DecideLiveness(RecordLiveness{}, {}), IsEmpty());
}

}  // namespace report_decider_test
}  // namespace credledger::service
