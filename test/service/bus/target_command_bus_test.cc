// Tests of TargetCommandBus on a real SQLite store (docs/design.md, "Idempotency",
// "Group commit" and "Deciders"): request-id idempotency, rejected commands appending
// nothing, and what the appended events carry.
#include "service/bus/target_command_bus.h"

#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "common/clock.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "projections/target_state.h"
#include "store/event_codec.h"
#include "store/sqlite_event_store.h"
#include "test/support/status_matchers.h"
#include "test/support/temp_dir.h"
#include "test/support/test_event_log.h"

namespace credledger::service {
namespace target_command_bus_test {

using ::credledger::testing::StatusIs;
using ::testing::HasSubstr;
using ::testing::StartsWith;
using ::testing::IsEmpty;

constexpr char kUid[] = "6f1c2a9e-0b7d-4e52-9c3a-1d2e3f405162";
constexpr char kOtherUid[] = "a0b1c2d3-e4f5-4a6b-8c7d-9e0f1a2b3c4d";

class TargetCommandBusTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_OK_AND_ASSIGN(store_, ::credledger::testing::OpenTestEventLog(dir_.path(), &clock_));
    bus_ = std::make_unique<TargetCommandBus>(store_.get());
    service_.set_agent_apiserver_url("https://agents.example:6443");
    service_.set_agent_token_ttl_seconds(86400);
    service_.set_credentials_enabled(true);
  }

  CommandContext Context(const std::string& name, const std::string& request_id) {
    return {"fleet", name, clock_.Now(), "alice", request_id, service_};
  }

  absl::StatusOr<CommandResult> Run(const TargetCommand& command, const std::string& name,
                                    const std::string& request_id) {
    clock_.Advance(absl::Seconds(1));
    return bus_->Execute(command, Context(name, request_id));
  }

  testing::TempDir dir_;
  common::FakeClock clock_;
  std::unique_ptr<store::SqliteEventStore> store_;
  std::unique_ptr<TargetCommandBus> bus_;
  v1::ServiceConfigured service_;
};

TEST_F(TargetCommandBusTest, ARetriedRequestIdReturnsTheOriginalEventsAndAppendsNothing) {
  ASSERT_OK_AND_ASSIGN(CommandResult first, Run(RegisterTarget{kUid, true}, "edge-1", "req-1"));
  ASSERT_EQ(first.events.size(), 2u);  // TargetRegistered, CredentialMintRequested
  EXPECT_FALSE(first.replayed);
  const int64_t head = store_->HeadSeq();

  ASSERT_OK_AND_ASSIGN(CommandResult again, Run(RegisterTarget{kUid, true}, "edge-1", "req-1"));
  EXPECT_TRUE(again.replayed);
  ASSERT_EQ(again.events.size(), first.events.size());
  for (size_t i = 0; i < first.events.size(); ++i) {
    EXPECT_EQ(again.events[i].seq, first.events[i].seq);
    EXPECT_EQ(again.events[i].event_id, first.events[i].event_id);
    EXPECT_EQ(again.events[i].payload, first.events[i].payload);
    EXPECT_EQ(again.events[i].chain_hash, first.events[i].chain_hash);
  }
  EXPECT_EQ(store_->HeadSeq(), head);
}

// Regression: a request id reused with another command on the same Target was answered with
// the first command's events, so the second command silently did nothing.
TEST_F(TargetCommandBusTest, ARequestIdReusedForAnotherCommandIsFailedPrecondition) {
  ASSERT_OK(Run(RegisterTarget{kUid, true}, "edge-1", "req-1"));
  const int64_t head = store_->HeadSeq();
  EXPECT_THAT(Run(RequestRotation{"r1"}, "edge-1", "req-1"),
              StatusIs(absl::StatusCode::kFailedPrecondition,
                       ::testing::AllOf(HasSubstr("req-1"), HasSubstr("RegisterTarget"))));
  EXPECT_EQ(store_->HeadSeq(), head);
}

