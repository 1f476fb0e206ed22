// Given-events / when-command / then-events tests of the cluster decider (docs/connections.md,
// "Clusters"; events.proto, ClusterProbed; docs/design.md, "Deciders"), and the
// ClusterCommandBus and BridgeClusterSink on a real SQLite log: metadata, request-id replay,
// refusals appending nothing, the fold cache following other writers.
#include "service/decide/cluster_decider.h"

#include <google/protobuf/util/message_differencer.h>

#include <memory>
#include <string>
#include <vector>

#include "common/clock.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "projections/cluster_state.h"
#include "service/bridge/bridge_cluster_sink.h"
#include "service/bus/cluster_command_bus.h"
#include "store/event_codec.h"
#include "store/sqlite_event_store.h"
#include "test/service/cluster_fixtures.h"
#include "test/support/status_matchers.h"
#include "test/support/temp_dir.h"
#include "test/support/test_event_log.h"

namespace credledger::service {
namespace cluster_decider_test {

using ::credledger::testing::StatusIs;
using google::protobuf::util::MessageDifferencer;
using ::testing::AllOf;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::SizeIs;
using v1::ClusterState;
using v1::Event;

constexpr char kCluster[] = "edge-1";
const absl::Time kT0 = absl::FromUnixSeconds(1767225600);

// The state after `events`: event i at seq i + 1, stream version i, time kT0 + i minutes.
ClusterState Given(const std::vector<Event>& events) {
  ClusterState state;
  for (size_t i = 0; i < events.size(); ++i) {
    const int64_t version = static_cast<int64_t>(i);
    projections::EvolveCluster(state, events[i],
                               {version + 1, version, kT0 + absl::Minutes(version)});
  }
  return state;
}

absl::StatusOr<std::vector<Event>> When(const ClusterCommand& command, const ClusterState& state,
                                        absl::Time now = kT0 + absl::Hours(1)) {
  return DecideCluster(command, state, {kCluster, now, "alice", "r1"});
}

// The single event `decided` holds.
Event Only(const absl::StatusOr<std::vector<Event>>& decided) {
  EXPECT_OK(decided);
  if (!decided.ok() || decided->size() != 1) {
    ADD_FAILURE() << "expected exactly one event";
    return Event();
  }
  return decided->front();
}

void ExpectEvent(const absl::StatusOr<std::vector<Event>>& decided, const Event& expected) {
  const Event got = Only(decided);
  EXPECT_TRUE(MessageDifferencer::Equals(got, expected))
      << "got " << got.ShortDebugString() << "\nwant " << expected.ShortDebugString();
}

void ExpectNothing(const absl::StatusOr<std::vector<Event>>& decided) {
  ASSERT_OK(decided);
  EXPECT_THAT(*decided, IsEmpty());
}

// --- RegisterCluster ---

TEST(ClusterDeciderTest, RegisteringANewClusterEmitsClusterRegistered) {
  ExpectEvent(When(RegisterCluster{TokenSpec()}, ClusterState()),
              Registered(kCluster, TokenSpec()));
}

TEST(ClusterDeciderTest, RegisteringTheSameSpecAgainEmitsNothing) {
  ExpectNothing(When(RegisterCluster{TokenSpec()}, Given({Registered(kCluster, TokenSpec())})));
}

TEST(ClusterDeciderTest, RegisteringAnotherSpecEmitsClusterSpecChanged) {
  ExpectEvent(When(RegisterCluster{InClusterSpec()}, Given({Registered(kCluster, TokenSpec())})),
              SpecChanged(InClusterSpec()));
}

TEST(ClusterDeciderTest, RegisteringADeregisteredClusterStartsANewIncarnation) {
  ExpectEvent(When(RegisterCluster{TokenSpec()},
                   Given({Registered(kCluster, TokenSpec()), Deregistered()})),
              Registered(kCluster, TokenSpec()));
}

// Regression: `secretRef: {name: x}` and `{name: x, key: token}` were two specs, so writing
// the default key out appended a ClusterSpecChanged and probed again.
TEST(ClusterDeciderTest, SpecsAreRecordedAndComparedWithTheirDefaultKeysWrittenOut) {
  v1::ClusterSpec bare = TokenSpec();  // both keys the defaults, left out
  bare.mutable_agentless()->mutable_ca_ref()->clear_key();
  bare.mutable_agentless()->mutable_auth()->mutable_token()->mutable_secret_ref()->clear_key();
  ExpectEvent(When(RegisterCluster{bare}, ClusterState()), Registered(kCluster, TokenSpec()));
  ExpectNothing(When(RegisterCluster{bare}, Given({Registered(kCluster, TokenSpec())})));
  // Also against a spec recorded before specs were normalized.
  ExpectNothing(When(RegisterCluster{TokenSpec()}, Given({Registered(kCluster, bare)})));
  // A key other than the default is another spec.
  v1::ClusterSpec other_key = TokenSpec();
  other_key.mutable_agentless()->mutable_auth()->mutable_token()->mutable_secret_ref()->set_key(
      "bearer");
  ExpectEvent(When(RegisterCluster{other_key}, Given({Registered(kCluster, bare)})),
              SpecChanged(other_key));
}

TEST(ClusterDeciderTest, AnInvalidSpecIsRefusedNamingTheField) {
  v1::ClusterSpec spec = TokenSpec();
  spec.mutable_agentless()->set_server("http://edge-1.example");
  EXPECT_THAT(
      When(RegisterCluster{spec}, ClusterState()),
      StatusIs(absl::StatusCode::kInvalidArgument,
               AllOf(HasSubstr("cluster \"edge-1\": "), HasSubstr("spec.agentless.server: "))));
}

// --- DeregisterCluster ---

TEST(ClusterDeciderTest, DeregisteringAnActiveClusterEmitsClusterDeregistered) {
  ExpectEvent(When(DeregisterCluster{}, Given({Registered(kCluster, TokenSpec())})),
              Deregistered());
}

TEST(ClusterDeciderTest, DeregisteringAClusterThatIsNotActiveIsNotFound) {
  EXPECT_THAT(When(DeregisterCluster{}, ClusterState()),
              StatusIs(absl::StatusCode::kNotFound, "cluster \"edge-1\": not registered"));
  // Regression: a deregistered cluster, which `cluster get` answers, was "not registered".
  EXPECT_THAT(When(DeregisterCluster{}, Given({Registered(kCluster, TokenSpec()), Deregistered()})),
              StatusIs(absl::StatusCode::kNotFound,
                       "cluster \"edge-1\": deregistered; register it again to use it"));
}

// Regression: the hint said to change the identities' spec.cluster or delete them, both of
// which are refused while they still have mirrors (and bindings); the mirrors must go first.
TEST(ClusterDeciderTest, DeregisteringWhileIdentitiesMirrorIntoItIsRefusedNamingThem) {
  EXPECT_THAT(When(DeregisterCluster{{"aws", "gcp"}}, Given({Registered(kCluster, TokenSpec())})),
              StatusIs(absl::StatusCode::kFailedPrecondition,
                       "cluster \"edge-1\": identities aws, gcp mirror into it; unbind their "
                       "namespaces and, once their mirrors are removed, delete them or change "
                       "their spec.cluster"));
  // Regression: one identity was refused in the plural ("aws mirror into it").
  EXPECT_THAT(When(DeregisterCluster{{"aws"}}, Given({Registered(kCluster, TokenSpec())})),
              StatusIs(absl::StatusCode::kFailedPrecondition,
                       "cluster \"edge-1\": identity aws mirrors into it; unbind its "
                       "namespaces and, once its mirrors are removed, delete it or change its "
                       "spec.cluster"));
}

// --- RecordProbe ---

TEST(ClusterDeciderTest, TheFirstProbeOfTheCurrentSpecIsRecorded) {
  ExpectEvent(When(RecordProbe{Succeeded(0)}, Given({Registered(kCluster, TokenSpec())})),
              Probed(Succeeded(0)));
  // Also after a spec change, which forgot the probes of the old spec.
  ExpectEvent(
      When(RecordProbe{Succeeded(2)}, Given({Registered(kCluster, TokenSpec()),
                                             Probed(Succeeded(0)), SpecChanged(InClusterSpec())})),
      Probed(Succeeded(2)));
}

TEST(ClusterDeciderTest, AnUnchangedOutcomeWithinTheRecordIntervalIsNotRecorded) {
  // The last probe was recorded at kT0 + 1 min; now is kT0 + 1 h.
  ExpectNothing(When(RecordProbe{Succeeded(0)},
                     Given({Registered(kCluster, TokenSpec()), Probed(Succeeded(0))})));
  // A failure equal to the last one, though the state keeps the earlier success's version.
  const ClusterState failing =
      Given({Registered(kCluster, TokenSpec()), Probed(Succeeded(0)),
             Probed(Failed(0, "ProbeFailed", "GET /version: connection refused"))});
  ExpectNothing(
      When(RecordProbe{Failed(0, "ProbeFailed", "GET /version: connection refused")}, failing));
}

TEST(ClusterDeciderTest, AnOutcomeDifferingInAnyRecordedFieldIsRecorded) {
  const ClusterState state = Given({Registered(kCluster, TokenSpec()), Probed(Succeeded(0))});
  const std::vector<v1::ClusterProbed> changed = {
      Failed(0, "ProbeFailed", "GET /version: 503"),             // reason
      Succeeded(0, "v1.29.3"),                                   // server_version
      Succeeded(0, "v1.29.2", {"apps"}),                         // api_groups
      Succeeded(0, "v1.29.2", {"apps", "batch"}, "execPlugin"),  // auth_type
  };
  for (const v1::ClusterProbed& probe : changed) {
    SCOPED_TRACE(probe.ShortDebugString());
    ExpectEvent(When(RecordProbe{probe}, state), Probed(probe));
  }
  const ClusterState failing =
      Given({Registered(kCluster, TokenSpec()), Probed(Failed(0, "ProbeFailed", "refused"))});
  ExpectEvent(When(RecordProbe{Failed(0, "ProbeFailed", "timed out")}, failing),
              Probed(Failed(0, "ProbeFailed", "timed out")));  // message
  ExpectEvent(When(RecordProbe{Failed(0, "Unsupported", "refused")}, failing),
              Probed(Failed(0, "Unsupported", "refused")));  // reason, same message
}

TEST(ClusterDeciderTest, AnUnchangedOutcomeIsRecordedOnceTheLastRecordIsOlderThanTheInterval) {
  // The last probe is recorded at kT0 + 1 min.
  const ClusterState state = Given({Registered(kCluster, TokenSpec()), Probed(Succeeded(0))});
  const absl::Time last = kT0 + absl::Minutes(1);
  ExpectNothing(When(RecordProbe{Succeeded(0)}, state, last + absl::Hours(1)));
  ExpectEvent(When(RecordProbe{Succeeded(0)}, state, last + absl::Hours(1) + absl::Seconds(1)),
              Probed(Succeeded(0)));
  // The interval comes from the command.
  ExpectNothing(When(RecordProbe{Succeeded(0), absl::Minutes(5)}, state, last + absl::Minutes(5)));
  ExpectEvent(When(RecordProbe{Succeeded(0), absl::Minutes(5)}, state, last + absl::Minutes(6)),
              Probed(Succeeded(0)));
}

TEST(ClusterDeciderTest, AProbeOfAnotherSpecVersionIsDropped) {
  const ClusterState state = Given(
      {Registered(kCluster, TokenSpec()), Probed(Succeeded(0)), SpecChanged(InClusterSpec())});
  ExpectNothing(When(RecordProbe{Failed(0, "ProbeFailed", "refused")}, state));  // older
  ExpectNothing(When(RecordProbe{Succeeded(7)}, state));                         // unknown
}

TEST(ClusterDeciderTest, AProbeOfAClusterThatIsNotActiveIsNotFound) {
  EXPECT_THAT(When(RecordProbe{Succeeded(0)}, ClusterState()),
              StatusIs(absl::StatusCode::kNotFound, HasSubstr("cluster \"edge-1\"")));
  EXPECT_THAT(
      When(RecordProbe{Succeeded(0)}, Given({Registered(kCluster, TokenSpec()), Deregistered()})),
      StatusIs(absl::StatusCode::kNotFound));
}

TEST(ClusterDeciderTest, AMalformedProbeIsInvalidArgument) {
  const ClusterState state = Given({Registered(kCluster, TokenSpec())});
  EXPECT_THAT(When(RecordProbe{Failed(0, "Broken", "x")}, state),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("probe.reason")));
  v1::ClusterProbed failed_with_version = Failed(0, "ProbeFailed", "GET /apis: 503");
  failed_with_version.set_server_version("v1.29.2");
  EXPECT_THAT(When(RecordProbe{failed_with_version}, state),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("server_version")));
}

