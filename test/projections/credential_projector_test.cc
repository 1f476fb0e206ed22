// Tests of the projector that follows the log (docs/design.md, "Snapshots" and "As-of replay"):
// the incremental path, as-of replay and snapshot restarts all give the bytes of a full rebuild
// from seq 1; snapshots are written every K events; watchers resume by seq until the kept
// history runs out. The log is written by TargetCommandBus and bridge outcome commands on a
// real SQLite store.
#include "projections/credential_projector.h"

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/match.h"
#include "absl/synchronization/mutex.h"
#include "absl/synchronization/notification.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "projections/status_projector.h"
#include "projections/target_state.h"
#include "store/event_codec.h"
#include "store/sqlite_event_store.h"
#include "test/projections/fleet_log.h"
#include "test/support/status_matchers.h"
#include "test/support/test_snapshot_guard.h"

namespace credledger::projections {
namespace credential_projector_test {

using ::credledger::testing::StatusIs;
using ::testing::IsEmpty;

constexpr int64_t kSnapshotEvery = 7;
constexpr absl::Duration kWait = absl::Seconds(30);  // only reached when a test fails

// The live projector's fleet in the form of CredentialProjection::Serialize.
std::string ProjectorBytes(const CredentialProjector& projector) {
  v1::CredentialFleetState fleet;
  int64_t seq = 0;
  for (v1::TargetState& t : projector.List("", /*include_finalized=*/true, &seq)) {
    *fleet.add_targets() = std::move(t);
  }
  *fleet.mutable_service() = projector.service();
  fleet.set_seq(seq);
  return store::SerializeDeterministic(fleet);
}

class CredentialProjectorTest : public testing::FleetLogTest {
 protected:
  void SetUp() override {
    FleetLogTest::SetUp();
    ASSERT_OK_AND_ASSIGN(guard_, testing::TestSnapshotGuard::Create());
  }

  std::unique_ptr<CredentialProjector> Start(size_t change_history = 10000) {
    auto projector = CredentialProjector::Start(store_.get(), {.snapshot_every = kSnapshotEvery,
                                                               .change_history = change_history,
                                                               .snapshots = guard_->get()});
    EXPECT_OK(projector);
    return projector.ok() ? *std::move(projector) : nullptr;
  }

  // Waits until `projector` folded the head and is still following.
  void CatchUp(const CredentialProjector& projector) {
    ASSERT_TRUE(projector.WaitForSeq(store_->HeadSeq(), kWait));
    ASSERT_OK(projector.status());
  }

  // Runs phases one and two with a projector following, which writes credential snapshots,
  // so that AsOf starts from a snapshot, not from seq 1 (a fatal failure when none is there).
  void RunPhasesWithSnapshots() {
    {
      std::unique_ptr<CredentialProjector> projector = Start();
      ASSERT_NE(projector, nullptr);
      ASSERT_OK(driver_->RunPhaseOne());
      ASSERT_OK(driver_->RunPhaseTwo());
      CatchUp(*projector);
    }
    ASSERT_OK_AND_ASSIGN(std::optional<store::Snapshot> snapshot,
                         store_->LoadSnapshot(kCredentialProjectionName, store_->HeadSeq()));
    ASSERT_TRUE(snapshot.has_value());
  }

  std::string RebuildBytes(int64_t seq) {
    auto rebuilt = testing::FoldFromSeqOne(*store_, seq);
    EXPECT_OK(rebuilt);
    return rebuilt.ok() ? rebuilt->Serialize() : "";
  }