// A client retry must repeat its request exactly: the digest of the first request is
// recorded and a different one under the same id is refused instead of answered as a replay.
TEST_F(TargetCommandBusTest, ARequestIdReusedWithADifferentRequestIsFailedPrecondition) {
  ASSERT_OK(Run(RegisterTarget{kUid, true}, "edge-1", "req-0"));
  CommandContext first = Context("edge-1", "req-1");
  first.request_digest = std::string(64, 'a');
  ASSERT_OK_AND_ASSIGN(CommandResult revoked, bus_->Execute(Revoke{"lost"}, first));
  ASSERT_FALSE(revoked.events.empty());
  ASSERT_OK_AND_ASSIGN(v1::EventMetadata metadata,
                       store::EventCodec::DecodeMetadata(revoked.events.front()));
  EXPECT_EQ(metadata.request_digest(), first.request_digest);
  const int64_t head = store_->HeadSeq();

  CommandContext same = Context("edge-1", "req-1");
  same.request_digest = first.request_digest;
  ASSERT_OK_AND_ASSIGN(CommandResult again, bus_->Execute(Revoke{"lost"}, same));
  EXPECT_TRUE(again.replayed);

  CommandContext changed = Context("edge-1", "req-1");
  changed.request_digest = std::string(64, 'b');
  EXPECT_THAT(bus_->Execute(Revoke{"stolen"}, changed),
              StatusIs(absl::StatusCode::kFailedPrecondition,
                       ::testing::AllOf(HasSubstr("\"req-1\""), HasSubstr("Revoke"),
                                        HasSubstr("other fields differ"))));
  EXPECT_EQ(store_->HeadSeq(), head);
}

// Events of the service's own commands, and events recorded before digests existed, carry
// no digest; a retry under their id is still answered as a replay.
TEST_F(TargetCommandBusTest, AnEmptyDigestOnEitherSideIsNotCompared) {
  ASSERT_OK_AND_ASSIGN(CommandResult first, Run(RegisterTarget{kUid, true}, "edge-1", "req-1"));
  CommandContext with_digest = Context("edge-1", "req-1");
  with_digest.request_digest = std::string(64, 'c');
  ASSERT_OK_AND_ASSIGN(CommandResult again,
                       bus_->Execute(RegisterTarget{kUid, true}, with_digest));
  EXPECT_TRUE(again.replayed);
  EXPECT_EQ(again.events.back().seq, first.events.back().seq);

  CommandContext digested = Context("edge-1", "req-2");
  digested.request_digest = std::string(64, 'd');
  ASSERT_OK(bus_->Execute(Revoke{"lost"}, digested));
  ASSERT_OK_AND_ASSIGN(CommandResult undigested, Run(Revoke{"lost"}, "edge-1", "req-2"));
  EXPECT_TRUE(undigested.replayed);
}

TEST_F(TargetCommandBusTest, ARetryAfterLaterCommandsReturnsTheOriginalEventsAndTheCurrentState) {
  ASSERT_OK_AND_ASSIGN(CommandResult first, Run(RegisterTarget{kUid, true}, "edge-1", "req-1"));
  ASSERT_OK(Run(Revoke{"lost"}, "edge-1", "req-2"));
  const int64_t head = store_->HeadSeq();

  ASSERT_OK_AND_ASSIGN(CommandResult again, Run(RegisterTarget{kUid, true}, "edge-1", "req-1"));
  EXPECT_TRUE(again.replayed);
  ASSERT_EQ(again.events.size(), first.events.size());
  EXPECT_EQ(again.events.back().seq, first.events.back().seq);
  EXPECT_TRUE(again.state.revoked());
  EXPECT_EQ(store_->HeadSeq(), head);
}

TEST_F(TargetCommandBusTest, ARequestIdReusedForAnotherTargetIsFailedPrecondition) {
  ASSERT_OK(Run(RegisterTarget{kUid, true}, "edge-1", "req-1"));
  const int64_t head = store_->HeadSeq();
  EXPECT_THAT(Run(RegisterTarget{kOtherUid, true}, "edge-2", "req-1"),
              StatusIs(absl::StatusCode::kFailedPrecondition,
                       ::testing::AllOf(HasSubstr("request_id"), HasSubstr("target/fleet/edge-1"))));
  EXPECT_EQ(store_->HeadSeq(), head);
  ASSERT_OK_AND_ASSIGN(auto edge2, store_->ReadStream("target/fleet/edge-2", 0, 10));
  EXPECT_THAT(edge2, IsEmpty());
}

TEST_F(TargetCommandBusTest, RejectedCommandsAppendNothingAndLeaveTheRequestIdUnused) {
  ASSERT_OK(Run(RegisterTarget{kUid, true}, "edge-1", "req-1"));
  const int64_t head = store_->HeadSeq();

  EXPECT_THAT(Run(RequestRotation{"r1"}, "edge-9", "req-2"),
              StatusIs(absl::StatusCode::kNotFound));
  EXPECT_THAT(Run(RequestRotation{"two words"}, "edge-1", "req-2"),
              StatusIs(absl::StatusCode::kInvalidArgument, StartsWith("value: ")));
  EXPECT_THAT(Run(RegisterTarget{kOtherUid, true}, "edge-1", "req-2"),
              StatusIs(absl::StatusCode::kFailedPrecondition));
  EXPECT_THAT(Run(ConfirmRollout{"1.0.0-abc"}, "edge-1", "req-2"),
              StatusIs(absl::StatusCode::kFailedPrecondition));  // no current credential yet
  EXPECT_EQ(store_->HeadSeq(), head);

  // req-2 was never recorded, so a valid command under it is decided and appended.
  ASSERT_OK_AND_ASSIGN(CommandResult accepted, Run(Revoke{""}, "edge-1", "req-2"));
  EXPECT_FALSE(accepted.replayed);
  EXPECT_FALSE(accepted.events.empty());
  EXPECT_GT(store_->HeadSeq(), head);
}