TEST(ClusterDeciderTest, CommandNamesAreTheImperatives) {
  EXPECT_EQ(ClusterCommandName(RegisterCluster{}), "RegisterCluster");
  EXPECT_EQ(ClusterCommandName(DeregisterCluster{}), "DeregisterCluster");
  EXPECT_EQ(ClusterCommandName(RecordProbe{}), "RecordProbe");
}

// --- ClusterCommandBus and BridgeClusterSink on a real log ---

class ClusterCommandBusTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_OK_AND_ASSIGN(store_, ::credledger::testing::OpenTestEventLog(dir_.path(), &clock_));
    bus_ = std::make_unique<ClusterCommandBus>(store_.get());
    sink_ = std::make_unique<BridgeClusterSink>(bus_.get(), &clock_);
  }

  absl::StatusOr<ClusterCommandResult> Run(const ClusterCommand& command,
                                           const std::string& request_id,
                                           ClusterCommandBus* bus = nullptr) {
    clock_.Advance(absl::Seconds(1));
    return (bus != nullptr ? bus : bus_.get())
        ->Execute(command, {kCluster, clock_.Now(), "alice", request_id});
  }

  absl::StatusOr<std::vector<store::RecordedEvent>> Stream() {
    return store_->ReadStream("cluster/edge-1", 0, 100);
  }

  testing::TempDir dir_;
  common::FakeClock clock_;
  std::unique_ptr<store::SqliteEventStore> store_;
  std::unique_ptr<ClusterCommandBus> bus_;
  std::unique_ptr<BridgeClusterSink> sink_;
};

