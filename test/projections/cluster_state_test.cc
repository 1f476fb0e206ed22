// Tests of the cluster fold and read model (docs/connections.md, "Error classes" and "Probes
// and the Reachable condition"): given the events of cluster streams, the state, its Reachable
// condition and its transitions; the projection's reads, snapshots, and the projector on a real
// log matching a full rebuild byte for byte.
#include "projections/cluster_state.h"

#include <memory>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "absl/strings/str_cat.h"
#include "common/clock.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "projections/cluster_projection.h"
#include "projections/cluster_projector.h"
#include "projections/proto_time.h"
#include "store/event_codec.h"
#include "store/sqlite_event_store.h"
#include "test/service/cluster_fixtures.h"
#include "test/support/recorded_events.h"
#include "test/support/status_matchers.h"
#include "test/support/temp_dir.h"
#include "test/support/test_snapshot_guard.h"

namespace credledger::service {
namespace cluster_state_test {

using ::credledger::testing::StatusIs;
using projections::ClusterProjection;
using projections::ClusterProjector;
using projections::EvolveCluster;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using v1::ClusterState;
using v1::Event;

const absl::Time kT0 = absl::FromUnixSeconds(1767225600);

// The time of the event at stream version `version` in Fold.
absl::Time At(int64_t version) { return kT0 + absl::Minutes(version); }

// Folds `events` as one stream: event i at seq i + 1, stream version i, time At(i).
ClusterState Fold(const std::vector<Event>& events) {
  ClusterState state;
  for (size_t i = 0; i < events.size(); ++i) {
    const int64_t version = static_cast<int64_t>(i);
    EvolveCluster(state, events[i], {version + 1, version, At(version)});
  }
  return state;
}

int64_t Seconds(absl::Time t) { return absl::ToUnixSeconds(t); }

// --- The fold ---

TEST(ClusterStateTest, ARegistrationStartsActiveWithReachableUnknownUntilTheFirstProbe) {
  const ClusterState state = Fold({Registered("edge-1", TokenSpec())});
  EXPECT_EQ(state.name(), "edge-1");
  EXPECT_EQ(state.phase(), ClusterState::PHASE_ACTIVE);
  EXPECT_EQ(state.spec().agentless().auth().token().secret_ref().name(), "edge-1-token");
  EXPECT_EQ(state.incarnation_version(), 0);
  EXPECT_EQ(state.spec_version(), 0);
  EXPECT_EQ(state.stream_version(), 0);
  EXPECT_EQ(state.seq(), 1);
  EXPECT_EQ(state.registered_at().seconds(), Seconds(At(0)));
  EXPECT_EQ(state.updated_at().seconds(), Seconds(At(0)));
  EXPECT_EQ(state.reachable().type(), "Reachable");
  EXPECT_EQ(state.reachable().status(), "Unknown");
  EXPECT_EQ(state.reachable().reason(), "ProbePending");
  // Regression: the message named the spec's stream version, which means nothing to an
  // operator.
  EXPECT_EQ(state.reachable().message(), "waiting for the first probe of this spec");
  EXPECT_EQ(state.reachable().last_transition_time().seconds(), Seconds(At(0)));
  EXPECT_FALSE(state.has_last_probe_time());
}

TEST(ClusterStateTest, ASuccessfulProbeOfTheCurrentSpecMakesItReachable) {
  const ClusterState state =
      Fold({Registered("edge-1", TokenSpec()), Probed(Succeeded(0, "v1.30.1", {"apps"}))});
  EXPECT_EQ(state.reachable().status(), "True");
  EXPECT_EQ(state.reachable().reason(), "ProbeSucceeded");
  EXPECT_EQ(state.reachable().message(), "");
  EXPECT_EQ(state.reachable().last_transition_time().seconds(), Seconds(At(1)));
  EXPECT_EQ(state.server_version(), "v1.30.1");
  EXPECT_THAT(state.api_groups(), ElementsAre("apps"));
  EXPECT_EQ(state.auth_type(), "token");
  EXPECT_EQ(state.last_probe_time().seconds(), Seconds(At(1)));
  EXPECT_EQ(state.stream_version(), 1);
  EXPECT_EQ(state.updated_at().seconds(), Seconds(At(0)));  // probes are not updates
}

TEST(ClusterStateTest, TheTransitionTimeMovesOnlyWhenTheStatusChanges) {
  const ClusterState state = Fold({
      Registered("edge-1", TokenSpec()),
      Probed(Failed(0, "ProbeFailed", "GET /version: connection refused")),     // Unknown->False
      Probed(Failed(0, "Unsupported", "auth type \"oidc\" is not supported")),  // False->False
  });
  EXPECT_EQ(state.reachable().status(), "False");
  EXPECT_EQ(state.reachable().reason(), "Unsupported");
  EXPECT_EQ(state.reachable().message(), "auth type \"oidc\" is not supported");
  EXPECT_EQ(state.reachable().last_transition_time().seconds(), Seconds(At(1)));
  EXPECT_EQ(state.last_probe_time().seconds(), Seconds(At(2)));

  const ClusterState back = Fold({
      Registered("edge-1", TokenSpec()),
      Probed(Failed(0, "ProbeFailed", "refused")),
      Probed(Succeeded(0)),
  });
  EXPECT_EQ(back.reachable().status(), "True");
  EXPECT_EQ(back.reachable().last_transition_time().seconds(), Seconds(At(2)));
}

TEST(ClusterStateTest, AFailedProbeKeepsTheServerVersionOfTheLastSuccessfulOne) {
  const ClusterState state = Fold({
      Registered("edge-1", TokenSpec()),
      Probed(Succeeded(0, "v1.29.2", {"apps", "batch"})),
      Probed(Failed(0, "ProbeFailed", "GET /apis: 503")),
  });
  EXPECT_EQ(state.reachable().status(), "False");
  EXPECT_EQ(state.reachable().reason(), "ProbeFailed");
  EXPECT_EQ(state.server_version(), "v1.29.2");
  EXPECT_THAT(state.api_groups(), ElementsAre("apps", "batch"));
  EXPECT_EQ(state.last_probe_time().seconds(), Seconds(At(2)));
}

TEST(ClusterStateTest, ASpecChangeResetsTheProbeResults) {
  const ClusterState state = Fold({
      Registered("edge-1", TokenSpec()),
      Probed(Succeeded(0)),
      SpecChanged(TokenSpec("edge-1-token-2")),
  });
  EXPECT_EQ(state.spec().agentless().auth().token().secret_ref().name(), "edge-1-token-2");
  EXPECT_EQ(state.spec_version(), 2);
  EXPECT_EQ(state.incarnation_version(), 0);
  EXPECT_EQ(state.updated_at().seconds(), Seconds(At(2)));
  EXPECT_EQ(state.reachable().status(), "Unknown");
  EXPECT_EQ(state.reachable().reason(), "ProbePending");
  EXPECT_EQ(state.reachable().last_transition_time().seconds(), Seconds(At(2)));
  EXPECT_EQ(state.server_version(), "");
  EXPECT_THAT(state.api_groups(), IsEmpty());
  EXPECT_EQ(state.auth_type(), "");
  EXPECT_FALSE(state.has_last_probe_time());
}

TEST(ClusterStateTest, AProbeOfAnEarlierSpecChangesNothingButThePosition) {
  const ClusterState before = Fold({
      Registered("edge-1", TokenSpec()),
      SpecChanged(TokenSpec("edge-1-token-2")),
  });
  const ClusterState after = Fold({
      Registered("edge-1", TokenSpec()), SpecChanged(TokenSpec("edge-1-token-2")),
      Probed(Succeeded(0)),  // started before the spec change, recorded after it
  });
  EXPECT_EQ(after.stream_version(), 2);
  EXPECT_EQ(after.seq(), 3);
  ClusterState without_position = after;
  without_position.set_stream_version(before.stream_version());
  without_position.set_seq(before.seq());
  EXPECT_EQ(without_position.SerializeAsString(), before.SerializeAsString());
  EXPECT_EQ(after.reachable().reason(), "ProbePending");
}

TEST(ClusterStateTest, DeregistrationEndsTheIncarnationAndARegistrationStartsANewOne) {
  const ClusterState gone = Fold({
      Registered("edge-1", TokenSpec()), Probed(Succeeded(0)), Deregistered(),
      Probed(Failed(0, "ProbeFailed", "late")),  // in flight at the deregistration
  });
  EXPECT_EQ(gone.phase(), ClusterState::PHASE_DEREGISTERED);
  EXPECT_EQ(gone.updated_at().seconds(), Seconds(At(2)));
  EXPECT_EQ(gone.reachable().reason(), "ProbeSucceeded");
  EXPECT_EQ(gone.stream_version(), 3);

  const ClusterState again = Fold({
      Registered("edge-1", TokenSpec()),
      Probed(Succeeded(0)),
      Deregistered(),
      Registered("edge-1", InClusterSpec()),
  });
  EXPECT_EQ(again.phase(), ClusterState::PHASE_ACTIVE);
  EXPECT_EQ(again.incarnation_version(), 3);
  EXPECT_EQ(again.spec_version(), 3);
  EXPECT_EQ(again.spec().connection_mode(), v1::CLUSTER_CONNECTION_MODE_IN_CLUSTER);
  EXPECT_EQ(again.registered_at().seconds(), Seconds(At(3)));
  EXPECT_EQ(again.reachable().reason(), "ProbePending");
  EXPECT_EQ(again.server_version(), "");
}

TEST(ClusterStateTest, EventsOfOtherStreamsLeaveTheStateAlone) {
  const ClusterState before = Fold({Registered("edge-1", TokenSpec())});
  ClusterState after = before;
  Event other;
  other.mutable_identity_created()->set_name("aws");
  EvolveCluster(after, other, {7, 5, At(5)});
  EXPECT_EQ(after.SerializeAsString(), before.SerializeAsString());
  EXPECT_EQ(projections::ClusterStream("edge-1"), "cluster/edge-1");
}

// --- ClusterProjection on hand-made events ---

// An event as the store would hand it over, without hashes (the projection reads none).
store::RecordedEvent Recorded(int64_t seq, const std::string& stream, int64_t version,
                              const Event& event) {
  return ::credledger::testing::StoredEvent(seq, stream, version,
                                            absl::ToUnixMicros(kT0) + seq * 1'000'000, event);
}

Event ServiceConfigured() {
  Event e;
  e.mutable_service_configured()->set_agent_token_ttl_seconds(3600);
  return e;
}

TEST(ClusterProjectionTest, ApplyFoldsClusterStreamsAndNamesTheChangedOne) {
  ClusterProjection p;
  ASSERT_OK_AND_ASSIGN(
      std::vector<std::string> changed,
      p.Apply(Recorded(1, "cluster/edge-1", 0, Registered("edge-1", TokenSpec()))));
  EXPECT_THAT(changed, ElementsAre("cluster/edge-1"));
  ASSERT_OK_AND_ASSIGN(changed, p.Apply(Recorded(2, "service", 0, ServiceConfigured())));
  EXPECT_THAT(changed, IsEmpty());
  ASSERT_OK_AND_ASSIGN(changed, p.Apply(Recorded(3, "cluster/edge-1", 1, Probed(Succeeded(0)))));
  EXPECT_THAT(changed, ElementsAre("cluster/edge-1"));
  EXPECT_EQ(p.seq(), 3);
  std::optional<ClusterState> edge = p.GetCluster("edge-1");
  ASSERT_TRUE(edge.has_value());
  EXPECT_EQ(edge->seq(), 3);
  EXPECT_EQ(edge->reachable().status(), "True");
  EXPECT_EQ(edge->last_probe_time().seconds(), absl::ToUnixSeconds(kT0) + 3);
}

TEST(ClusterProjectionTest, ApplyRefusesAGapAndAnUndecodableClusterEvent) {
  ClusterProjection p;
  EXPECT_THAT(p.Apply(Recorded(2, "cluster/edge-1", 0, Registered("edge-1", TokenSpec()))),
              StatusIs(absl::StatusCode::kDataLoss, HasSubstr("seq 2")));
  store::RecordedEvent garbage =
      Recorded(1, "cluster/edge-1", 0, Registered("edge-1", TokenSpec()));
  garbage.payload = "\xff\xff\xff";
  EXPECT_THAT(p.Apply(garbage), StatusIs(absl::StatusCode::kDataLoss));
  EXPECT_EQ(p.seq(), 0);
  EXPECT_FALSE(p.GetCluster("edge-1").has_value());
}

TEST(ClusterProjectionTest, ReadsByNameAndListsInNameOrder) {
  ClusterProjection p;
  int64_t seq = 0;
  auto apply = [&](const std::string& stream, int64_t version, const Event& e) {
    ASSERT_OK(p.Apply(Recorded(++seq, stream, version, e)));
  };
  apply("cluster/edge-2", 0, Registered("edge-2", TokenSpec()));
  apply("cluster/edge-1", 0, Registered("edge-1", InClusterSpec()));
  apply("cluster/old", 0, Registered("old", InClusterSpec()));
  apply("cluster/old", 1, Deregistered());

  ASSERT_TRUE(p.Get("ignored", "edge-2").has_value());
  EXPECT_EQ(p.Get("ignored", "edge-2")->name(), "edge-2");
  ASSERT_TRUE(p.GetStream("cluster/edge-1").has_value());
  EXPECT_FALSE(p.GetStream("identity/edge-1").has_value());
  EXPECT_FALSE(p.GetCluster("edge-3").has_value());

  std::vector<std::string> names;
  for (const ClusterState& s : p.List(/*include_deregistered=*/false)) names.push_back(s.name());
  EXPECT_THAT(names, ElementsAre("edge-1", "edge-2"));
  names.clear();
  for (const ClusterState& s : p.List(/*include_deregistered=*/true)) names.push_back(s.name());
  EXPECT_THAT(names, ElementsAre("edge-1", "edge-2", "old"));
  names.clear();
  p.ForEachActive([&](const ClusterState& s) { names.push_back(s.name()); });
  EXPECT_THAT(names, ElementsAre("edge-1", "edge-2"));
}

TEST(ClusterProjectionTest, SnapshotsRoundTripByteForByte) {
  ClusterProjection p;
  int64_t seq = 0;
  for (const auto& [stream, version, event] : std::vector<std::tuple<std::string, int64_t, Event>>{
           {"cluster/edge-1", 0, Registered("edge-1", TokenSpec())},
           {"cluster/edge-1", 1, Probed(Succeeded(0))},
           {"cluster/home", 0, Registered("home", InClusterSpec())},
           // A stream whose first event is not a registration keeps its name.
           {"cluster/stray", 0, Probed(Succeeded(0))},
       }) {
    ASSERT_OK(p.Apply(Recorded(++seq, stream, version, event)));
  }
  const std::string bytes = p.Serialize();
  ASSERT_OK_AND_ASSIGN(ClusterProjection loaded, ClusterProjection::Deserialize(bytes));
  EXPECT_EQ(loaded.Serialize(), bytes);
  EXPECT_EQ(loaded.seq(), 4);
  ASSERT_TRUE(loaded.GetCluster("stray").has_value());
  EXPECT_EQ(loaded.GetCluster("stray")->phase(), ClusterState::PHASE_UNSPECIFIED);

  // It also goes on folding like the original.
  const store::RecordedEvent next = Recorded(5, "cluster/edge-1", 2, SpecChanged(InClusterSpec()));
  ASSERT_OK(p.Apply(next));
  ASSERT_OK(loaded.Apply(next));
  EXPECT_EQ(loaded.Serialize(), p.Serialize());

  EXPECT_THAT(ClusterProjection::Deserialize("\xff\xff not a snapshot"),
              StatusIs(absl::StatusCode::kDataLoss));
}

// --- ClusterProjector on a real log ---

class ClusterProjectorTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_OK_AND_ASSIGN(
        store_, store::SqliteEventStore::Open({.path = dir_.path() / "log.db", .clock = &clock_}));
    ASSERT_OK_AND_ASSIGN(guard_, testing::TestSnapshotGuard::Create());
  }