TEST_F(TargetCommandBusTest, AMissingRequestIdIsInvalidArgumentNamingRequestId) {
  EXPECT_THAT(Run(RegisterTarget{kUid, true}, "edge-1", ""),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("request_id")));
  EXPECT_EQ(store_->HeadSeq(), 0);
}

TEST_F(TargetCommandBusTest, ACommandAlreadySatisfiedAppendsNothing) {
  ASSERT_OK(Run(RegisterTarget{kUid, true}, "edge-1", "req-1"));
  const int64_t head = store_->HeadSeq();
  ASSERT_OK_AND_ASSIGN(CommandResult again, Run(RegisterTarget{kUid, true}, "edge-1", "req-2"));
  EXPECT_FALSE(again.replayed);
  EXPECT_THAT(again.events, IsEmpty());
  EXPECT_EQ(again.state.target_uid(), kUid);
  EXPECT_EQ(store_->HeadSeq(), head);
}

TEST_F(TargetCommandBusTest, AppendedEventsCarryActorRequestIdAndTheMintAttemptAsCorrelation) {
  ASSERT_OK_AND_ASSIGN(CommandResult result, Run(RegisterTarget{kUid, true}, "edge-1", "req-1"));
  ASSERT_EQ(result.events.size(), 2u);
  const store::EventCodec& codec = store::EventCodec::Default();

  EXPECT_EQ(result.events[0].stream, "target/fleet/edge-1");
  EXPECT_EQ(result.events[0].stream_version, 0);
  EXPECT_EQ(result.events[1].stream_version, 1);
  ASSERT_OK_AND_ASSIGN(v1::EventMetadata registered, codec.DecodeMetadata(result.events[0]));
  EXPECT_EQ(registered.actor(), "alice");
  EXPECT_EQ(registered.request_id(), "req-1");
  EXPECT_EQ(registered.correlation_id(), "");
  ASSERT_OK_AND_ASSIGN(v1::EventMetadata mint, codec.DecodeMetadata(result.events[1]));
  ASSERT_OK_AND_ASSIGN(v1::Event mint_event, codec.Decode(result.events[1]));
  ASSERT_TRUE(mint_event.has_credential_mint_requested());
  EXPECT_EQ(mint.correlation_id(), mint_event.credential_mint_requested().attempt_id());
  EXPECT_EQ(mint.request_id(), "req-1");
}

// A Secret deletion a revocation or a deletion brought about names that event's seq as its
// cause; one the bridge decided by itself (a superseded credential past its expiry) names none.
TEST_F(TargetCommandBusTest, SecretDeletionsNameTheRevocationOrDeletionThatCausedThem) {
  const store::EventCodec& codec = store::EventCodec::Default();
  auto secret = [](int n) {
    v1::SecretRef ref;
    ref.set_name(absl::StrCat("solar-agent-edge-1-", n));
    ref.set_uid(absl::StrCat("5ec7e700-0000-4000-8000-00000000000", n));
    return ref;
  };
  auto causation = [&](const CommandResult& result) {
    EXPECT_EQ(result.events.size(), 1u);
    absl::StatusOr<v1::EventMetadata> metadata = codec.DecodeMetadata(result.events.at(0));
    EXPECT_OK(metadata);
    return metadata.ok() ? metadata->causation_seq() : -1;
  };
  ASSERT_OK(Run(RegisterTarget{kUid, true}, "edge-1", "req-1"));
  for (int n = 1; n <= 3; ++n) {
    ASSERT_OK(Run(kubebridge::RecordSecretCreated{"m1", secret(n), n}, "edge-1",
                  absl::StrCat("created-", n)));
  }
  ASSERT_OK_AND_ASSIGN(
      CommandResult expired,
      Run(kubebridge::RecordSecretDeleted{secret(1), v1::SECRET_DELETION_REASON_EXPIRED}, "edge-1",
          "deleted-1"));
  EXPECT_EQ(causation(expired), 0);

  ASSERT_OK_AND_ASSIGN(CommandResult revoked, Run(Revoke{"lost"}, "edge-1", "revoke"));
  const int64_t revoked_seq = revoked.events.back().seq;
  ASSERT_OK_AND_ASSIGN(
      CommandResult by_revocation,
      Run(kubebridge::RecordSecretDeleted{secret(2), v1::SECRET_DELETION_REASON_REVOKED}, "edge-1",
          "deleted-2"));
  EXPECT_EQ(causation(by_revocation), revoked_seq);

  ASSERT_OK_AND_ASSIGN(CommandResult deleting, Run(DeleteTarget{}, "edge-1", "delete"));
  const int64_t deletion_seq = deleting.events.back().seq;
  ASSERT_OK_AND_ASSIGN(
      CommandResult by_deletion,
      Run(kubebridge::RecordSecretDeleted{secret(3), v1::SECRET_DELETION_REASON_TARGET_DELETED},
          "edge-1", "deleted-3"));
  EXPECT_EQ(causation(by_deletion), deletion_seq);
  EXPECT_NE(deletion_seq, revoked_seq);
}

