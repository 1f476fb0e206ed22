// Tests of the pure fleet fold (docs/design.md, "Projections" and "Snapshots"): a full rebuild
// from seq 1 is byte-identical to folding event by event through snapshots, events must arrive
// in seq order, and reads reflect the log. The log is written by TargetCommandBus on a real
// SQLite store.
#include "projections/credential_projection.h"

#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "projections/target_state.h"
#include "store/event_codec.h"
#include "store/sqlite_event_store.h"
#include "test/projections/fleet_log.h"
#include "test/support/status_matchers.h"

namespace credledger::projections {
namespace credential_projection_test {

using ::credledger::testing::StatusIs;
using ::testing::ElementsAre;
using ::testing::IsEmpty;

std::vector<std::string> Names(const std::vector<v1::TargetState>& states) {
  std::vector<std::string> out;
  for (const v1::TargetState& s : states) out.push_back(s.namespace_() + "/" + s.name());
  return out;
}

class CredentialProjectionTest : public testing::FleetLogTest {
 protected:
  void WriteFleetLog() {
    ASSERT_OK(driver_->RunPhaseOne());
    ASSERT_OK(driver_->RunPhaseTwo());
    ASSERT_OK(driver_->RunPhaseThree());
  }
};

TEST_F(CredentialProjectionTest, TheFleetLogCoversTheWholeLifecycle) {
  // Guards the other tests: the log they fold must hold every kind of event.
  WriteFleetLog();
  std::set<int> kinds;
  for (const store::RecordedEvent& e : AllEvents()) {
    ASSERT_OK_AND_ASSIGN(v1::Event event, store::EventCodec::Default().Decode(e));
    kinds.insert(event.kind_case());
  }
  for (int kind : {v1::Event::kServiceConfigured, v1::Event::kTargetRegistered,
                   v1::Event::kTargetDeletionRequested, v1::Event::kTargetFinalized,
                   v1::Event::kRotationRequested, v1::Event::kTargetRevoked,
                   v1::Event::kRevocationLifted, v1::Event::kRolloutConfirmed,
                   v1::Event::kCredentialMintRequested, v1::Event::kCredentialSecretCreated,
                   v1::Event::kCredentialIssued, v1::Event::kCredentialMintFailed,
                   v1::Event::kCredentialMintAbandoned, v1::Event::kCredentialSecretDeleted,
                   v1::Event::kCredentialSecretDeletedExternally,
                   v1::Event::kIdentityObjectsWritten}) {
    EXPECT_TRUE(kinds.count(kind)) << "no event of kind " << kind;
  }
  EXPECT_GT(store_->HeadSeq(), 60);
}

TEST_F(CredentialProjectionTest, AFullRebuildEqualsAFoldThroughASnapshotAfterEveryEvent) {
  WriteFleetLog();
  const std::vector<store::RecordedEvent> events = AllEvents();
  ASSERT_EQ(static_cast<int64_t>(events.size()), store_->HeadSeq());

  CredentialProjection rebuilt;
  for (const store::RecordedEvent& e : events) ASSERT_OK(rebuilt.Apply(e));

  // The incremental path: serialize after every event, load the bytes, fold the next one.
  std::string bytes = CredentialProjection().Serialize();
  for (const store::RecordedEvent& e : events) {
    ASSERT_OK_AND_ASSIGN(CredentialProjection p, CredentialProjection::Deserialize(bytes));
    ASSERT_OK(p.Apply(e));
    bytes = p.Serialize();
  }
  EXPECT_EQ(bytes, rebuilt.Serialize());
  EXPECT_EQ(rebuilt.seq(), store_->HeadSeq());
}

// The AgentCredentialReady tally behind the credentials metric (docs/operations.md),
// counted while folding, equals a recount of the registered Targets after every event of
// the whole lifecycle, also when the fold goes through a snapshot.
TEST_F(CredentialProjectionTest, ConditionCountsMatchARecountAfterEveryEventAndAfterASnapshot) {
  WriteFleetLog();
  auto nonzero = [](const ConditionTally::Counts& counts) {
    ConditionTally::Counts out;
    for (const auto& [key, n] : counts) {
      if (n != 0) out[key] = n;
    }
    return out;
  };
  CredentialProjection projection;
  std::set<std::string> reasons_seen;
  for (const store::RecordedEvent& e : AllEvents()) {
    ASSERT_OK(projection.Apply(e));
    ConditionTally::Counts recount;
    for (const v1::TargetState& t : projection.List("", /*include_finalized=*/true)) {
      if (t.phase() != v1::TargetState::PHASE_ACTIVE &&
          t.phase() != v1::TargetState::PHASE_DELETING) {
        continue;
      }
      ++recount[{t.agent_credential_ready().status(), t.agent_credential_ready().reason()}];
      reasons_seen.insert(t.agent_credential_ready().reason());
    }
    ASSERT_EQ(nonzero(projection.credential_ready_counts()), recount) << "after seq " << e.seq;
    ASSERT_OK_AND_ASSIGN(CredentialProjection copy,
                         CredentialProjection::Deserialize(projection.Serialize()));
    ASSERT_EQ(nonzero(copy.credential_ready_counts()), recount) << "snapshot at seq " << e.seq;
  }
  // Guards the comparison: the fleet went through several conditions.
  EXPECT_GE(reasons_seen.size(), 3u);
}

TEST_F(CredentialProjectionTest, SerializeIsDeterministicAcrossIndependentFolds) {
  WriteFleetLog();
  CredentialProjection a;
  CredentialProjection b;
  for (const store::RecordedEvent& e : AllEvents()) {
    ASSERT_OK(a.Apply(e));
    ASSERT_OK(b.Apply(e));
  }
  EXPECT_EQ(a.Serialize(), b.Serialize());
  // Round trip through Deserialize keeps every byte.
  ASSERT_OK_AND_ASSIGN(CredentialProjection c, CredentialProjection::Deserialize(a.Serialize()));
  EXPECT_EQ(c.Serialize(), a.Serialize());
}

TEST_F(CredentialProjectionTest, AnEventOutOfOrderIsDataLossAndChangesNothing) {
  WriteFleetLog();
  const std::vector<store::RecordedEvent> events = AllEvents();
  CredentialProjection p;
  for (size_t i = 0; i < 10; ++i) ASSERT_OK(p.Apply(events[i]));
  const std::string before = p.Serialize();

  EXPECT_THAT(p.Apply(events[11]), StatusIs(absl::StatusCode::kDataLoss));  // skips seq 11
  EXPECT_THAT(p.Apply(events[9]), StatusIs(absl::StatusCode::kDataLoss));   // seq 10 again
  EXPECT_THAT(p.Apply(events[0]), StatusIs(absl::StatusCode::kDataLoss));   // going back
  EXPECT_EQ(p.Serialize(), before);
  EXPECT_EQ(p.seq(), 10);

  // The next event in order still folds.
  EXPECT_OK(p.Apply(events[10]));
  EXPECT_EQ(p.seq(), 11);
}

TEST_F(CredentialProjectionTest, AnUndecodableEventIsDataLossAndChangesNothing) {
  WriteFleetLog();
  const std::vector<store::RecordedEvent> events = AllEvents();
  CredentialProjection p;
  for (size_t i = 0; i < 10; ++i) ASSERT_OK(p.Apply(events[i]));
  const std::string before = p.Serialize();

  store::RecordedEvent garbage = events[10];
  garbage.payload = "\xff\xff\xff";
  EXPECT_THAT(p.Apply(garbage), StatusIs(absl::StatusCode::kDataLoss));
  store::RecordedEvent unknown = events[10];
  unknown.type = "credledger.v1.SomethingNew";
  EXPECT_THAT(p.Apply(unknown), StatusIs(absl::StatusCode::kDataLoss));
  EXPECT_EQ(p.Serialize(), before);
  EXPECT_EQ(p.seq(), 10);
}

TEST_F(CredentialProjectionTest, DeserializeRejectsBytesThatDoNotParse) {
  EXPECT_THAT(CredentialProjection::Deserialize("\x0a\xff\xff\xff"),
              StatusIs(absl::StatusCode::kDataLoss));
}

TEST_F(CredentialProjectionTest, ReadsFollowTheLog) {
  WriteFleetLog();
  CredentialProjection p;
  for (const store::RecordedEvent& e : AllEvents()) ASSERT_OK(p.Apply(e));

  EXPECT_THAT(Names(p.List("", false)),
              ElementsAre("fleet-a/edge-1", "fleet-a/edge-2", "fleet-b/edge-4"));
  EXPECT_THAT(Names(p.List("", true)), ElementsAre("fleet-a/edge-1", "fleet-a/edge-2",
                                                   "fleet-b/edge-3", "fleet-b/edge-4"));
  EXPECT_THAT(Names(p.List("fleet-b", false)), ElementsAre("fleet-b/edge-4"));
  EXPECT_THAT(Names(p.List("fleet", true)), IsEmpty());  // a prefix of a namespace is not one

  // edge-2 was deleted and registered again: the new incarnation, revoked in phase three.
  std::optional<v1::TargetState> edge2 = p.Get("fleet-a", "edge-2");
  ASSERT_TRUE(edge2.has_value());
  EXPECT_EQ(edge2->target_uid(), "22222222-2222-4222-8222-bbbbbbbbbbbb");
  EXPECT_EQ(edge2->phase(), v1::TargetState::PHASE_ACTIVE);
  EXPECT_TRUE(edge2->revoked());
  EXPECT_EQ(edge2->agent_credential_ready().reason(), kReasonRevoked);
  EXPECT_THAT(edge2->credentials(), IsEmpty());

  std::optional<v1::TargetState> edge3 = p.Get("fleet-b", "edge-3");
  ASSERT_TRUE(edge3.has_value());
  EXPECT_EQ(edge3->phase(), v1::TargetState::PHASE_FINALIZED);
  EXPECT_THAT(edge3->credentials(), IsEmpty());

  std::optional<v1::TargetState> edge1 = p.Get("fleet-a", "edge-1");
  ASSERT_TRUE(edge1.has_value());
  EXPECT_EQ(edge1->agent_credential_ready().status(), "True");
  ASSERT_EQ(edge1->credentials_size(), 1);  // the confirmed rollout released the others
  EXPECT_EQ(edge1->credentials(0).phase(), v1::CredentialRecord::PHASE_ISSUED);

  EXPECT_FALSE(p.Get("fleet-a", "edge-9").has_value());
  EXPECT_TRUE(p.service().credentials_enabled());
}

TEST_F(CredentialProjectionTest, ServiceConfiguredReevaluatesTheConditionOfEveryTarget) {
  ASSERT_OK(driver_->RunPhaseOne());
  CredentialProjection p;
  for (const store::RecordedEvent& e : AllEvents()) ASSERT_OK(p.Apply(e));
  ASSERT_EQ(p.Get("fleet-a", "edge-1")->agent_credential_ready().reason(), kReasonIssued);

  ASSERT_OK(driver_->SetCredentialsEnabled(false));
  std::vector<store::RecordedEvent> all = AllEvents();
  ASSERT_OK_AND_ASSIGN(std::vector<std::string> changed, p.Apply(all.back()));
  for (const v1::TargetState& t : p.List("", false)) {
    EXPECT_EQ(t.agent_credential_ready().reason(), kReasonDisabled) << t.name();
  }
  // Every Target whose condition changed is reported as changed.
  EXPECT_THAT(changed, ElementsAre("target/fleet-a/edge-1", "target/fleet-a/edge-2",
                                   "target/fleet-b/edge-3", "target/fleet-b/edge-4"));
}

TEST_F(CredentialProjectionTest, ListOrdersByNamespaceThenName) {
  // As strings "target/a-b/x" sorts before "target/a/x"; by namespace "a" comes first.
  ASSERT_OK(driver_->SetCredentialsEnabled(true));
  for (const auto& [ns, name] : std::vector<std::pair<std::string, std::string>>{
           {"a-b", "x"}, {"a", "y"}, {"a", "x"}}) {
    ASSERT_OK(driver_->Do(ns, name, service::RegisterTarget{}).status());
  }
  ASSERT_OK_AND_ASSIGN(CredentialProjection p, testing::FoldFromSeqOne(*store_, store_->HeadSeq()));
  EXPECT_THAT(Names(p.List("", false)), ElementsAre("a/x", "a/y", "a-b/x"));
  EXPECT_THAT(Names(p.List("a", false)), ElementsAre("a/x", "a/y"));
}

// Every Target's state (or its absence) as bytes, List and the tally's counts above zero
// (a count that fell to zero stays in the tally), in one string.
std::string Reads(const CredentialProjection& p) {
  std::string text;
  for (const char* ns : {"fleet-a", "fleet-b"}) {
    for (int n = 1; n <= 5; ++n) {
      const std::optional<v1::TargetState> state = p.Get(ns, absl::StrCat("edge-", n));
      absl::StrAppend(&text, ns, n, ":", state.has_value() ? state->SerializeAsString() : "none",
                      ";");
    }
  }
  for (const v1::TargetState& state : p.List("", /*include_finalized=*/false)) {
    absl::StrAppend(&text, state.name(), ",");
  }
  for (const auto& [condition, n] : p.credential_ready_counts()) {
    if (n != 0) absl::StrAppend(&text, condition.first, "/", condition.second, "=", n, " ");
  }
  return text;
}

// The working set (projections/working_set.h) holds one Target decoded: every Target leaves
// it encoded and comes back for its next event, ServiceConfigured's pass over every Target
// included. Every answer is the one of a projection holding every Target decoded.
TEST_F(CredentialProjectionTest, AWorkingSetOfOneTargetAnswersAsOneHoldingEveryTarget) {
  WriteFleetLog();
  CredentialProjection tight(/*working_set_bound=*/1);
  CredentialProjection roomy(/*working_set_bound=*/1000);
  for (const store::RecordedEvent& e : AllEvents()) {
    ASSERT_OK_AND_ASSIGN(std::vector<std::string> tight_changed, tight.Apply(e));
    ASSERT_OK_AND_ASSIGN(std::vector<std::string> roomy_changed, roomy.Apply(e));
    ASSERT_EQ(tight_changed, roomy_changed) << "seq " << e.seq;
    ASSERT_LE(tight.decoded_states(), 1u);
    ASSERT_EQ(tight.Serialize(), roomy.Serialize()) << "seq " << e.seq;
    ASSERT_EQ(Reads(tight), Reads(roomy)) << "seq " << e.seq;
  }
  // Guards the comparison: four Targets took turns in the tight working set.
  EXPECT_EQ(roomy.decoded_states(), 4u);
}

// Applies events[from..] to `checked` and `reference`, asserting after each event that
// `checked` holds at most `bound` Targets decoded and serializes and reads as `reference`.
void FollowTogether(CredentialProjection& checked, CredentialProjection& reference,
                    const std::vector<store::RecordedEvent>& events, size_t from, size_t bound) {
  for (size_t i = from; i < events.size(); ++i) {
    ASSERT_OK(checked.Apply(events[i]));
    ASSERT_OK(reference.Apply(events[i]));
    ASSERT_LE(checked.decoded_states(), bound);
    ASSERT_EQ(checked.Serialize(), reference.Serialize()) << "seq " << events[i].seq;
    ASSERT_EQ(Reads(checked), Reads(reference)) << "seq " << events[i].seq;
  }
}

// A bulk fold (Fold) keeps every Target it touches decoded; Compact encodes them all, and the
// projection then follows the log event by event within its bound, answering the same.
TEST_F(CredentialProjectionTest, ABulkFoldKeepsTargetsDecodedUntilCompactAndAnswersTheSame) {
  WriteFleetLog();
  const std::vector<store::RecordedEvent> events = AllEvents();
  const size_t bulk = events.size() - 20;
  CredentialProjection tight(/*working_set_bound=*/1);
  CredentialProjection roomy;
  for (size_t i = 0; i < bulk; ++i) {
    ASSERT_OK(tight.Fold(events[i]));
    ASSERT_OK(roomy.Apply(events[i]));
  }
  EXPECT_EQ(tight.decoded_states(), 4u);
  tight.Compact();
  EXPECT_EQ(tight.decoded_states(), 0u);
  EXPECT_EQ(tight.Serialize(), roomy.Serialize());
  EXPECT_EQ(Reads(tight), Reads(roomy));
  FollowTogether(tight, roomy, events, bulk, /*bound=*/1);
}

// A snapshot is read one Target at a time and every Target rests encoded: the projection
// read holds none decoded, answers as the one written, and follows the log within its bound.
TEST_F(CredentialProjectionTest, ASnapshotIsReadWithEveryTargetAtRest) {
  WriteFleetLog();
  const std::vector<store::RecordedEvent> events = AllEvents();
  const size_t head = events.size() - 20;
  CredentialProjection written;
  for (size_t i = 0; i < head; ++i) ASSERT_OK(written.Apply(events[i]));
  ASSERT_GT(written.decoded_states(), 0u);
  ASSERT_OK_AND_ASSIGN(CredentialProjection read,
                       CredentialProjection::Deserialize(written.Serialize()));
  EXPECT_EQ(read.decoded_states(), 0u);
  EXPECT_EQ(read.Serialize(), written.Serialize());
  EXPECT_EQ(Reads(read), Reads(written));
  FollowTogether(read, written, events, head, kWorkingSetBound);
}

// Serialize writes the snapshot field by field from the states as they rest: the bytes are
// the CredentialFleetState of every Target's state in stream order, serialized whole.
TEST_F(CredentialProjectionTest, SerializeIsTheFleetMessageOfEveryTargetByteForByte) {
  WriteFleetLog();
  CredentialProjection p(/*working_set_bound=*/2);
  for (const store::RecordedEvent& e : AllEvents()) ASSERT_OK(p.Apply(e));
  std::map<std::string, v1::TargetState> by_stream;
  for (v1::TargetState& state : p.List("", /*include_finalized=*/true)) {
    by_stream[TargetStream(state.namespace_(), state.name())] = std::move(state);
  }
  v1::CredentialFleetState fleet;
  *fleet.mutable_service() = p.service();
  for (const auto& [stream, state] : by_stream) *fleet.add_targets() = state;
  fleet.set_seq(p.seq());
  ASSERT_EQ(p.decoded_states(), 2u);  // states decoded and encoded both
  EXPECT_EQ(p.Serialize(), store::SerializeDeterministic(fleet));
}

}  // namespace credential_projection_test
}  // namespace credledger::projections