  // Appends `event` to `stream` one second after the previous append.
  void Append(const std::string& stream, const Event& event) {
    clock_.Advance(absl::Seconds(1));
    ASSERT_OK_AND_ASSIGN(store::NewEvent encoded,
                         store::EventCodec::Default().Encode(event, v1::EventMetadata()));
    store::AppendRequest request;
    request.request_id = absl::StrCat("r", ++requests_);
    request.streams.push_back({stream, store::ExpectedVersion::Any(), {std::move(encoded)}});
    ASSERT_OK(store_->Append(std::move(request)));
  }

  // A projection folded from seq 1 to `until_seq`, page by page.
  std::string RebuildBytes(int64_t until_seq) {
    ClusterProjection p;
    for (int64_t after = 0; after < until_seq;) {
      absl::StatusOr<std::vector<store::RecordedEvent>> page = store_->ReadAll(after, 3);
      EXPECT_OK(page);
      if (!page.ok() || page->empty()) break;
      for (const store::RecordedEvent& e : *page) {
        if (e.seq > until_seq) break;
        EXPECT_OK(p.Apply(e));
        after = e.seq;
      }
    }
    return p.Serialize();
  }

  // The live projector's clusters in the form of ClusterProjection::Serialize.
  static std::string ProjectorBytes(const ClusterProjector& projector) {
    v1::ClusterFleetState fleet;
    int64_t seq = 0;
    for (ClusterState& s : projector.List(/*include_deregistered=*/true, &seq)) {
      *fleet.add_clusters() = std::move(s);
    }
    fleet.set_seq(seq);
    return store::SerializeDeterministic(fleet);
  }

