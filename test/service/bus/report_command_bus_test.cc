// Tests of ReportCommandBus on a real SQLite store (docs/design.md, "Group commit" and
// "Deciders"; docs/reports.md, "Ingest", "Liveness and staleness" and "Rollups"): what
// reports, heartbeats, liveness batches and staleness append, request-id replays, the atomic
// rollout confirmation, and that the bus's cached folds follow the log (other writers,
// rolled back batches, a restart).
#include "service/bus/report_command_bus.h"

#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "common/clock.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "projections/proto_time.h"
#include "service/bus/target_command_bus.h"
#include "store/event_codec.h"
#include "store/sqlite_event_store.h"
#include "test/support/forwarding_event_store.h"
#include "test/support/reference_sha256.h"
#include "test/support/status_matchers.h"
#include "test/support/temp_dir.h"
#include "test/support/test_event_log.h"

namespace credledger::service {
namespace report_command_bus_test {

using ::credledger::testing::StatusIs;
using projections::ToProto;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

constexpr char kUid[] = "6f1c2a9e-0b7d-4e52-9c3a-1d2e3f405162";
constexpr char kOtherUid[] = "a0b1c2d3-e4f5-4a6b-8c7d-9e0f1a2b3c4d";

// An EventStore that, when armed, fails each command's transaction after the command itself
// succeeded (as a batch whose commit fails): everything the command appended is rolled back.
class RollingBackStore final : public testing::ForwardingEventStore {
 public:
  using ForwardingEventStore::ForwardingEventStore;
  void Arm(bool armed) { armed_ = armed; }

  absl::Status Execute(store::Command command) override {
    if (!armed_) return inner()->Execute(std::move(command));
    return inner()->Execute([&command](store::WriteTransaction& tx) -> absl::Status {
      absl::Status status = command(tx);
      if (!status.ok()) return status;
      return absl::UnavailableError("the batch could not be committed");
    });
  }

 private:
  bool armed_ = false;
};

// The Secrets the rollout confirmations among the result's events released.
std::vector<std::string> Released(const ReportCommandResult& result) {
  absl::StatusOr<std::vector<std::string>> released = ReleasedSecrets(result.events);
  EXPECT_TRUE(released.ok()) << released.status();
  return released.ok() ? *released : std::vector<std::string>();
}

v1::SecretRef Secret(int suffix) {
  v1::SecretRef s;
  s.set_name(absl::StrCat("solar-agent-edge-1-", suffix));
  s.set_uid(absl::StrCat("5ec7e700-0000-4000-8000-00000000000", suffix));
  return s;
}
std::string Tag(int suffix) { return testing::ReferenceSha256HexPrefix(Secret(suffix).uid(), 10); }

v1::ReleaseStatus Release(v1::ReleasePhase phase, const std::string& revision) {
  v1::ReleaseStatus r;
  r.set_namespace_("solar-system");
  r.set_name("agent");
  r.set_phase(phase);
  r.set_revision(revision);
  return r;
}
v1::TargetReportSpec Report(absl::Time last_report_time, v1::ReleasePhase phase,
                            const std::string& revision = "1.0.0") {
  v1::TargetReportSpec report;
  *report.mutable_last_report_time() = ToProto(last_report_time);
  *report.add_releases() = Release(phase, revision);
  return report;
}
v1::LivenessEntry Heartbeat(const std::string& name, const std::string& uid,
                            absl::Time received_at) {
  v1::LivenessEntry entry;
  entry.set_namespace_("fleet");
  entry.set_name(name);
  entry.set_target_uid(uid);
  *entry.mutable_received_at() = ToProto(received_at);
  *entry.mutable_last_report_time() = ToProto(received_at);
  return entry;
}

class ReportCommandBusTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_OK_AND_ASSIGN(sqlite_, ::credledger::testing::OpenTestEventLog(dir_.path(), &clock_));
    store_ = std::make_unique<RollingBackStore>(sqlite_.get());
    targets_ = std::make_unique<TargetCommandBus>(sqlite_.get());
    bus_ = std::make_unique<ReportCommandBus>(store_.get(), ReportBusDecider(targets_.get()));
    service_.set_agent_apiserver_url("https://agents.example:6443");
    service_.set_agent_token_ttl_seconds(86400);
    service_.set_credentials_enabled(true);
  }