TEST_F(ClusterCommandBusTest, ACommandAppendsToTheClusterStreamWithItsMetadata) {
  ASSERT_OK_AND_ASSIGN(ClusterCommandResult registered, Run(RegisterCluster{TokenSpec()}, "r1"));
  EXPECT_FALSE(registered.replayed);
  ASSERT_THAT(registered.events, SizeIs(1));
  EXPECT_EQ(registered.events[0].stream, "cluster/edge-1");
  EXPECT_EQ(registered.events[0].stream_version, 0);
  ASSERT_OK_AND_ASSIGN(v1::EventMetadata metadata,
                       store::EventCodec::DecodeMetadata(registered.events[0]));
  EXPECT_EQ(metadata.actor(), "alice");
  EXPECT_EQ(metadata.request_id(), "r1");
  EXPECT_EQ(metadata.command(), "RegisterCluster");
  EXPECT_EQ(registered.state.phase(), ClusterState::PHASE_ACTIVE);
  EXPECT_EQ(registered.state.seq(), registered.events[0].seq);

  ASSERT_OK_AND_ASSIGN(ClusterState loaded, bus_->LoadState({.cluster = kCluster}));
  EXPECT_EQ(loaded.SerializeAsString(), registered.state.SerializeAsString());
  ASSERT_OK_AND_ASSIGN(ClusterState unknown, bus_->LoadState({.cluster = "edge-9"}));
  EXPECT_EQ(unknown.phase(), ClusterState::PHASE_UNSPECIFIED);
}