  testing::TempDir dir_;
  common::FakeClock clock_;
  std::unique_ptr<store::SqliteEventStore> store_;
  std::unique_ptr<testing::TestSnapshotGuard> guard_;
  int requests_ = 0;
};

TEST_F(ClusterProjectorTest, TheIncrementalProjectorMatchesAFullRebuildByteForByte) {
  ASSERT_OK_AND_ASSIGN(
      std::unique_ptr<ClusterProjector> projector,
      ClusterProjector::Start(store_.get(), {.snapshot_every = 4, .snapshots = guard_->get()}));
  Append("service", ServiceConfigured());
  Append("cluster/edge-1", Registered("edge-1", TokenSpec()));
  Append("cluster/home", Registered("home", InClusterSpec()));
  Append("cluster/edge-1", Probed(Failed(0, "ProbeFailed", "refused")));
  Append("cluster/edge-1", Probed(Succeeded(0)));
  Append("cluster/home", Probed(Succeeded(0, "v1.31.0", {"apps"}, "inCluster")));
  Append("cluster/edge-1", SpecChanged(TokenSpec("edge-1-token-2")));
  Append("cluster/edge-1", Probed(Succeeded(0)));  // of the old spec: ignored
  Append("cluster/home", Deregistered());
  Append("cluster/edge-2", Registered("edge-2", TokenSpec()));
  const int64_t head = store_->HeadSeq();
  ASSERT_TRUE(projector->WaitForSeq(head, absl::Seconds(10)));
  ASSERT_OK(projector->status());

  EXPECT_EQ(ProjectorBytes(*projector), RebuildBytes(head));
  for (int64_t seq = 0; seq <= head; ++seq) {
    SCOPED_TRACE(seq);
    ASSERT_OK_AND_ASSIGN(ClusterProjection as_of,
                         ClusterProjector::AsOf(store_.get(), seq, guard_->get()));
    EXPECT_EQ(as_of.Serialize(), RebuildBytes(seq));
  }

  std::optional<ClusterState> edge = projector->GetCluster("edge-1");
  ASSERT_TRUE(edge.has_value());
  EXPECT_EQ(edge->reachable().reason(), "ProbePending");
  EXPECT_EQ(edge->spec_version(), 3);
  int64_t seq = 0;
  std::vector<std::string> active;
  for (const ClusterState& s : projector->List(/*include_deregistered=*/false, &seq)) {
    active.push_back(s.name());
  }
  EXPECT_THAT(active, ElementsAre("edge-1", "edge-2"));
  EXPECT_EQ(seq, head);
}

TEST_F(ClusterProjectorTest, GetActiveFindsOnlyRegisteredClustersThatAreNotDeregistered) {
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<ClusterProjector> projector,
                       ClusterProjector::Start(store_.get(), {.snapshot_every = 0}));
  Append("cluster/edge-1", Registered("edge-1", TokenSpec()));
  Append("cluster/home", Registered("home", InClusterSpec()));
  Append("cluster/home", Deregistered());
  ASSERT_TRUE(projector->WaitForSeq(store_->HeadSeq(), absl::Seconds(10)));

  ASSERT_OK_AND_ASSIGN(const ClusterState edge, projector->GetActive("edge-1"));
  EXPECT_EQ(edge.name(), "edge-1");
  EXPECT_EQ(edge.phase(), ClusterState::PHASE_ACTIVE);
  EXPECT_THAT(projector->GetActive("home"),
              StatusIs(absl::StatusCode::kNotFound, "cluster \"home\" is not registered"));
  EXPECT_THAT(projector->GetActive("edge-9"),
              StatusIs(absl::StatusCode::kNotFound, "cluster \"edge-9\" is not registered"));
}

}  // namespace cluster_state_test
}  // namespace credledger::service