  CommandContext Context(const std::string& name, const std::string& request_id) {
    return {"fleet", name, clock_.Now(), "alice", request_id, service_};
  }
  absl::StatusOr<ReportCommandResult> Run(const ReportCommand& command,
                                          const std::string& request_id,
                                          const std::string& name = "edge-1") {
    return bus_->Execute(command, Context(name, request_id));
  }
  absl::StatusOr<ReportCommandResult> Submit(const v1::TargetReportSpec& report,
                                             const std::string& request_id,
                                             const std::string& name = "edge-1") {
    return Run(SubmitReport{report, clock_.Now(), std::nullopt}, request_id, name);
  }
  absl::Status Target(const TargetCommand& command, const std::string& name = "edge-1") {
    return targets_->Execute(command, Context(name, absl::StrCat("t-", ++target_requests_)))
        .status();
  }
  // Registers edge-1 and issues credentials 1 and 2 (2 current) the way the bridge would.
  void RegisterWithTwoCredentials() {
    ASSERT_OK(Target(RegisterTarget{kUid, true}));
    for (int suffix : {1, 2}) {
      if (suffix == 2) ASSERT_OK(Target(RequestRotation{"r2"}));
      const std::string attempt = absl::StrCat("m", suffix);
      ASSERT_OK(Target(RecordSecretCreated{attempt, Secret(suffix), suffix}));
      ASSERT_OK(Target(RecordCredentialIssued{attempt, Secret(suffix), "0123456789abcdef",
                                              clock_.Now(), clock_.Now() + absl::Hours(24)}));
    }
  }
  absl::StatusOr<std::vector<store::RecordedEvent>> Stream(const std::string& stream) {
    return sqlite_->ReadStream(stream, 0, 1000);
  }

  testing::TempDir dir_;
  common::FakeClock clock_;
  std::unique_ptr<store::SqliteEventStore> sqlite_;
  std::unique_ptr<RollingBackStore> store_;
  std::unique_ptr<TargetCommandBus> targets_;
  std::unique_ptr<ReportCommandBus> bus_;
  v1::ServiceConfigured service_;
  int target_requests_ = 0;
};

TEST_F(ReportCommandBusTest, AnAcceptedReportAppendsOneEventWithItsMetadata) {
  ASSERT_OK(Target(RegisterTarget{kUid, true}));
  ASSERT_OK_AND_ASSIGN(ReportCommandResult result,
                       Submit(Report(clock_.Now(), v1::RELEASE_PHASE_READY), "req-1"));
  ASSERT_EQ(result.events.size(), 1u);
  EXPECT_FALSE(result.note.heartbeat);
  EXPECT_FALSE(result.replayed);
  EXPECT_EQ(result.events[0].stream, "report/fleet/edge-1");
  EXPECT_EQ(result.events[0].stream_version, 0);
  ASSERT_OK_AND_ASSIGN(v1::EventMetadata metadata,
                       store::EventCodec::DecodeMetadata(result.events[0]));
  EXPECT_EQ(metadata.actor(), "alice");
  EXPECT_EQ(metadata.request_id(), "req-1");
  EXPECT_EQ(metadata.command(), "SubmitReport");
  EXPECT_EQ(result.state.status.reporting().status(), "True");
  EXPECT_EQ(result.state.status.releases_ready().status(), "True");
  EXPECT_EQ(result.state.status.last_seq(), result.events[0].seq);
}