  // Seals, writes and checks the projectors' snapshots.
  std::unique_ptr<testing::TestSnapshotGuard> guard_;
};

// The projector with its protected parts opened, to hold a read inside the lock.
class OpenProjector : public Projector<CredentialProjection> {
 public:
  explicit OpenProjector(store::EventStore* store) : Projector(store, {}) {}
  using Projector::Follow;
  using Projector::Read;
};

// Reads share the projector's lock: a read still inside it does not hold up another one.
TEST_F(CredentialProjectorTest, ReadsDoNotWaitForEachOther) {
  OpenProjector projector(store_.get());
  ASSERT_OK(projector.Follow());
  absl::Notification first_inside, release_first, second_done;
  std::thread first([&] {
    projector.Read([&](const CredentialProjection&) {
      first_inside.Notify();
      release_first.WaitForNotificationWithTimeout(kWait);
      return 0;
    });
  });
  ASSERT_TRUE(first_inside.WaitForNotificationWithTimeout(kWait));
  std::thread second([&] {
    projector.Read([](const CredentialProjection& p) { return p.seq(); });
    second_done.Notify();
  });
  // With an exclusive lock the second read would wait for the first one's release.
  EXPECT_TRUE(second_done.WaitForNotificationWithTimeout(absl::Seconds(10)));
  release_first.Notify();
  first.join();
  second.join();
}

TEST_F(CredentialProjectorTest, TheIncrementalProjectorMatchesAFullRebuildByteForByte) {
  std::unique_ptr<CredentialProjector> projector = Start();
  ASSERT_NE(projector, nullptr);
  ASSERT_OK(driver_->RunPhaseOne());
  ASSERT_OK(driver_->RunPhaseTwo());
  ASSERT_OK(driver_->RunPhaseThree());
  CatchUp(*projector);

  const int64_t head = store_->HeadSeq();
  const std::string rebuilt = RebuildBytes(head);
  EXPECT_EQ(ProjectorBytes(*projector), rebuilt);
  ASSERT_OK_AND_ASSIGN(CredentialProjection as_of,
                       CredentialProjector::AsOf(store_.get(), head, guard_->get()));
  EXPECT_EQ(as_of.Serialize(), rebuilt);
}

TEST_F(CredentialProjectorTest, AsOfEveryEarlierSeqEqualsAFoldUpToThatSeq) {
  ASSERT_NO_FATAL_FAILURE(RunPhasesWithSnapshots());
  const int64_t head = store_->HeadSeq();
  for (int64_t seq = 0; seq <= head; ++seq) {
    SCOPED_TRACE(seq);
    ASSERT_OK_AND_ASSIGN(CredentialProjection as_of,
                         CredentialProjector::AsOf(store_.get(), seq, guard_->get()));
    EXPECT_EQ(as_of.seq(), seq);
    EXPECT_EQ(as_of.Serialize(), RebuildBytes(seq));
  }
  ASSERT_OK_AND_ASSIGN(CredentialProjection early,
                       CredentialProjector::AsOf(store_.get(), 10, guard_->get()));
  EXPECT_NE(early.Serialize(), RebuildBytes(head));
}

// Both projections folded side by side in one pass are, at every seq, what each one's own
// AsOf gives, also when they start from different snapshots (here the credential projection
// from its snapshots and the status projection, which has none, from seq 1).
TEST_F(CredentialProjectorTest, AsOfTogetherEqualsEachProjectionsOwnAsOf) {
  ASSERT_NO_FATAL_FAILURE(RunPhasesWithSnapshots());
  const int64_t head = store_->HeadSeq();
  ASSERT_OK_AND_ASSIGN(std::optional<store::Snapshot> no_snapshot,
                       store_->LoadSnapshot(kStatusProjectionName, head));
  ASSERT_FALSE(no_snapshot.has_value());

  for (int64_t seq = 0; seq <= head; ++seq) {
    SCOPED_TRACE(seq);
    auto together =
        AsOfTogether<CredentialProjection, StatusProjection>(store_.get(), seq, guard_->get());
    ASSERT_OK(together);
    ASSERT_OK_AND_ASSIGN(CredentialProjection credentials,
                         CredentialProjector::AsOf(store_.get(), seq, guard_->get()));
    ASSERT_OK_AND_ASSIGN(StatusProjection statuses,
                         StatusProjector::AsOf(store_.get(), seq, guard_->get()));
    EXPECT_EQ(together->first.seq(), seq);
    EXPECT_EQ(together->second.seq(), seq);
    EXPECT_EQ(together->first.Serialize(), credentials.Serialize());
    EXPECT_EQ(together->second.Serialize(), statuses.Serialize());
  }
}

TEST_F(CredentialProjectorTest, AsOfATimeIsTheStateAfterTheLastEventRecordedAtOrBeforeIt) {
  ASSERT_OK(driver_->RunPhaseOne());
  const std::vector<store::RecordedEvent> events = AllEvents();
  const store::RecordedEvent& e = events[20];
  const store::RecordedEvent& next = events[21];
  ASSERT_LT(e.recorded_at_us + 1, next.recorded_at_us);  // the fake clock steps a second
  for (int64_t t : {e.recorded_at_us, e.recorded_at_us + 1, next.recorded_at_us - 1}) {
    ASSERT_OK_AND_ASSIGN(int64_t seq, store_->SeqAtTime(t));
    EXPECT_EQ(seq, e.seq);
    ASSERT_OK_AND_ASSIGN(CredentialProjection as_of,
                         CredentialProjector::AsOf(store_.get(), seq, guard_->get()));
    EXPECT_EQ(as_of.Serialize(), RebuildBytes(e.seq));
  }
}

TEST_F(CredentialProjectorTest, SnapshotsAreWrittenEveryKEventsAndHoldTheStateAtTheirSeq) {
  {
    std::unique_ptr<CredentialProjector> projector = Start();
    ASSERT_OK(driver_->RunPhaseOne());
    ASSERT_OK(driver_->RunPhaseTwo());
    CatchUp(*projector);
  }  // stopping the projector finishes its last snapshot write
  const int64_t head = store_->HeadSeq();
  ASSERT_GT(head, 4 * kSnapshotEvery);
  for (int64_t seq = 1; seq <= head; ++seq) {
    SCOPED_TRACE(seq);
    ASSERT_OK_AND_ASSIGN(std::optional<store::Snapshot> snapshot,
                         store_->LoadSnapshot(kCredentialProjectionName, seq));
    const int64_t expected_seq = seq / kSnapshotEvery * kSnapshotEvery;
    if (expected_seq == 0) {
      EXPECT_FALSE(snapshot.has_value());
      continue;
    }
    ASSERT_TRUE(snapshot.has_value());
    EXPECT_EQ(snapshot->seq, expected_seq);
    EXPECT_EQ(snapshot->schema_version, kCredentialProjectionVersion);
    if (seq == expected_seq) {
      EXPECT_EQ(snapshot->state, RebuildBytes(seq));
    }
  }
}

TEST_F(CredentialProjectorTest, ARestartedProjectorStartsFromTheNewestSnapshotAndReachesTheSameBytes) {
  {
    std::unique_ptr<CredentialProjector> projector = Start();
    ASSERT_OK(driver_->RunPhaseOne());
    ASSERT_OK(driver_->RunPhaseTwo());
    CatchUp(*projector);
  }
  ASSERT_OK(driver_->RunPhaseThree());  // written while no projector runs

  std::unique_ptr<CredentialProjector> restarted = Start();
  ASSERT_NE(restarted, nullptr);
  EXPECT_EQ(restarted->seq(), store_->HeadSeq());  // caught up synchronously in Start
  EXPECT_EQ(ProjectorBytes(*restarted), RebuildBytes(store_->HeadSeq()));

  // And it follows on from there.
  ASSERT_OK(driver_->Do("fleet-a", "edge-1", service::RequestRotation{"after-restart"}));
  ASSERT_OK(driver_->Reconcile("fleet-a", "edge-1"));
  CatchUp(*restarted);
  EXPECT_EQ(ProjectorBytes(*restarted), RebuildBytes(store_->HeadSeq()));
}

TEST_F(CredentialProjectorTest, ARestartedProjectorLoadsTheSnapshotInsteadOfReplayingTheLog) {
  {
    std::unique_ptr<CredentialProjector> projector = Start();
    ASSERT_OK(driver_->RunPhaseOne());
    ASSERT_OK(driver_->RunPhaseTwo());
    ASSERT_OK(driver_->RunPhaseThree());
    CatchUp(*projector);
  }
  // Mark the newest snapshot so that only a projector that loaded it can show the mark, and
  // seal it again as the service would.
  ASSERT_OK_AND_ASSIGN(std::optional<store::Snapshot> newest,
                       store_->LoadSnapshot(kCredentialProjectionName, store_->HeadSeq()));
  ASSERT_TRUE(newest.has_value());
  v1::CredentialFleetState fleet;
  ASSERT_TRUE(fleet.ParseFromString(newest->state));
  fleet.mutable_service()->set_agent_apiserver_url("https://marked-by-the-test.example");
  newest->state = store::SerializeDeterministic(fleet);
  ASSERT_OK(guard_->get()->Save(*store_, *newest, newest->chain_hash));

  std::unique_ptr<CredentialProjector> restarted = Start();
  ASSERT_NE(restarted, nullptr);
  EXPECT_EQ(restarted->service().agent_apiserver_url(), "https://marked-by-the-test.example");
  EXPECT_EQ(restarted->seq(), store_->HeadSeq());
}

TEST_F(CredentialProjectorTest, ListenReturnsEveryTargetChangeAfterASeq) {
  std::unique_ptr<CredentialProjector> projector = Start();
  ASSERT_NE(projector, nullptr);
  ASSERT_OK(driver_->RunPhaseOne());
  ASSERT_OK(driver_->RunPhaseTwo());
  CatchUp(*projector);

  // Resume from just before credentials were disabled, so the span includes configuration
  // changes that change every Target's condition.
  int64_t after = 0;
  int configured = 0;
  for (const store::RecordedEvent& e : AllEvents()) {
    if (e.stream == "service" && ++configured == 2) after = e.seq - 1;
  }
  ASSERT_GT(after, 0);

  int listener = 0;
  ASSERT_OK_AND_ASSIGN(std::vector<TargetChange> changes,
                       projector->Listen(after, &listener, [](const TargetChange&) {}));
  projector->RemoveListener(listener);
  ASSERT_FALSE(changes.empty());

  // Every change is the Target's state as of its seq, in seq order.
  int64_t last_seq = after;
  for (const TargetChange& c : changes) {
    SCOPED_TRACE(c.seq);
    EXPECT_GT(c.seq, after);
    EXPECT_GE(c.seq, last_seq);
    last_seq = c.seq;
    ASSERT_OK_AND_ASSIGN(CredentialProjection as_of,
                         CredentialProjector::AsOf(store_.get(), c.seq, guard_->get()));
    std::optional<v1::TargetState> expected =
        as_of.Get(c.state.namespace_(), c.state.name());
    ASSERT_TRUE(expected.has_value());
    EXPECT_EQ(store::SerializeDeterministic(c.state), store::SerializeDeterministic(*expected));
  }

  // A watcher that applies the changes to the list as of `after` holds, after the changes up
  // to each seq, exactly the list as of that seq: no change is missed on the way.
  auto fleet_at = [&](int64_t seq) {
    std::map<std::string, std::string> fleet;
    absl::StatusOr<CredentialProjection> as_of =
        CredentialProjector::AsOf(store_.get(), seq, guard_->get());
    EXPECT_OK(as_of);
    if (!as_of.ok()) return fleet;
    for (const v1::TargetState& t : as_of->List("", true)) {
      fleet[TargetStream(t.namespace_(), t.name())] = store::SerializeDeterministic(t);
    }
    return fleet;
  };
  std::map<std::string, std::string> watcher = fleet_at(after);
  auto next = changes.begin();
  for (int64_t seq = after + 1; seq <= store_->HeadSeq(); ++seq) {
    for (; next != changes.end() && next->seq == seq; ++next) {
      watcher[TargetStream(next->state.namespace_(), next->state.name())] =
          store::SerializeDeterministic(next->state);
    }
    ASSERT_EQ(watcher, fleet_at(seq)) << "after the changes up to seq " << seq;
  }
  EXPECT_EQ(next, changes.end());
}

TEST_F(CredentialProjectorTest, ListenHandsLaterChangesToTheListenerUntilRemoved) {
  std::unique_ptr<CredentialProjector> projector = Start();
  ASSERT_NE(projector, nullptr);
  ASSERT_OK(driver_->RunPhaseOne());
  CatchUp(*projector);

  absl::Mutex mu;
  std::vector<TargetChange> seen;
  int listener = 0;
  ASSERT_OK_AND_ASSIGN(std::vector<TargetChange> missed,
                       projector->Listen(store_->HeadSeq(), &listener,
                                         [&](const TargetChange& c) {
                                           absl::MutexLock lock(&mu);
                                           seen.push_back(c);
                                         }));
  EXPECT_THAT(missed, IsEmpty());

  ASSERT_OK_AND_ASSIGN(service::CommandResult rotated,
                       driver_->Do("fleet-a", "edge-1", service::RequestRotation{"live"}));
  ASSERT_EQ(rotated.events.size(), 2u);  // RotationRequested, CredentialMintRequested
  CatchUp(*projector);
  {
    absl::MutexLock lock(&mu);
    ASSERT_EQ(seen.size(), 2u);
    EXPECT_EQ(seen[0].seq, rotated.events[0].seq);
    EXPECT_EQ(seen[1].seq, rotated.events[1].seq);
    EXPECT_EQ(seen[1].state.name(), "edge-1");
    EXPECT_EQ(seen[1].state.pending_request_value(), "live");
    EXPECT_TRUE(seen[1].state.has_open_attempt());
  }

  projector->RemoveListener(listener);
  ASSERT_OK(driver_->Reconcile("fleet-a", "edge-1"));
  CatchUp(*projector);
  absl::MutexLock lock(&mu);
  EXPECT_EQ(seen.size(), 2u);
}

TEST_F(CredentialProjectorTest, ListenIsOutOfRangeOnceTheChangesAreNoLongerKept) {
  constexpr size_t kKept = 5;
  std::unique_ptr<CredentialProjector> projector = Start(kKept);
  ASSERT_NE(projector, nullptr);
  ASSERT_OK(driver_->RunPhaseOne());
  ASSERT_OK(driver_->RunPhaseTwo());
  ASSERT_OK(driver_->RunPhaseThree());
  CatchUp(*projector);

  // Phase three changes no configuration: its last changes are one per Target event.
  std::vector<int64_t> change_seqs;
  for (const store::RecordedEvent& e : AllEvents()) {
    if (absl::StartsWith(e.stream, "target/")) change_seqs.push_back(e.seq);
  }
  ASSERT_GT(change_seqs.size(), kKept + 1);
  const int64_t last_forgotten = change_seqs[change_seqs.size() - kKept - 1];

  int listener = 0;
  ASSERT_OK_AND_ASSIGN(std::vector<TargetChange> kept,
                       projector->Listen(last_forgotten, &listener, [](const TargetChange&) {}));
  projector->RemoveListener(listener);
  ASSERT_EQ(kept.size(), kKept);
  EXPECT_EQ(kept.front().seq, change_seqs[change_seqs.size() - kKept]);
  EXPECT_EQ(kept.back().seq, change_seqs.back());

  EXPECT_THAT(projector->Listen(last_forgotten - 1, &listener, [](const TargetChange&) {}),
              StatusIs(absl::StatusCode::kOutOfRange));
  EXPECT_THAT(projector->Listen(0, &listener, [](const TargetChange&) {}),
              StatusIs(absl::StatusCode::kOutOfRange));
}

TEST_F(CredentialProjectorTest, ListenForChangesBeforeTheProjectorStartedIsOutOfRange) {
  ASSERT_OK(driver_->RunPhaseOne());
  std::unique_ptr<CredentialProjector> projector = Start();
  ASSERT_NE(projector, nullptr);
  const int64_t head = store_->HeadSeq();

  int listener = 0;
  EXPECT_THAT(projector->Listen(head - 1, &listener, [](const TargetChange&) {}),
              StatusIs(absl::StatusCode::kOutOfRange));
  ASSERT_OK_AND_ASSIGN(std::vector<TargetChange> none,
                       projector->Listen(head, &listener, [](const TargetChange&) {}));
  EXPECT_THAT(none, IsEmpty());
  projector->RemoveListener(listener);
}

}  // namespace credential_projector_test
}  // namespace credledger::projections
