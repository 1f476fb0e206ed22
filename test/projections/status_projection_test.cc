// Tests of the fleet status read model and its projector (docs/reports.md, "Rollups";
// docs/design.md, "Snapshots" and "As-of replay"): which events change which Target's rollup
// (liveness batches fan out to each listed incarnation), ordering and filters of List, and that
// the incremental projector, its snapshots, snapshot + tail (as-of) and a full rebuild from seq
// 1 give the same bytes. The credential side of the log is written by the FleetDriver; the
// report side is appended as the report decider would record it.
#include "projections/status_projection.h"

#include <algorithm>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "projections/proto_time.h"
#include "projections/report_streams.h"
#include "projections/status_projector.h"
#include "projections/target_status.h"
#include "store/event_codec.h"
#include "test/projections/fleet_log.h"
#include "test/support/recorded_events.h"
#include "test/support/status_matchers.h"
#include "test/support/test_snapshot_guard.h"

namespace credledger::projections {
namespace status_projection_test {

using ::credledger::testing::StatusIs;
using ::testing::ElementsAre;
using ::testing::IsEmpty;

constexpr int64_t kSnapshotEvery = 5;
constexpr absl::Duration kWait = absl::Seconds(30);  // only reached when a test fails
constexpr char kA[] = "fleet-a";                     // the FleetDriver's namespaces
constexpr char kB[] = "fleet-b";

v1::TargetReportSpec Report(absl::Time at, v1::ReleasePhase phase, bool rolled_back) {
  v1::TargetReportSpec report;
  *report.mutable_last_report_time() = ToProto(at);
  v1::ReleaseStatus& release = *report.add_releases();
  release.set_name("app");
  release.set_namespace_("flux-system");
  release.set_phase(phase);
  release.set_revision("1.0.0");
  if (rolled_back) {
    v1::ReportCondition& c = *release.add_helm_conditions();
    c.set_type("Remediated");
    c.set_status("True");
    c.set_reason("RollbackSucceeded");
  }
  v1::PreflightCheck& check = *report.add_preflight_checks();
  check.set_type("DiskSpace");
  check.set_status("True");
  check.set_reason("Enough");
  return report;
}

class StatusProjectionTest : public testing::FleetLogTest {
 protected:
  void SetUp() override {
    FleetLogTest::SetUp();
    ASSERT_OK_AND_ASSIGN(guard_, testing::TestSnapshotGuard::Create());
  }

  std::string Uid(const std::string& ns, const std::string& name) {
    absl::StatusOr<v1::TargetState> state = driver_->State(ns, name);
    EXPECT_OK(state);
    return state.ok() ? state->target_uid() : "";
  }

  // Appends `event` to `stream`; returns its seq.
  int64_t Append(const std::string& stream, const v1::Event& event) {
    v1::EventMetadata metadata;
    metadata.set_actor("credledger");
    metadata.set_request_id(absl::StrCat("report-", ++requests_));
    absl::StatusOr<store::NewEvent> encoded = store::EventCodec::Default().Encode(event, metadata);
    EXPECT_OK(encoded);
    if (!encoded.ok()) return 0;
    store::AppendRequest request{metadata.request_id(), {{stream, store::ExpectedVersion::Any(),
                                                          {*std::move(encoded)}}}};
    absl::StatusOr<store::AppendResult> appended = store_->Append(std::move(request));
    EXPECT_OK(appended);
    return appended.ok() ? appended->events.back().seq : 0;
  }

  // The helpers below record their event one second after the previous one, received and
  // reported at that time.
  int64_t Accept(const std::string& ns, const std::string& name, v1::ReleasePhase phase,
                 bool rolled_back = false) {
    clock_.Advance(absl::Seconds(1));
    v1::Event event;
    v1::ReportAccepted& e = *event.mutable_report_accepted();
    e.set_target_uid(Uid(ns, name));
    *e.mutable_report() = Report(clock_.Now(), phase, rolled_back);
    *e.mutable_received_at() = ToProto(clock_.Now());
    return Append(ReportStream(ns, name), event);
  }

  int64_t Stale(const std::string& ns, const std::string& name) {
    clock_.Advance(absl::Seconds(1));
    v1::Event event;
    v1::ReportingStale& e = *event.mutable_reporting_stale();
    e.set_target_uid(Uid(ns, name));
    *e.mutable_last_seen_at() = ToProto(clock_.Now() - absl::Minutes(10));
    e.set_stale_after_seconds(600);
    return Append(ReportStream(ns, name), event);
  }