TEST_F(ReportCommandBusTest, AHeartbeatAppendsNothing) {
  ASSERT_OK(Target(RegisterTarget{kUid, true}));
  ASSERT_OK(Submit(Report(clock_.Now(), v1::RELEASE_PHASE_READY), "req-1"));
  const int64_t head = sqlite_->HeadSeq();
  clock_.Advance(absl::Minutes(1));
  ASSERT_OK_AND_ASSIGN(ReportCommandResult result,
                       Submit(Report(clock_.Now(), v1::RELEASE_PHASE_READY), "req-2"));
  EXPECT_TRUE(result.note.heartbeat);
  EXPECT_THAT(result.events, IsEmpty());
  EXPECT_EQ(sqlite_->HeadSeq(), head);
}

TEST_F(ReportCommandBusTest, ARetriedRequestIdReplaysAndAReusedOneIsRefused) {
  ASSERT_OK(Target(RegisterTarget{kUid, true}));
  ASSERT_OK(Target(RegisterTarget{kOtherUid, true}, "edge-2"));
  const v1::TargetReportSpec report = Report(clock_.Now(), v1::RELEASE_PHASE_READY);
  ASSERT_OK_AND_ASSIGN(ReportCommandResult first, Submit(report, "req-1"));
  const int64_t head = sqlite_->HeadSeq();
  clock_.Advance(absl::Seconds(1));

  ASSERT_OK_AND_ASSIGN(ReportCommandResult again, Submit(report, "req-1"));
  EXPECT_TRUE(again.replayed);
  ASSERT_EQ(again.events.size(), 1u);
  EXPECT_EQ(again.events[0].event_id, first.events[0].event_id);
  EXPECT_EQ(again.state.status.reporting().status(), "True");

  EXPECT_THAT(Run(SetBoundReleases{{}, "v2"}, "req-1"),
              StatusIs(absl::StatusCode::kFailedPrecondition, HasSubstr("SubmitReport")));
  EXPECT_THAT(Submit(Report(clock_.Now(), v1::RELEASE_PHASE_READY), "req-1", "edge-2"),
              StatusIs(absl::StatusCode::kFailedPrecondition, HasSubstr("report/fleet/edge-1")));
  EXPECT_THAT(Run(SubmitReport{}, ""),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("request_id")));
  EXPECT_EQ(sqlite_->HeadSeq(), head);
}

TEST_F(ReportCommandBusTest, RejectedReportsAppendNothing) {
  ASSERT_OK(Target(RegisterTarget{kUid, true}));
  const int64_t head = sqlite_->HeadSeq();
  EXPECT_THAT(Submit(Report(clock_.Now(), v1::RELEASE_PHASE_READY), "req-1", "edge-9"),
              StatusIs(absl::StatusCode::kNotFound));
  EXPECT_THAT(Submit(Report(clock_.Now(), v1::RELEASE_PHASE_UNSPECIFIED), "req-1"),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("report.releases[0]")));
  EXPECT_EQ(sqlite_->HeadSeq(), head);
}

TEST_F(ReportCommandBusTest, ARolloutIsConfirmedInTheTargetStreamAtomicallyWithTheReport) {
  RegisterWithTwoCredentials();
  ASSERT_OK_AND_ASSIGN(auto target_before, Stream("target/fleet/edge-1"));
  const std::string revision = absl::StrCat("1.2.0-0c0ffee123-", Tag(2));
  ASSERT_OK_AND_ASSIGN(ReportCommandResult result,
                       Submit(Report(clock_.Now(), v1::RELEASE_PHASE_READY, revision), "req-1"));
  ASSERT_EQ(result.events.size(), 2u);
  EXPECT_EQ(result.events[0].stream, "report/fleet/edge-1");
  EXPECT_EQ(result.events[1].stream, "target/fleet/edge-1");
  EXPECT_EQ(result.events[1].seq, result.events[0].seq + 1);
  EXPECT_EQ(result.events[1].stream_version, target_before.back().stream_version + 1);
  ASSERT_OK_AND_ASSIGN(v1::Event confirmed, store::EventCodec::Default().Decode(result.events[1]));
  ASSERT_TRUE(confirmed.has_rollout_confirmed());
  EXPECT_EQ(confirmed.rollout_confirmed().revision(), revision);
  EXPECT_THAT(Released(result), ElementsAre(Secret(1).name()));
  ASSERT_OK_AND_ASSIGN(v1::EventMetadata metadata,
                       store::EventCodec::DecodeMetadata(result.events[1]));
  EXPECT_EQ(metadata.request_id(), "req-1");
  EXPECT_EQ(metadata.command(), "SubmitReport");

  // The target decider now sees the older Secret released.
  ASSERT_OK_AND_ASSIGN(
      v1::TargetState state,
      targets_->LoadState(
          {.target_namespace = "fleet", .target_name = "edge-1", .service = service_}));
  EXPECT_EQ(state.credentials(0).phase(), v1::CredentialRecord::PHASE_RELEASED);

  // A replay reports the released Secrets again.
  ASSERT_OK_AND_ASSIGN(ReportCommandResult again,
                       Submit(Report(clock_.Now(), v1::RELEASE_PHASE_READY, revision), "req-1"));
  EXPECT_TRUE(again.replayed);
  EXPECT_THAT(Released(again), ElementsAre(Secret(1).name()));
}