TEST_F(ClusterCommandBusTest, ARetriedRequestIdReturnsTheOriginalEventsAndAppendsNothing) {
  ASSERT_OK(Run(RegisterCluster{TokenSpec()}, "r1"));
  ASSERT_OK_AND_ASSIGN(ClusterCommandResult first, Run(DeregisterCluster{}, "r2"));
  ASSERT_THAT(first.events, SizeIs(1));
  const int64_t head = store_->HeadSeq();

  // Without the replay the cluster, now deregistered, would be NOT_FOUND.
  ASSERT_OK_AND_ASSIGN(ClusterCommandResult again, Run(DeregisterCluster{}, "r2"));
  EXPECT_TRUE(again.replayed);
  ASSERT_THAT(again.events, SizeIs(1));
  EXPECT_EQ(again.events[0].seq, first.events[0].seq);
  EXPECT_EQ(again.events[0].event_id, first.events[0].event_id);
  EXPECT_EQ(store_->HeadSeq(), head);
  EXPECT_EQ(again.state.phase(), ClusterState::PHASE_DEREGISTERED);
}

TEST_F(ClusterCommandBusTest, ARequestIdReusedForAnotherCommandIsRefusedAndRefusalsAppendNothing) {
  ASSERT_OK(Run(RegisterCluster{TokenSpec()}, "r1"));
  const int64_t head = store_->HeadSeq();
  EXPECT_THAT(Run(DeregisterCluster{}, "r1"),
              StatusIs(absl::StatusCode::kFailedPrecondition,
                       AllOf(HasSubstr("r1"), HasSubstr("RegisterCluster"))));
  EXPECT_THAT(Run(DeregisterCluster{{"aws"}}, "r2"),
              StatusIs(absl::StatusCode::kFailedPrecondition, HasSubstr("identity aws mirrors")));
  EXPECT_THAT(Run(RegisterCluster{TokenSpec()}, ""),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("request_id")));
  EXPECT_EQ(store_->HeadSeq(), head);

  // The refused request id is still free.
  ASSERT_OK_AND_ASSIGN(ClusterCommandResult deregistered, Run(DeregisterCluster{}, "r2"));
  EXPECT_FALSE(deregistered.replayed);
  EXPECT_THAT(deregistered.events, SizeIs(1));
}