  int64_t Bind(const std::string& ns, const std::string& name, const std::string& release) {
    clock_.Advance(absl::Seconds(1));
    v1::Event event;
    v1::BoundReleasesSet& e = *event.mutable_bound_releases_set();
    e.set_target_uid(Uid(ns, name));
    v1::BoundRelease& bound = *e.add_releases();
    bound.set_name(release);
    bound.set_namespace_("flux-system");
    e.set_bootstrap_version("2.0.0");
    return Append(ReportStream(ns, name), event);
  }

  // One LivenessObserved batch with an entry per (namespace, name, uid).
  int64_t Liveness(const std::vector<std::vector<std::string>>& entries) {
    clock_.Advance(absl::Seconds(1));
    v1::Event event;
    for (const std::vector<std::string>& e : entries) {
      v1::LivenessEntry& entry = *event.mutable_liveness_observed()->add_entries();
      entry.set_namespace_(e[0]);
      entry.set_name(e[1]);
      entry.set_target_uid(e[2]);
      *entry.mutable_received_at() = ToProto(clock_.Now());
      *entry.mutable_last_report_time() = ToProto(clock_.Now());
    }
    return Append(kLivenessStream, event);
  }

  // The report side of a realistic log after RunPhaseOne: reports, bound releases, a stale
  // Target and heartbeat batches.
  void RunReports() {
    Accept(kA, "edge-1", v1::RELEASE_PHASE_READY);
    Accept(kA, "edge-2", v1::RELEASE_PHASE_PROGRESSING);
    Bind(kB, "edge-3", "app");
    Accept(kB, "edge-3", v1::RELEASE_PHASE_DEGRADED, /*rolled_back=*/true);
    Liveness({{kA, "edge-1", Uid(kA, "edge-1")}, {kB, "edge-3", Uid(kB, "edge-3")}});
    Stale(kA, "edge-2");
    Bind(kA, "edge-1", "monitoring");
    Liveness({{kA, "edge-2", Uid(kA, "edge-2")}});
  }

  // Folds every event up to `seq` from seq 1, without snapshots.
  StatusProjection Fold(int64_t seq) {
    StatusProjection projection;
    EXPECT_OK(CatchUp(*store_, seq, projection));
    return projection;
  }

  std::unique_ptr<StatusProjector> Start(size_t change_history = 10000) {
    auto projector = StatusProjector::Start(store_.get(), {.snapshot_every = kSnapshotEvery,
                                                           .change_history = change_history,
                                                           .snapshots = guard_->get()});
    EXPECT_OK(projector);
    return projector.ok() ? *std::move(projector) : nullptr;
  }