TEST_F(ReportCommandBusTest, ARolledBackReleaseWithTheNewTagConfirmsNothing) {
  RegisterWithTwoCredentials();
  ASSERT_OK_AND_ASSIGN(auto target_before, Stream("target/fleet/edge-1"));
  v1::TargetReportSpec report =
      Report(clock_.Now(), v1::RELEASE_PHASE_READY, absl::StrCat("1.2.0-0c0ffee123-", Tag(2)));
  v1::ReportCondition* remediated = report.mutable_releases(0)->add_helm_conditions();
  remediated->set_type("Remediated");
  remediated->set_status("True");
  remediated->set_reason("RollbackSucceeded");
  ASSERT_OK_AND_ASSIGN(ReportCommandResult result, Submit(report, "req-1"));
  ASSERT_EQ(result.events.size(), 1u);
  EXPECT_THAT(Released(result), IsEmpty());
  ASSERT_OK_AND_ASSIGN(auto target_after, Stream("target/fleet/edge-1"));
  EXPECT_EQ(target_after.size(), target_before.size());
}

TEST_F(ReportCommandBusTest, ALivenessBatchKeepsOnlyEntriesOfRegisteredTargetsOfTheSameUid) {
  ASSERT_OK(Target(RegisterTarget{kUid, true}));
  ASSERT_OK(Target(RegisterTarget{kUid, true}, "edge-2"));
  const int64_t head = sqlite_->HeadSeq();
  ASSERT_OK_AND_ASSIGN(ReportCommandResult none,
                       Run(RecordLiveness{{Heartbeat("edge-1", kOtherUid, clock_.Now()),
                                           Heartbeat("edge-9", kUid, clock_.Now())}},
                           "credledger:liveness/1", ""));
  EXPECT_THAT(none.events, IsEmpty());
  EXPECT_EQ(sqlite_->HeadSeq(), head);

  ASSERT_OK_AND_ASSIGN(ReportCommandResult batch,
                       Run(RecordLiveness{{Heartbeat("edge-2", kUid, clock_.Now()),
                                           Heartbeat("edge-1", kOtherUid, clock_.Now()),
                                           Heartbeat("edge-1", kUid, clock_.Now())}},
                           "credledger:liveness/2", ""));
  ASSERT_EQ(batch.events.size(), 1u);
  EXPECT_EQ(batch.events[0].stream, "liveness");
  ASSERT_OK_AND_ASSIGN(v1::Event event, store::EventCodec::Default().Decode(batch.events[0]));
  ASSERT_EQ(event.liveness_observed().entries_size(), 2);
  EXPECT_EQ(event.liveness_observed().entries(0).name(), "edge-1");
  EXPECT_EQ(event.liveness_observed().entries(0).target_uid(), kUid);
  EXPECT_EQ(event.liveness_observed().entries(1).name(), "edge-2");

  ASSERT_OK_AND_ASSIGN(
      ReportCommandResult again,
      Run(RecordLiveness{{Heartbeat("edge-2", kUid, clock_.Now())}}, "credledger:liveness/2", ""));
  EXPECT_TRUE(again.replayed);
  EXPECT_EQ(again.events[0].seq, batch.events[0].seq);
}

