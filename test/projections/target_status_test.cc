// Tests of the Target status fold (docs/reports.md, "Rollups" and "Liveness and staleness"):
// the Reporting, PreflightReady and ReleasesReady conditions, the releases rollup with bound
// releases, liveness, staleness and incarnations. Events are folded as a log would order them:
// each one a second after the previous, at the next seq.
#include "projections/target_status.h"

#include <google/protobuf/util/message_differencer.h>

#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "common/rfc3339.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "projections/condition.h"
#include "projections/proto_time.h"
#include "test/support/fleet_target_events.h"

namespace credledger::projections {
namespace target_status_test {

using ::testing::AllOf;
using ::testing::HasSubstr;
using ::testing::Not;
using v1::Event;
using namespace ::credledger::testing::fleet_target;  // NOLINT: the shared Target

// --- Events ---

Event Finalized(const std::string& uid) {
  Event e;
  e.mutable_target_finalized()->set_target_uid(uid);
  return e;
}
v1::ReleaseStatus Release(const std::string& ns, const std::string& name, v1::ReleasePhase phase) {
  v1::ReleaseStatus r;
  r.set_namespace_(ns);
  r.set_name(name);
  r.set_phase(phase);
  return r;
}
v1::ReportCondition Condition(const std::string& type, const std::string& status,
                              const std::string& reason = "Reason") {
  v1::ReportCondition c;
  c.set_type(type);
  c.set_status(status);
  c.set_reason(reason);
  return c;
}
v1::TargetReportSpec Report(absl::Time last_report_time,
                            const std::vector<v1::ReleaseStatus>& releases = {},
                            const std::vector<std::string>& check_statuses = {}) {
  v1::TargetReportSpec report;
  *report.mutable_last_report_time() = ToProto(last_report_time);
  for (const v1::ReleaseStatus& r : releases) *report.add_releases() = r;
  for (size_t i = 0; i < check_statuses.size(); ++i) {
    v1::PreflightCheck* check = report.add_preflight_checks();
    check->set_type(absl::StrCat("Check", i));
    check->set_status(check_statuses[i]);
    check->set_reason("Checked");
  }
  return report;
}
Event Bound(const std::vector<std::pair<std::string, std::string>>& releases,
            const std::string& bootstrap_version = "v1") {
  Event e;
  e.mutable_bound_releases_set()->set_target_uid(kUid);
  for (const auto& [ns, name] : releases) {
    v1::BoundRelease* b = e.mutable_bound_releases_set()->add_releases();
    b->set_namespace_(ns);
    b->set_name(name);
  }
  e.mutable_bound_releases_set()->set_bootstrap_version(bootstrap_version);
  return e;
}

// Folds events as a log of one Target: event n is at seq n, recorded at kT0 + n seconds.
class StatusFoldTest : public ::testing::Test {
 protected:
  // Folds `event` as the next event of the log; returns its recorded time.
  absl::Time Fold(Event event) {
    ++seq_;
    EvolveStatus(status_, event, {seq_, 0, At(seq_)});
    return At(seq_);
  }
  static absl::Time At(int64_t seq) { return kT0 + absl::Seconds(seq); }
  absl::Time Transition(const v1::Condition& c) const {
    return FromProto(c.last_transition_time());
  }