TEST_F(ClusterCommandBusTest, ACachedFoldSeesTheEventsAnotherWriterAppendedSince) {
  ASSERT_OK(Run(RegisterCluster{TokenSpec()}, "r1"));  // bus_ keeps the fold at version 0
  ClusterCommandBus other(store_.get());
  ASSERT_OK(Run(RegisterCluster{InClusterSpec()}, "r2", &other));  // ClusterSpecChanged, v1

  // Decided against spec version 1: without the events after the cached fold, the probe
  // would be of another spec and dropped.
  ASSERT_OK_AND_ASSIGN(ClusterCommandResult probed,
                       Run(RecordProbe{Succeeded(1, "v1.31.0", {}, "inCluster")}, "r3"));
  ASSERT_THAT(probed.events, SizeIs(1));
  EXPECT_EQ(probed.events[0].stream_version, 2);
  EXPECT_EQ(probed.state.spec().connection_mode(), v1::CLUSTER_CONNECTION_MODE_IN_CLUSTER);
  EXPECT_EQ(probed.state.reachable().status(), "True");
}

TEST_F(ClusterCommandBusTest, TheSinkRecordsAProbeAsTheServiceUnderAnIdDerivedFromTheState) {
  ASSERT_OK(Run(RegisterCluster{TokenSpec()}, "r1"));
  ASSERT_OK_AND_ASSIGN(const ClusterState before, bus_->LoadState({.cluster = kCluster}));
  ASSERT_OK_AND_ASSIGN(ClusterState after, sink_->RecordProbe(kCluster, Succeeded(0)));
  EXPECT_EQ(after.reachable().status(), "True");

  ASSERT_OK_AND_ASSIGN(auto events, Stream());
  ASSERT_THAT(events, SizeIs(2));
  ASSERT_OK_AND_ASSIGN(v1::EventMetadata metadata, store::EventCodec::DecodeMetadata(events[1]));
  EXPECT_EQ(metadata.actor(), "credledger");
  EXPECT_EQ(metadata.command(), "RecordProbe");
  const std::string id = ClusterProbeRequestId(before, Succeeded(0));
  EXPECT_EQ(metadata.request_id(), id);
  EXPECT_THAT(id, HasSubstr("credledger:cluster/edge-1/0/0/probe/"));

  // The same report retried for the same state, past the record interval: the log answers
  // from the first record instead of recording it again.
  clock_.Advance(absl::Hours(2));
  ASSERT_OK_AND_ASSIGN(
      ClusterCommandResult retried,
      bus_->Execute(RecordProbe{Succeeded(0)}, {kCluster, clock_.Now(), "credledger", id}));
  EXPECT_TRUE(retried.replayed);
  ASSERT_OK_AND_ASSIGN(events, Stream());
  EXPECT_THAT(events, SizeIs(2));

  // Reported afresh (from the state after the record), the stale record is refreshed.
  ASSERT_OK(sink_->RecordProbe(kCluster, Succeeded(0)));
  ASSERT_OK_AND_ASSIGN(events, Stream());
  EXPECT_THAT(events, SizeIs(3));
}

TEST_F(ClusterCommandBusTest, TheSinkAppliesItsRecordIntervalAndRefusesUnknownClusters) {
  EXPECT_THAT(sink_->RecordProbe("edge-9", Succeeded(0)),
              StatusIs(absl::StatusCode::kNotFound, HasSubstr("cluster \"edge-9\"")));
  ASSERT_OK(Run(RegisterCluster{TokenSpec()}, "r1"));
  BridgeClusterSink frequent(bus_.get(), &clock_, absl::Minutes(5));
  ASSERT_OK(frequent.RecordProbe(kCluster, Succeeded(0)));
  clock_.Advance(absl::Minutes(5));
  ASSERT_OK(frequent.RecordProbe(kCluster, Succeeded(0)));  // not older than 5 min
  ASSERT_OK_AND_ASSIGN(auto events, Stream());
  EXPECT_THAT(events, SizeIs(2));
  clock_.Advance(absl::Minutes(1));
  ASSERT_OK(frequent.RecordProbe(kCluster, Succeeded(0)));
  ASSERT_OK_AND_ASSIGN(events, Stream());
  EXPECT_THAT(events, SizeIs(3));
  ASSERT_OK(sink_->RecordProbe(kCluster, Succeeded(0)));  // the default hour
  ASSERT_OK_AND_ASSIGN(events, Stream());
  EXPECT_THAT(events, SizeIs(3));
}

}  // namespace cluster_decider_test
}  // namespace credledger::service