TEST_F(ReportCommandBusTest, StalenessIsMeasuredFromTheNewestLoggedHeartbeatAlsoAfterARestart) {
  ASSERT_OK(Target(RegisterTarget{kUid, true}));
  const absl::Time reported = clock_.Now();
  ASSERT_OK(Submit(Report(reported, v1::RELEASE_PHASE_READY), "req-1"));
  clock_.Advance(absl::Minutes(5));
  const absl::Time heartbeat = clock_.Now();
  ASSERT_OK(
      Run(RecordLiveness{{Heartbeat("edge-1", kUid, heartbeat)}}, "credledger:liveness/1", ""));
  clock_.Advance(absl::Minutes(20));

  ASSERT_OK_AND_ASSIGN(ReportCommandResult early,
                       Run(MarkStale{reported, absl::Minutes(10)}, "stale-1"));
  EXPECT_THAT(early.events, IsEmpty());
  EXPECT_EQ(projections::FromProto(early.state.status.last_seen_at()), heartbeat);

  ReportCommandBus restarted(store_.get(), ReportBusDecider(targets_.get()));
  ASSERT_OK_AND_ASSIGN(
      ReportCommandResult stale,
      restarted.Execute(MarkStale{heartbeat, absl::Minutes(10)}, Context("edge-1", "stale-2")));
  ASSERT_EQ(stale.events.size(), 1u);
  EXPECT_EQ(stale.state.status.reporting().reason(), "Stale");
}

TEST_F(ReportCommandBusTest, TheStatusOfTheCachedPathEqualsAFreshFoldOfTheLog) {
  ASSERT_OK(Target(RegisterTarget{kUid, true}));
  v1::BoundRelease bound;
  bound.set_namespace_("apps");
  bound.set_name("web");
  ASSERT_OK(Run(SetBoundReleases{{bound}, "2026.1"}, "req-1"));
  ASSERT_OK(Submit(Report(clock_.Now(), v1::RELEASE_PHASE_PROGRESSING), "req-2"));
  clock_.Advance(absl::Minutes(1));
  ASSERT_OK(
      Run(RecordLiveness{{Heartbeat("edge-1", kUid, clock_.Now())}}, "credledger:liveness/1", ""));
  clock_.Advance(absl::Minutes(1));
  ASSERT_OK(Target(RequestRotation{"r1"}));
  ASSERT_OK_AND_ASSIGN(ReportCommandResult cached,
                       Submit(Report(clock_.Now(), v1::RELEASE_PHASE_READY), "req-3"));
  EXPECT_EQ(cached.state.status.phase_counts().ready(), 1);
  EXPECT_EQ(cached.state.status.phase_counts().pending(), 1);

  // A MarkStale that finds the Target not silent appends nothing and returns the status.
  const MarkStale no_op{absl::UnixEpoch(), absl::Minutes(10)};
  ReportCommandBus fresh(store_.get(), ReportBusDecider(targets_.get()));
  ASSERT_OK_AND_ASSIGN(ReportCommandResult folded, fresh.Execute(no_op, Context("edge-1", "s-1")));
  ASSERT_OK_AND_ASSIGN(ReportCommandResult again, Run(no_op, "s-2"));
  EXPECT_THAT(folded.events, IsEmpty());
  EXPECT_EQ(folded.state.status.SerializeAsString(), cached.state.status.SerializeAsString());
  EXPECT_EQ(again.state.status.SerializeAsString(), cached.state.status.SerializeAsString());
}