TEST_F(TargetCommandBusTest, TheReturnedStateIsTheFoldOfTheStream) {
  ASSERT_OK(Run(RegisterTarget{kUid, true}, "edge-1", "req-1"));
  ASSERT_OK_AND_ASSIGN(CommandResult result, Run(RequestRotation{"r1"}, "edge-1", "req-2"));
  ASSERT_OK_AND_ASSIGN(v1::TargetState loaded, bus_->LoadState(
                           {.target_namespace = "fleet", .target_name = "edge-1", .service = service_}));
  EXPECT_EQ(result.state.SerializeAsString(), loaded.SerializeAsString());
  EXPECT_EQ(result.state.pending_request_value(), "r1");
  EXPECT_EQ(result.state.stream_version(), 2);
}

TEST_F(TargetCommandBusTest, ConcurrentCommandsForOneTargetAreAllDecidedAgainstTheLatestState) {
  ASSERT_OK(Run(RegisterTarget{kUid, true}, "edge-1", "req-0"));
  constexpr int kThreads = 8;
  std::vector<absl::Status> results(kThreads);
  std::vector<std::thread> threads;
  for (int i = 0; i < kThreads; ++i) {
    threads.emplace_back([&, i] {
      results[i] = bus_->Execute(RequestRotation{"r" + std::to_string(i)},
                                 Context("edge-1", "req-" + std::to_string(i + 1)))
                       .status();
    });
  }
  for (std::thread& t : threads) t.join();
  for (const absl::Status& s : results) EXPECT_OK(s);
  // One RotationRequested per command; stream versions without gaps or duplicates.
  ASSERT_OK_AND_ASSIGN(auto events, store_->ReadStream("target/fleet/edge-1", 0, 100));
  int rotations = 0;
  for (size_t i = 0; i < events.size(); ++i) {
    EXPECT_EQ(events[i].stream_version, static_cast<int64_t>(i));
    ASSERT_OK_AND_ASSIGN(v1::Event e, store::EventCodec::Default().Decode(events[i]));
    rotations += e.has_rotation_requested();
  }
  EXPECT_EQ(rotations, kThreads);
}

// The bus keeps each Target's fold: events another writer appended since are folded before
// deciding, so the command is decided against them and appended under the stream's head.
TEST_F(TargetCommandBusTest, EventsAnotherBusAppendedAreFoldedBeforeDeciding) {
  ASSERT_OK(Run(RegisterTarget{kUid, true}, "edge-1", "req-0"));
  TargetCommandBus other(store_.get());
  ASSERT_OK(other.Execute(RequestRotation{"r1"}, Context("edge-1", "req-1")));
  ASSERT_OK(other.Execute(RequestRotation{"r2"}, Context("edge-1", "req-2")));
  ASSERT_OK_AND_ASSIGN(CommandResult result, Run(RequestRotation{"r3"}, "edge-1", "req-3"));
  ASSERT_OK_AND_ASSIGN(auto events, store_->ReadStream("target/fleet/edge-1", 0, 100));
  EXPECT_EQ(result.state.stream_version(), events.back().stream_version);
  EXPECT_EQ(result.events.back().seq, events.back().seq);
  ASSERT_OK_AND_ASSIGN(v1::TargetState loaded, other.LoadState(Context("edge-1", "")));
  EXPECT_EQ(loaded.SerializeAsString(), result.state.SerializeAsString());
}

}  // namespace target_command_bus_test
}  // namespace credledger::service