  int requests_ = 0;
  // Seals, writes and checks the projector's snapshots.
  std::unique_ptr<testing::TestSnapshotGuard> guard_;
};

std::vector<std::string> Keys(const std::vector<v1::TargetStatus>& statuses) {
  std::vector<std::string> keys;
  for (const v1::TargetStatus& s : statuses) keys.push_back(StatusKey(s.namespace_(), s.name()));
  return keys;
}

TEST_F(StatusProjectionTest, RegistrationsStartRollupsAndCredentialEventsChangeNone) {
  ASSERT_OK(driver_->RunPhaseOne());
  StatusProjection projection;
  std::map<std::string, int> changes;
  for (const store::RecordedEvent& e : AllEvents()) {
    ASSERT_OK_AND_ASSIGN(std::vector<std::string> keys, projection.Apply(e));
    ASSERT_OK_AND_ASSIGN(v1::Event event, store::EventCodec::Default().Decode(e));
    if (event.has_target_registered()) {
      EXPECT_THAT(keys, ElementsAre(StatusKey(event.target_registered().namespace_(),
                                              event.target_registered().name())));
    } else {
      EXPECT_THAT(keys, IsEmpty()) << e.type;
    }
  }
  EXPECT_THAT(Keys(projection.List("")), ElementsAre("fleet-a/edge-1", "fleet-a/edge-2",
                                                     "fleet-b/edge-3", "fleet-b/edge-4"));
  std::optional<v1::TargetStatus> edge1 = projection.Get(kA, "edge-1");
  ASSERT_TRUE(edge1.has_value());
  EXPECT_EQ(edge1->target_uid(), "11111111-1111-4111-8111-111111111111");
  EXPECT_EQ(edge1->reporting().status(), "Unknown");
  EXPECT_EQ(projection.Get(kA, "edge-9"), std::nullopt);
}

// A rollup is keyed by the stream its events are on, "target/<namespace>/<name>" or
// "report/<namespace>/<name>"; a stream that names no single Target is passed over.
TEST(StatusProjectionStreamTest, ARollupIsKeyedByItsStreamAndOtherStreamsArePassedOver) {
  v1::Event registered;
  registered.mutable_target_registered()->set_namespace_("a");
  registered.mutable_target_registered()->set_name("x");
  registered.mutable_target_registered()->set_target_uid("uid-1");
  StatusProjection projection;
  int64_t seq = 0;
  for (const char* stream : {"target/a/x/y", "target/a", "targets/a/x", "identity/a/x"}) {
    SCOPED_TRACE(stream);
    ++seq;
    ASSERT_OK_AND_ASSIGN(std::vector<std::string> changed,
                         projection.Apply(::credledger::testing::StoredEvent(
                             seq, stream, 1, seq * 1000000, registered)));
    EXPECT_THAT(changed, IsEmpty());
  }
  EXPECT_FALSE(projection.Get("a", "x").has_value());
  ++seq;
  ASSERT_OK_AND_ASSIGN(std::vector<std::string> changed,
                       projection.Apply(::credledger::testing::StoredEvent(
                           seq, "target/b/y", 1, seq * 1000000, registered)));
  EXPECT_THAT(changed, ElementsAre("b/y"));
  EXPECT_TRUE(projection.GetKey("b/y").has_value());
  EXPECT_TRUE(projection.Get("b", "y").has_value());
  EXPECT_FALSE(projection.Get("a", "x").has_value());
}

TEST_F(StatusProjectionTest, AReportEventChangesOnlyItsOwnTarget) {
  ASSERT_OK(driver_->RunPhaseOne());
  StatusProjection projection = Fold(store_->HeadSeq());
  const int64_t seq = Accept(kB, "edge-4", v1::RELEASE_PHASE_READY);
  std::vector<store::RecordedEvent> all = AllEvents();
  ASSERT_OK_AND_ASSIGN(std::vector<std::string> keys, projection.Apply(all.back()));
  EXPECT_THAT(keys, ElementsAre("fleet-b/edge-4"));
  EXPECT_EQ(projection.seq(), seq);
  EXPECT_EQ(projection.Get(kB, "edge-4")->reporting().status(), "True");
  EXPECT_EQ(projection.Get(kB, "edge-4")->last_seq(), seq);
  EXPECT_EQ(projection.Get(kB, "edge-3")->reporting().status(), "Unknown");
}

TEST_F(StatusProjectionTest, LivenessFansOutToEveryListedTargetOfTheListedIncarnation) {
  ASSERT_OK(driver_->RunPhaseOne());
  Accept(kA, "edge-1", v1::RELEASE_PHASE_READY);
  Accept(kB, "edge-4", v1::RELEASE_PHASE_READY);
  Accept(kA, "edge-2", v1::RELEASE_PHASE_READY);
  StatusProjection projection = Fold(store_->HeadSeq());
  const v1::TargetStatus edge2_before = *projection.Get(kA, "edge-2");

  // edge-2's entry names another incarnation and ghost was never registered: neither
  // changes; the batch's other entries do, reported in key order.
  const int64_t seq = Liveness({{kB, "edge-4", Uid(kB, "edge-4")},
                                {kA, "edge-1", Uid(kA, "edge-1")},
                                {kA, "edge-2", "22222222-2222-4222-8222-000000000000"},
                                {kA, "ghost", "99999999-9999-4999-8999-999999999999"}});
  ASSERT_OK_AND_ASSIGN(std::vector<std::string> keys, projection.Apply(AllEvents().back()));
  EXPECT_THAT(keys, ElementsAre("fleet-a/edge-1", "fleet-b/edge-4"));
  const v1::TargetStatus edge1 = *projection.Get(kA, "edge-1");
  EXPECT_EQ(edge1.last_seq(), seq);
  EXPECT_EQ(FromProto(edge1.last_seen_at()), clock_.Now());
  EXPECT_EQ(projection.Get(kB, "edge-4")->last_seq(), seq);
  EXPECT_EQ(projection.Get(kA, "edge-2")->SerializeAsString(), edge2_before.SerializeAsString());
  EXPECT_EQ(projection.Get(kA, "ghost"), std::nullopt);
}

TEST_F(StatusProjectionTest, FinalizedTargetsLeaveTheListButStayReadable) {
  ASSERT_OK(driver_->RunPhaseOne());
  ASSERT_OK(driver_->RunPhaseTwo());  // edge-2 re-registered, edge-3 finalized
  StatusProjection projection = Fold(store_->HeadSeq());
  EXPECT_THAT(Keys(projection.List(kB)), ElementsAre("fleet-b/edge-4"));
  std::optional<v1::TargetStatus> edge3 = projection.Get(kB, "edge-3");
  ASSERT_TRUE(edge3.has_value());
  EXPECT_FALSE(edge3->active());
  EXPECT_EQ(projection.Get(kA, "edge-2")->target_uid(), "22222222-2222-4222-8222-bbbbbbbbbbbb");
}

TEST_F(StatusProjectionTest, ListOrdersByNamespaceThenNameAndFiltersByNamespace) {
  // "a-b/x" sorts before "a/x" as a string; by namespace "a" comes first.
  ASSERT_OK(driver_->SetCredentialsEnabled(true));
  struct Registration {
    const char* ns;
    const char* name;
    const char* uid;
  };
  for (const Registration& r : {Registration{"a-b", "x", "aaaaaaaa-0000-4000-8000-000000000001"},
                                Registration{"a", "y", "aaaaaaaa-0000-4000-8000-000000000002"},
                                Registration{"a", "x", "aaaaaaaa-0000-4000-8000-000000000003"}}) {
    ASSERT_OK(driver_->Do(r.ns, r.name, service::RegisterTarget{r.uid, true}).status());
  }
  StatusProjection projection = Fold(store_->HeadSeq());
  EXPECT_THAT(Keys(projection.List("")), ElementsAre("a/x", "a/y", "a-b/x"));
  EXPECT_THAT(Keys(projection.List("a")), ElementsAre("a/x", "a/y"));
  EXPECT_THAT(Keys(projection.List("b")), IsEmpty());
}

TEST_F(StatusProjectionTest, SilentSinceListsReportedTargetsSeenByTheCutoffAndNotStale) {
  ASSERT_OK(driver_->RunPhaseOne());
  Accept(kA, "edge-1", v1::RELEASE_PHASE_READY);
  const absl::Time edge1_seen = clock_.Now();
  Accept(kA, "edge-2", v1::RELEASE_PHASE_READY);
  Stale(kA, "edge-2");
  Accept(kB, "edge-3", v1::RELEASE_PHASE_READY);
  const absl::Time edge3_seen = clock_.Now();
  StatusProjection projection = Fold(store_->HeadSeq());

  // edge-4 never reported (Reporting stays Unknown); edge-2 is already stale.
  std::vector<SilentTarget> silent = projection.SilentSince(edge3_seen - absl::Microseconds(1));
  ASSERT_EQ(silent.size(), 1u);
  EXPECT_EQ(silent[0].target_namespace, kA);
  EXPECT_EQ(silent[0].name, "edge-1");
  EXPECT_EQ(silent[0].last_seen_at, edge1_seen);
  EXPECT_EQ(projection.SilentSince(edge3_seen).size(), 2u);
}

// The Reporting tally behind the stale-Targets metric (docs/operations.md), counted while
// folding, equals a recount of the active rollups after every event, also when the fold
// goes through a snapshot.
TEST_F(StatusProjectionTest, ReportingCountsMatchARecountAfterEveryEventAndAfterASnapshot) {
  ASSERT_OK(driver_->RunPhaseOne());
  RunReports();
  ASSERT_OK(driver_->RunPhaseTwo());
  ASSERT_OK(driver_->RunPhaseThree());
  auto nonzero = [](const ConditionTally::Counts& counts) {
    ConditionTally::Counts out;
    for (const auto& [key, n] : counts) {
      if (n != 0) out[key] = n;
    }
    return out;
  };
  StatusProjection projection;
  int64_t most_stale = 0;
  for (const store::RecordedEvent& e : AllEvents()) {
    ASSERT_OK(projection.Apply(e));
    ConditionTally::Counts recount;
    for (const v1::TargetStatus& s : projection.List("")) {
      ++recount[{s.reporting().status(), s.reporting().reason()}];
    }
    ASSERT_EQ(nonzero(projection.reporting().counts()), recount) << "after seq " << e.seq;
    ASSERT_OK_AND_ASSIGN(StatusProjection copy,
                         StatusProjection::Deserialize(projection.Serialize()));
    ASSERT_EQ(nonzero(copy.reporting().counts()), recount) << "snapshot at seq " << e.seq;
    most_stale = std::max(most_stale, projection.reporting().Count("False", "Stale"));
  }
  // RunReports made edge-2 stale, then a heartbeat made it report again.
  EXPECT_EQ(most_stale, 1);
  EXPECT_EQ(projection.reporting().Count("False", "Stale"), 0);
}

TEST_F(StatusProjectionTest, TheProjectorCountsStaleTargets) {
  ASSERT_OK(driver_->RunPhaseOne());
  Accept(kA, "edge-1", v1::RELEASE_PHASE_READY);
  Accept(kA, "edge-2", v1::RELEASE_PHASE_READY);
  Stale(kA, "edge-1");
  Stale(kA, "edge-2");
  std::unique_ptr<StatusProjector> projector = Start();
  ASSERT_NE(projector, nullptr);
  EXPECT_EQ(projector->StaleTargets(), 2);
  const int64_t seq = Liveness({{kA, "edge-2", Uid(kA, "edge-2")}});
  ASSERT_TRUE(projector->WaitForSeq(seq, kWait));
  EXPECT_EQ(projector->StaleTargets(), 1);
}

TEST_F(StatusProjectionTest, AnEventOutOfOrderIsDataLossAndChangesNothing) {
  ASSERT_OK(driver_->RunPhaseOne());
  std::vector<store::RecordedEvent> all = AllEvents();
  StatusProjection projection;
  ASSERT_OK(projection.Apply(all[0]));
  EXPECT_THAT(projection.Apply(all[2]), StatusIs(absl::StatusCode::kDataLoss));
  EXPECT_EQ(projection.seq(), 1);
}

TEST_F(StatusProjectionTest, SerializeRoundTripsAndRejectsGarbage) {
  ASSERT_OK(driver_->RunPhaseOne());
  RunReports();
  StatusProjection projection = Fold(store_->HeadSeq());
  ASSERT_OK_AND_ASSIGN(StatusProjection copy,
                       StatusProjection::Deserialize(projection.Serialize()));
  EXPECT_EQ(copy.Serialize(), projection.Serialize());
  EXPECT_EQ(copy.seq(), projection.seq());
  EXPECT_THAT(Keys(copy.List("")), ElementsAre("fleet-a/edge-1", "fleet-a/edge-2",
                                               "fleet-b/edge-3", "fleet-b/edge-4"));
  EXPECT_THAT(StatusProjection::Deserialize("\xff\xff garbage"),
              StatusIs(absl::StatusCode::kDataLoss));
}

TEST_F(StatusProjectionTest, ProjectorSnapshotsAsOfAndRebuildAgreeByteForByte) {
  std::unique_ptr<StatusProjector> projector = Start();
  ASSERT_NE(projector, nullptr);
  ASSERT_OK(driver_->RunPhaseOne());
  RunReports();
  ASSERT_OK(driver_->RunPhaseTwo());
  Accept(kA, "edge-2", v1::RELEASE_PHASE_FAILED);
  Liveness({{kA, "edge-1", Uid(kA, "edge-1")}, {kA, "edge-2", Uid(kA, "edge-2")}});
  const int64_t head = store_->HeadSeq();
  ASSERT_TRUE(projector->WaitForSeq(head, kWait));
  ASSERT_OK(projector->status());

  // Every snapshot the live projector wrote holds the bytes of a fold from seq 1.
  int snapshots = 0;
  for (int64_t seq = kSnapshotEvery; seq <= head; seq += kSnapshotEvery) {
    ASSERT_OK_AND_ASSIGN(std::optional<store::Snapshot> snapshot,
                         store_->LoadSnapshot(kStatusProjectionName, seq));
    ASSERT_TRUE(snapshot.has_value());
    ASSERT_EQ(snapshot->seq, seq);
    EXPECT_EQ(snapshot->schema_version, kStatusProjectionVersion);
    EXPECT_EQ(snapshot->state, Fold(seq).Serialize()) << "snapshot at seq " << seq;
    ++snapshots;
  }
  EXPECT_GT(snapshots, 10);

  // Snapshot + tail (as-of) gives the bytes of the full fold, at the head and in between.
  const StatusProjection full = Fold(head);
  ASSERT_OK_AND_ASSIGN(StatusProjection as_of,
                       StatusProjector::AsOf(store_.get(), head, guard_->get()));
  EXPECT_EQ(as_of.Serialize(), full.Serialize());
  ASSERT_OK_AND_ASSIGN(StatusProjection earlier,
                       StatusProjector::AsOf(store_.get(), head - 3, guard_->get()));
  EXPECT_EQ(earlier.Serialize(), Fold(head - 3).Serialize());

  // The live reads agree with the fold.
  int64_t seq = 0;
  std::vector<v1::TargetStatus> live = projector->List("", &seq);
  EXPECT_EQ(seq, head);
  std::vector<v1::TargetStatus> folded = full.List("");
  ASSERT_EQ(live.size(), folded.size());
  for (size_t i = 0; i < live.size(); ++i) {
    EXPECT_EQ(live[i].SerializeAsString(), folded[i].SerializeAsString());
  }
  EXPECT_EQ(projector->Get(kB, "edge-3")->SerializeAsString(),
            full.Get(kB, "edge-3")->SerializeAsString());

  // A restarted projector starts from the newest snapshot and reaches the same state.
  projector.reset();
  std::unique_ptr<StatusProjector> restarted = Start();
  ASSERT_NE(restarted, nullptr);
  EXPECT_EQ(restarted->seq(), head);
  live = restarted->List("", &seq);
  ASSERT_EQ(live.size(), folded.size());
  for (size_t i = 0; i < live.size(); ++i) {
    EXPECT_EQ(live[i].SerializeAsString(), folded[i].SerializeAsString());
  }
}

TEST_F(StatusProjectionTest, ListenersGetOneChangePerFannedOutTargetAtTheBatchSeq) {
  ASSERT_OK(driver_->RunPhaseOne());
  Accept(kA, "edge-1", v1::RELEASE_PHASE_READY);
  Accept(kB, "edge-3", v1::RELEASE_PHASE_READY);
  std::unique_ptr<StatusProjector> projector = Start();
  ASSERT_NE(projector, nullptr);
  const int64_t start = projector->seq();

  absl::Mutex mu;
  std::vector<StatusChange> seen;
  int listener = 0;
  ASSERT_OK_AND_ASSIGN(std::vector<StatusChange> missed,
                       projector->Listen(start, &listener, [&](const StatusChange& c) {
                         absl::MutexLock lock(&mu);
                         seen.push_back(c);
                       }));
  EXPECT_THAT(missed, IsEmpty());
  const int64_t batch =
      Liveness({{kA, "edge-1", Uid(kA, "edge-1")}, {kB, "edge-3", Uid(kB, "edge-3")}});
  const int64_t report = Accept(kA, "edge-2", v1::RELEASE_PHASE_READY);
  ASSERT_TRUE(projector->WaitForSeq(report, kWait));
  projector->RemoveListener(listener);
  Accept(kB, "edge-4", v1::RELEASE_PHASE_READY);
  ASSERT_TRUE(projector->WaitForSeq(store_->HeadSeq(), kWait));

  std::vector<StatusChange> got;
  {
    absl::MutexLock lock(&mu);
    got = seen;
  }
  ASSERT_EQ(got.size(), 3u);
  EXPECT_EQ(got[0].seq, batch);
  EXPECT_EQ(got[0].state.name(), "edge-1");
  EXPECT_EQ(got[1].seq, batch);
  EXPECT_EQ(got[1].state.name(), "edge-3");
  EXPECT_EQ(got[2].seq, report);
  EXPECT_EQ(got[2].state.name(), "edge-2");
  EXPECT_EQ(got[2].state.reporting().status(), "True");

  // The same changes come back from the history for a watcher resuming after `start`.
  ASSERT_OK_AND_ASSIGN(std::vector<StatusChange> replayed,
                       projector->Listen(start, &listener, [](const StatusChange&) {}));
  ASSERT_EQ(replayed.size(), 4u);
  EXPECT_EQ(replayed[0].seq, batch);
  EXPECT_EQ(replayed[3].state.name(), "edge-4");
  EXPECT_THAT(projector->Listen(start - 1, &listener, [](const StatusChange&) {}),
              StatusIs(absl::StatusCode::kOutOfRange));
}

}  // namespace status_projection_test
}  // namespace credledger::projections