TEST_F(ReportCommandBusTest, ReportsAppendedByAnotherWriterAreFoldedBeforeDeciding) {
  ASSERT_OK(Target(RegisterTarget{kUid, true}));
  ASSERT_OK(Submit(Report(clock_.Now(), v1::RELEASE_PHASE_PROGRESSING), "req-1"));
  clock_.Advance(absl::Seconds(10));
  const v1::TargetReportSpec ready = Report(clock_.Now(), v1::RELEASE_PHASE_READY);
  ReportCommandBus other(store_.get(), ReportBusDecider(targets_.get()));
  ASSERT_OK(
      other.Execute(SubmitReport{ready, clock_.Now(), std::nullopt}, Context("edge-1", "req-2")));

  clock_.Advance(absl::Seconds(10));
  ASSERT_OK_AND_ASSIGN(ReportCommandResult heartbeat,
                       Submit(Report(clock_.Now(), v1::RELEASE_PHASE_READY), "req-3"));
  EXPECT_TRUE(heartbeat.note.heartbeat);
  EXPECT_EQ(heartbeat.state.status.releases_ready().status(), "True");
  ASSERT_OK_AND_ASSIGN(ReportCommandResult changed,
                       Submit(Report(clock_.Now(), v1::RELEASE_PHASE_FAILED), "req-4"));
  ASSERT_EQ(changed.events.size(), 1u);
  EXPECT_EQ(changed.events[0].stream_version, 2);
}

// A batch can roll back after the command decided and appended; the next command must
// decide against the log, not against what the rolled back command appended.
TEST_F(ReportCommandBusTest, ARolledBackBatchDoesNotPoisonTheCache) {
  ASSERT_OK(Target(RegisterTarget{kUid, true}));
  const absl::Time reported = clock_.Now();
  ASSERT_OK(Submit(Report(reported, v1::RELEASE_PHASE_PROGRESSING), "req-1"));
  const int64_t head = sqlite_->HeadSeq();

  clock_.Advance(absl::Minutes(1));
  store_->Arm(true);
  EXPECT_THAT(Submit(Report(clock_.Now(), v1::RELEASE_PHASE_READY), "req-2"),
              StatusIs(absl::StatusCode::kUnavailable));
  EXPECT_THAT(
      Run(RecordLiveness{{Heartbeat("edge-1", kUid, clock_.Now())}}, "credledger:liveness/1", ""),
      StatusIs(absl::StatusCode::kUnavailable));
  store_->Arm(false);
  EXPECT_EQ(sqlite_->HeadSeq(), head);

  // The rolled back report is not the last accepted one: the same report is a change.
  ASSERT_OK_AND_ASSIGN(ReportCommandResult accepted,
                       Submit(Report(clock_.Now(), v1::RELEASE_PHASE_READY), "req-2"));
  ASSERT_EQ(accepted.events.size(), 1u);
  EXPECT_EQ(accepted.events[0].stream_version, 1);
  // The rolled back heartbeat is not seen: the Target is silent since the accepted report.
  clock_.Advance(absl::Minutes(10));
  ASSERT_OK_AND_ASSIGN(
      ReportCommandResult stale,
      Run(MarkStale{projections::FromProto(accepted.state.status.last_seen_at()),
                    absl::Minutes(10)},
          "stale-1"));
  EXPECT_EQ(stale.events.size(), 1u);
}

TEST_F(ReportCommandBusTest, ConcurrentReportsOfManyTargetsAreAllAccepted) {
  constexpr int kTargets = 8;
  for (int i = 0; i < kTargets; ++i) {
    ASSERT_OK(Target(RegisterTarget{kUid, true}, absl::StrCat("edge-", i)));
  }
  std::vector<absl::Status> results(kTargets);
  std::vector<std::thread> threads;
  for (int i = 0; i < kTargets; ++i) {
    threads.emplace_back([&, i] {
      results[i] = Submit(Report(clock_.Now(), v1::RELEASE_PHASE_READY), absl::StrCat("req-", i),
                          absl::StrCat("edge-", i))
                       .status();
    });
  }
  for (std::thread& t : threads) t.join();
  for (int i = 0; i < kTargets; ++i) {
    EXPECT_OK(results[i]);
    ASSERT_OK_AND_ASSIGN(auto events, Stream(absl::StrCat("report/fleet/edge-", i)));
    EXPECT_EQ(events.size(), 1u);
  }
}

}  // namespace report_command_bus_test
}  // namespace credledger::service