  int64_t seq_ = 0;
  v1::TargetStatus status_;
};

// --- The condition setter every rollup uses (projections/condition.h) ---

TEST(SetConditionTest, ReportsAChangeAndMovesTheTransitionTimeOnlyWithTheStatus) {
  v1::Condition c;
  EXPECT_TRUE(SetCondition(c, "Reporting", "Unknown", "NoReport", "none yet", kT0));
  EXPECT_EQ(FromProto(c.last_transition_time()), kT0);
  // The same values again: no change, the time stays.
  const v1::Condition before = c;
  EXPECT_FALSE(SetCondition(c, "Reporting", "Unknown", "NoReport", "none yet",
                            kT0 + absl::Seconds(1)));
  EXPECT_EQ(c.SerializeAsString(), before.SerializeAsString());
  // Another message with the same status: a change, the time stays.
  EXPECT_TRUE(SetCondition(c, "Reporting", "Unknown", "NoReport", "still none",
                           kT0 + absl::Seconds(2)));
  EXPECT_EQ(c.message(), "still none");
  EXPECT_EQ(FromProto(c.last_transition_time()), kT0);
  // Another status: the time moves.
  EXPECT_TRUE(SetCondition(c, "Reporting", "True", "ReportReceived", "received",
                           kT0 + absl::Seconds(3)));
  EXPECT_EQ(c.status(), "True");
  EXPECT_EQ(c.reason(), "ReportReceived");
  EXPECT_EQ(FromProto(c.last_transition_time()), kT0 + absl::Seconds(3));
}

// --- Registration and incarnations ---

TEST_F(StatusFoldTest, RegistrationStartsAnActiveStatusWithUnknownConditions) {
  const absl::Time t = Fold(Registered(kUid));
  EXPECT_TRUE(status_.active());
  EXPECT_EQ(status_.target_uid(), kUid);
  EXPECT_EQ(status_.namespace_(), kNamespace);
  EXPECT_EQ(status_.name(), kName);
  EXPECT_EQ(status_.reporting().type(), "Reporting");
  EXPECT_EQ(status_.reporting().status(), "Unknown");
  EXPECT_EQ(status_.reporting().reason(), "NoReport");
  EXPECT_EQ(status_.preflight_ready().status(), "Unknown");
  EXPECT_EQ(status_.preflight_ready().reason(), "NoChecks");
  EXPECT_EQ(status_.releases_ready().status(), "Unknown");
  EXPECT_EQ(status_.releases_ready().reason(), "NoReleases");
  EXPECT_EQ(Transition(status_.reporting()), t);
  EXPECT_FALSE(status_.has_last_report());
  EXPECT_EQ(status_.last_seq(), 1);
}

// ChangesStatus lets folds skip decoding: every event kind it leaves out must leave a status
// unchanged, even one naming the Target's uid.
TEST_F(StatusFoldTest, EveryKindChangesStatusLeavesOutLeavesTheStatusUnchanged) {
  Fold(Registered(kUid));
  Fold(Accepted(Report(kT0, {Release("flux", "app", v1::RELEASE_PHASE_READY)}), kT0));
  const google::protobuf::OneofDescriptor* kinds = Event::descriptor()->FindOneofByName("kind");
  int skipped = 0;
  for (int i = 0; i < kinds->field_count(); ++i) {
    const google::protobuf::FieldDescriptor* kind = kinds->field(i);
    if (ChangesStatus(kind->message_type()->full_name())) continue;
    ++skipped;
    Event event;
    google::protobuf::Message* payload = event.GetReflection()->MutableMessage(&event, kind);
    const google::protobuf::FieldDescriptor* uid =
        payload->GetDescriptor()->FindFieldByName("target_uid");
    if (uid != nullptr) payload->GetReflection()->SetString(payload, uid, kUid);
    const v1::TargetStatus before = status_;
    Fold(event);
    EXPECT_TRUE(google::protobuf::util::MessageDifferencer::Equals(before, status_))
        << kind->message_type()->full_name() << " changed the status";
  }
  EXPECT_GT(skipped, 20);
  for (const char* type : {"credledger.v1.TargetRegistered", "credledger.v1.ReportAccepted",
                           "credledger.v1.LivenessObserved"}) {
    EXPECT_TRUE(ChangesStatus(type)) << type;
  }
  EXPECT_FALSE(ChangesStatus("credledger.v1.CredentialIssued"));
  EXPECT_FALSE(ChangesStatus("credledger.v1.NoSuchEvent"));
}

TEST_F(StatusFoldTest, ANewUidStartsAFreshStatusAndReportsOfTheOldUidAreIgnored) {
  Fold(Registered(kUid));
  Fold(Bound({{"apps", "web"}}));
  Fold(Accepted(Report(kT0, {Release("apps", "web", v1::RELEASE_PHASE_READY)}), kT0));
  Fold(Finalized(kUid));
  Fold(Registered(kOtherUid));
  EXPECT_TRUE(status_.active());
  EXPECT_EQ(status_.target_uid(), kOtherUid);
  EXPECT_FALSE(status_.has_last_report());
  EXPECT_EQ(status_.bound_releases_size(), 0);
  EXPECT_EQ(status_.releases_size(), 0);
  EXPECT_EQ(status_.reporting().reason(), "NoReport");

  Fold(Accepted(Report(kT0 + absl::Minutes(1)), kT0 + absl::Minutes(1), kUid));
  EXPECT_FALSE(status_.has_last_report());
  EXPECT_EQ(status_.last_seq(), 5);
}

TEST_F(StatusFoldTest, FinalizationClearsActiveAndLaterReportsAreIgnored) {
  Fold(Registered(kUid));
  Fold(Finalized(kUid));
  EXPECT_FALSE(status_.active());
  EXPECT_EQ(status_.last_seq(), 2);
  Fold(Accepted(Report(kT0), kT0));
  EXPECT_FALSE(status_.has_last_report());
  EXPECT_EQ(status_.last_seq(), 2);
}

TEST_F(StatusFoldTest, ReRegisteringTheSameUidAfterFinalizationStartsFresh) {
  Fold(Registered(kUid));
  Fold(Accepted(Report(kT0), kT0));
  Fold(Finalized(kUid));
  Fold(Registered(kUid));
  EXPECT_TRUE(status_.active());
  EXPECT_FALSE(status_.has_last_report());
  EXPECT_EQ(status_.reporting().reason(), "NoReport");
}

TEST_F(StatusFoldTest, CredentialEventsAndUnchangedBoundReleasesLeaveTheStatusAlone) {
  Fold(Registered(kUid));
  Fold(Bound({{"apps", "web"}}));
  const v1::TargetStatus before = status_;
  Event revoked;
  revoked.mutable_target_revoked()->set_target_uid(kUid);
  Fold(revoked);
  Fold(Bound({{"apps", "web"}}));
  EXPECT_EQ(status_.SerializeAsString(), before.SerializeAsString());
}

// --- Reporting ---

TEST_F(StatusFoldTest, AnAcceptedReportMakesReportingTrueWithItsReceiveTime) {
  Fold(Registered(kUid));
  const absl::Time received = kT0 + absl::Milliseconds(1500);
  const absl::Time t = Fold(Accepted(Report(kT0), received));
  EXPECT_EQ(status_.reporting().status(), "True");
  EXPECT_EQ(status_.reporting().reason(), "ReportReceived");
  EXPECT_THAT(status_.reporting().message(), HasSubstr("2026-01-01T00:00:01.5Z"));
  EXPECT_EQ(Transition(status_.reporting()), t);
  EXPECT_EQ(FromProto(status_.last_report_received_at()), received);
  EXPECT_EQ(FromProto(status_.last_seen_at()), received);
  EXPECT_EQ(FromProto(status_.last_report_time()), kT0);
  EXPECT_EQ(status_.last_seq(), 2);
}

TEST_F(StatusFoldTest, TheTransitionTimeMovesOnlyWhenTheStatusChanges) {
  Fold(Registered(kUid));
  const absl::Time first = Fold(Accepted(Report(kT0), kT0));
  Fold(Accepted(Report(kT0 + absl::Minutes(1)), kT0 + absl::Minutes(1)));
  EXPECT_EQ(Transition(status_.reporting()), first);
  EXPECT_THAT(status_.reporting().message(), HasSubstr("2026-01-01T00:01:00Z"));
  EXPECT_EQ(status_.last_seq(), 3);
}

TEST_F(StatusFoldTest, StaleMakesReportingFalseAndTheNextReportMakesItTrueAgain) {
  Fold(Registered(kUid));
  Fold(Accepted(Report(kT0), kT0));
  const absl::Time stale_at = Fold(Stale(kT0, 600));
  EXPECT_EQ(status_.reporting().status(), "False");
  EXPECT_EQ(status_.reporting().reason(), "Stale");
  EXPECT_THAT(status_.reporting().message(),
              AllOf(HasSubstr("2026-01-01T00:00:00Z"), HasSubstr("10m")));
  EXPECT_EQ(Transition(status_.reporting()), stale_at);

  const absl::Time back = Fold(Accepted(Report(kT0 + absl::Minutes(20)), kT0 + absl::Minutes(20)));
  EXPECT_EQ(status_.reporting().status(), "True");
  EXPECT_EQ(Transition(status_.reporting()), back);
}

TEST_F(StatusFoldTest, ALivenessEntryAfterStaleMakesReportingTrueAndAdvancesTimes) {
  Fold(Registered(kUid));
  Fold(Accepted(Report(kT0), kT0));
  Fold(Stale(kT0));
  const absl::Time seen = kT0 + absl::Minutes(15);
  const absl::Time t = Fold(Liveness({Heartbeat(seen, kT0 + absl::Minutes(14))}));
  EXPECT_EQ(status_.reporting().status(), "True");
  EXPECT_EQ(Transition(status_.reporting()), t);
  EXPECT_EQ(FromProto(status_.last_seen_at()), seen);
  EXPECT_EQ(FromProto(status_.last_report_time()), kT0 + absl::Minutes(14));
  EXPECT_EQ(FromProto(status_.last_report_received_at()), kT0);  // only reports move it
  EXPECT_EQ(status_.last_seq(), 4);
}

// A heartbeat received before a changed report can reach the log after it (batches are
// flushed every few seconds); it must not move the times back.
TEST_F(StatusFoldTest, AnOlderLivenessEntryChangesNothing) {
  Fold(Registered(kUid));
  Fold(Accepted(Report(kT0 + absl::Minutes(5)), kT0 + absl::Minutes(5)));
  const v1::TargetStatus before = status_;
  Fold(Liveness({Heartbeat(kT0 + absl::Minutes(4), kT0 + absl::Minutes(4))}));
  EXPECT_EQ(status_.SerializeAsString(), before.SerializeAsString());
}

// Its times stay, but a heartbeat still means the Target is reporting.
TEST_F(StatusFoldTest, AnOlderLivenessEntryAfterStaleMakesReportingTrueOnly) {
  Fold(Registered(kUid));
  Fold(Accepted(Report(kT0 + absl::Minutes(5)), kT0 + absl::Minutes(5)));
  Fold(Stale(kT0 + absl::Minutes(5)));
  const absl::Time t = Fold(Liveness({Heartbeat(kT0 + absl::Minutes(4), kT0 + absl::Minutes(4))}));
  EXPECT_EQ(status_.reporting().status(), "True");
  EXPECT_EQ(status_.reporting().reason(), kReportReceivedReason);
  EXPECT_EQ(Transition(status_.reporting()), t);
  EXPECT_THAT(status_.reporting().message(),
              HasSubstr(common::FormatRfc3339(kT0 + absl::Minutes(5))));
  EXPECT_EQ(FromProto(status_.last_seen_at()), kT0 + absl::Minutes(5));
  EXPECT_EQ(status_.last_seq(), 4);
}

TEST_F(StatusFoldTest, LivenessAppliesOnlyThisTargetsEntryOfItsUid) {
  Fold(Registered(kUid));
  Fold(Accepted(Report(kT0), kT0));
  Fold(Liveness({Heartbeat(kT0 + absl::Minutes(1), kT0 + absl::Minutes(1), kUid, "edge-0"),
                 Heartbeat(kT0 + absl::Minutes(2), kT0 + absl::Minutes(2), kOtherUid)}));
  EXPECT_EQ(FromProto(status_.last_seen_at()), kT0);
  EXPECT_EQ(status_.last_seq(), 2);

  Fold(Liveness({Heartbeat(kT0 + absl::Minutes(1), kT0 + absl::Minutes(1), kUid, "edge-0"),
                 Heartbeat(kT0 + absl::Minutes(3), kT0 + absl::Minutes(3))}));
  EXPECT_EQ(FromProto(status_.last_seen_at()), kT0 + absl::Minutes(3));
  EXPECT_EQ(status_.last_seq(), 4);
}

TEST_F(StatusFoldTest, ApplyLivenessIgnoresAnotherUid) {
  Fold(Registered(kUid));
  Fold(Accepted(Report(kT0), kT0));
  Fold(Stale(kT0));
  ApplyLiveness(status_, Heartbeat(kT0 + absl::Hours(1), kT0 + absl::Hours(1), kOtherUid),
                {9, 0, At(9)});
  EXPECT_EQ(status_.reporting().status(), "False");
  EXPECT_EQ(status_.last_seq(), 3);
}

// --- PreflightReady ---

struct PreflightCase {
  std::string name;
  std::vector<std::string> checks;
  std::string status;
  std::string reason;
};

class PreflightTest : public StatusFoldTest, public ::testing::WithParamInterface<PreflightCase> {};

TEST_P(PreflightTest, TheChecksDecideTheCondition) {
  Fold(Registered(kUid));
  Fold(Accepted(Report(kT0, {}, GetParam().checks), kT0));
  EXPECT_EQ(status_.preflight_ready().type(), "PreflightReady");
  EXPECT_EQ(status_.preflight_ready().status(), GetParam().status);
  EXPECT_EQ(status_.preflight_ready().reason(), GetParam().reason);
}

INSTANTIATE_TEST_SUITE_P(
    EachRule, PreflightTest,
    ::testing::Values(
        PreflightCase{"AllPassed", {"True", "True"}, "True", "AllChecksPassed"},
        PreflightCase{"NoChecks", {}, "Unknown", "NoChecks"},
        PreflightCase{"Errored", {"True", "Unknown"}, "Unknown", "ChecksErrored"},
        PreflightCase{"Failed", {"False", "True"}, "False", "ChecksFailed"},
        PreflightCase{"ErroredAndFailed", {"Unknown", "False"}, "False", "ChecksErroredAndFailed"}),
    [](const auto& info) { return info.param.name; });

TEST_F(StatusFoldTest, PreflightMessagesListTheErroredAndFailedCheckTypes) {
  Fold(Registered(kUid));
  Fold(Accepted(Report(kT0, {}, {"Unknown", "True", "False", "False"}), kT0));
  EXPECT_THAT(status_.preflight_ready().message(),
              AllOf(HasSubstr("errored: Check0"), HasSubstr("failed: Check2, Check3"),
                    Not(HasSubstr("Check1"))));
}

// --- Releases rollup and ReleasesReady ---

struct WorstPhaseCase {
  std::string name;
  std::vector<v1::ReleasePhase> phases;
  std::string status;
  std::string reason;
};

class WorstPhaseTest : public StatusFoldTest,
                       public ::testing::WithParamInterface<WorstPhaseCase> {};

TEST_P(WorstPhaseTest, TheWorstPhaseDecidesReleasesReady) {
  std::vector<v1::ReleaseStatus> releases;
  for (size_t i = 0; i < GetParam().phases.size(); ++i) {
    releases.push_back(Release("apps", absl::StrCat("r", i), GetParam().phases[i]));
  }
  Fold(Registered(kUid));
  Fold(Accepted(Report(kT0, releases), kT0));
  EXPECT_EQ(status_.releases_ready().type(), "ReleasesReady");
  EXPECT_EQ(status_.releases_ready().status(), GetParam().status);
  EXPECT_EQ(status_.releases_ready().reason(), GetParam().reason);
}

INSTANTIATE_TEST_SUITE_P(
    EachRank, WorstPhaseTest,
    ::testing::Values(
        WorstPhaseCase{
            "AllReady", {v1::RELEASE_PHASE_READY, v1::RELEASE_PHASE_READY}, "True", "Ready"},
        WorstPhaseCase{"ProgressingOverReady",
                       {v1::RELEASE_PHASE_READY, v1::RELEASE_PHASE_PROGRESSING},
                       "Unknown",
                       "Progressing"},
        WorstPhaseCase{"PendingOverProgressing",
                       {v1::RELEASE_PHASE_PROGRESSING, v1::RELEASE_PHASE_PENDING},
                       "Unknown",
                       "Pending"},
        WorstPhaseCase{"DegradedOverPending",
                       {v1::RELEASE_PHASE_PENDING, v1::RELEASE_PHASE_DEGRADED},
                       "False",
                       "Degraded"},
        WorstPhaseCase{
            "FailedOverDegraded",
            {v1::RELEASE_PHASE_DEGRADED, v1::RELEASE_PHASE_FAILED, v1::RELEASE_PHASE_READY},
            "False",
            "Failed"},
        WorstPhaseCase{"NoReleases", {}, "Unknown", "NoReleases"}),
    [](const auto& info) { return info.param.name; });

TEST_F(StatusFoldTest, ReleasesReadyNamesTheReleasesInTheWorstPhaseOnly) {
  Fold(Registered(kUid));
  Fold(Accepted(Report(kT0, {Release("apps", "a", v1::RELEASE_PHASE_FAILED),
                             Release("apps", "b", v1::RELEASE_PHASE_DEGRADED),
                             Release("infra", "c", v1::RELEASE_PHASE_FAILED)}),
                kT0));
  EXPECT_THAT(status_.releases_ready().message(),
              AllOf(HasSubstr("2 of 3"), HasSubstr("apps/a"), HasSubstr("infra/c"),
                    Not(HasSubstr("apps/b"))));
}

TEST_F(StatusFoldTest, ReleasesReadyNamesAtMostFiveReleasesAndCountsTheRest) {
  std::vector<v1::ReleaseStatus> releases;
  for (int i = 1; i <= 8; ++i) {
    releases.push_back(Release("apps", absl::StrCat("r", i), v1::RELEASE_PHASE_DEGRADED));
  }
  Fold(Registered(kUid));
  Fold(Accepted(Report(kT0, releases), kT0));
  EXPECT_THAT(status_.releases_ready().message(),
              AllOf(HasSubstr("apps/r5"), Not(HasSubstr("apps/r6")), HasSubstr("and 3 more")));
}

TEST_F(StatusFoldTest, ReleasesKeepReportOrderWithTheirFlagsAndCounts) {
  v1::ReleaseStatus rolled_back = Release("apps", "z", v1::RELEASE_PHASE_READY);
  *rolled_back.add_helm_conditions() = Condition("Remediated", "True", "RollbackSucceeded");
  *rolled_back.add_source_conditions() = Condition("SourceVerified", "True");
  v1::ReleaseStatus drifted = Release("apps", "a", v1::RELEASE_PHASE_DEGRADED);
  *drifted.add_helm_conditions() = Condition("Drifted", "True", "DriftDetected");
  *drifted.add_helm_conditions() = Condition("TestSuccess", "False");
  Fold(Registered(kUid));
  Fold(Accepted(Report(kT0, {rolled_back, drifted, Release("apps", "m", v1::RELEASE_PHASE_READY)}),
                kT0));
  ASSERT_EQ(status_.releases_size(), 3);
  EXPECT_EQ(status_.releases(0).status().name(), "z");
  EXPECT_EQ(status_.releases(1).status().name(), "a");
  EXPECT_EQ(status_.releases(2).status().name(), "m");
  EXPECT_TRUE(status_.releases(0).flags().rolled_back());
  EXPECT_TRUE(status_.releases(0).flags().verified());
  EXPECT_TRUE(status_.releases(1).flags().drifted());
  EXPECT_TRUE(status_.releases(1).flags().test_failed());
  EXPECT_FALSE(status_.releases(2).flags().rolled_back());
  EXPECT_TRUE(status_.releases(0).reported());
  EXPECT_FALSE(status_.releases(0).bound());
  EXPECT_EQ(status_.phase_counts().ready(), 2);
  EXPECT_EQ(status_.phase_counts().degraded(), 1);
  EXPECT_EQ(status_.phase_counts().pending(), 0);
  EXPECT_EQ(status_.flag_counts().rolled_back(), 1);
  EXPECT_EQ(status_.flag_counts().verified(), 1);
  EXPECT_EQ(status_.flag_counts().drifted(), 1);
  EXPECT_EQ(status_.flag_counts().test_failed(), 1);
}

TEST_F(StatusFoldTest, BoundReleasesBeforeTheFirstReportArePending) {
  Fold(Registered(kUid));
  Fold(Bound({{"apps", "a"}, {"apps", "b"}}, "2026.1"));
  EXPECT_EQ(status_.bootstrap_version(), "2026.1");
  ASSERT_EQ(status_.releases_size(), 2);
  for (const v1::ReleaseRollup& r : status_.releases()) {
    EXPECT_EQ(r.status().phase(), v1::RELEASE_PHASE_PENDING);
    EXPECT_TRUE(r.bound());
    EXPECT_FALSE(r.reported());
  }
  EXPECT_EQ(status_.phase_counts().pending(), 2);
  EXPECT_EQ(status_.releases_ready().status(), "Unknown");
  EXPECT_EQ(status_.releases_ready().reason(), "Pending");
  EXPECT_THAT(status_.releases_ready().message(), AllOf(HasSubstr("apps/a"), HasSubstr("apps/b")));
  EXPECT_EQ(status_.reporting().reason(), "NoReport");
}

TEST_F(StatusFoldTest, ABoundReleaseMissingFromTheReportRollsUpAsPendingAfterTheReported) {
  Fold(Registered(kUid));
  Fold(Bound({{"apps", "a"}, {"apps", "b"}}));
  Fold(Accepted(Report(kT0, {Release("apps", "b", v1::RELEASE_PHASE_READY),
                             Release("apps", "x", v1::RELEASE_PHASE_READY)}),
                kT0));
  ASSERT_EQ(status_.releases_size(), 3);
  EXPECT_EQ(status_.releases(0).status().name(), "b");
  EXPECT_TRUE(status_.releases(0).bound());
  EXPECT_TRUE(status_.releases(0).reported());
  EXPECT_EQ(status_.releases(1).status().name(), "x");
  EXPECT_FALSE(status_.releases(1).bound());
  EXPECT_EQ(status_.releases(2).status().name(), "a");
  EXPECT_EQ(status_.releases(2).status().phase(), v1::RELEASE_PHASE_PENDING);
  EXPECT_FALSE(status_.releases(2).reported());
  EXPECT_EQ(status_.releases_ready().reason(), "Pending");
  EXPECT_THAT(status_.releases_ready().message(), HasSubstr("1 of 3 releases Pending: apps/a"));

  Fold(Bound({{"apps", "b"}}));
  EXPECT_EQ(status_.releases_size(), 2);
  EXPECT_EQ(status_.releases_ready().status(), "True");
}

}  // namespace target_status_test
}  // namespace credledger::projections
