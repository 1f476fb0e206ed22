// Tests of IdentityCommandBus and BridgeMirrorSink on a real SQLite store (docs/design.md,
// "Idempotency", "Group commit" and "Deciders"): appended events and the returned state,
// request-id idempotency, rejected commands and outcome batches appending nothing.
#include "service/bus/identity_command_bus.h"

#include <memory>
#include <string>
#include <vector>

#include "common/clock.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "projections/identity_state.h"
#include "service/bridge/bridge_mirror_sink.h"
#include "store/event_codec.h"
#include "store/sqlite_event_store.h"
#include "test/support/status_matchers.h"
#include "test/support/temp_dir.h"
#include "test/support/test_event_log.h"

namespace credledger::service {
namespace identity_command_bus_test {

using ::credledger::testing::StatusIs;
using ::testing::AllOf;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

// Source fingerprints (the buses treat them as opaque values of that shape).
const std::string kHash1 = "hmac-sha256:0123456789abcdef:" + std::string(64, '1');
const std::string kHash2 = "hmac-sha256:0123456789abcdef:" + std::string(64, '2');

v1::IdentitySpec Spec() {
  v1::IdentitySpec spec;
  spec.mutable_secret_ref()->set_namespace_("captf-system");
  spec.mutable_secret_ref()->set_name("aws-source");
  spec.mutable_allowed_namespaces()->add_list("team-a");
  return spec;
}

v1::AccessReview Review() {
  v1::AccessReview review;
  review.set_user("alice");
  *review.mutable_secret() = Spec().secret_ref();
  review.set_allowed(true);
  return review;
}

v1::OwnerReference Owner() {
  v1::OwnerReference owner;
  owner.set_api_version("infrastructure.captf.io/v1alpha1");
  owner.set_kind("TerraformCluster");
  owner.set_name("c1");
  owner.set_uid("0f8fad5b-d9cb-469f-a165-70867728950e");
  return owner;
}

kubebridge::RecordMirrorWritten Written(const std::string& hash) {
  v1::SecretRef secret;
  secret.set_name("captf-creds-aws");
  secret.set_uid("m-1");
  return {"team-a", secret, hash, {Owner()}, v1::MIRROR_WRITE_KIND_CREATED, {}};
}

class IdentityCommandBusTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_OK_AND_ASSIGN(store_, ::credledger::testing::OpenTestEventLog(dir_.path(), &clock_));
    bus_ = std::make_unique<IdentityCommandBus>(store_.get());
    sink_ = std::make_unique<BridgeMirrorSink>(bus_.get(), &clock_);
  }

  absl::StatusOr<IdentityCommandResult> Run(const IdentityCommand& command,
                                            const std::string& request_id,
                                            const std::string& identity = "aws") {
    clock_.Advance(absl::Seconds(1));
    return bus_->Execute(command, {identity, clock_.Now(), "alice", request_id});
  }

  // Creates `aws` and binds c1 in team-a.
  void CreateAndBind() {
    ASSERT_OK(Run(CreateIdentity{Spec(), Review()}, "req-create"));
    ASSERT_OK(Run(BindIdentity{"team-a", Owner()}, "req-bind"));
  }

  absl::StatusOr<std::vector<store::RecordedEvent>> Stream() {
    return store_->ReadStream("identity/aws", 0, 100);
  }

  testing::TempDir dir_;
  common::FakeClock clock_;
  std::unique_ptr<store::SqliteEventStore> store_;
  std::unique_ptr<IdentityCommandBus> bus_;
  std::unique_ptr<BridgeMirrorSink> sink_;
};

TEST_F(IdentityCommandBusTest, ACommandAppendsToTheIdentityStreamWithItsMetadata) {
  ASSERT_OK_AND_ASSIGN(IdentityCommandResult created,
                       Run(CreateIdentity{Spec(), Review()}, "req-1"));
  EXPECT_FALSE(created.replayed);
  ASSERT_EQ(created.events.size(), 1u);
  EXPECT_EQ(created.events[0].stream, "identity/aws");
  EXPECT_EQ(created.events[0].stream_version, 0);
  ASSERT_OK_AND_ASSIGN(v1::EventMetadata metadata,
                       store::EventCodec::DecodeMetadata(created.events[0]));
  EXPECT_EQ(metadata.actor(), "alice");
  EXPECT_EQ(metadata.request_id(), "req-1");
  EXPECT_EQ(metadata.command(), "CreateIdentity");
  ASSERT_OK_AND_ASSIGN(v1::Event event, store::EventCodec::Default().Decode(created.events[0]));
  ASSERT_TRUE(event.has_identity_created());
  EXPECT_EQ(event.identity_created().name(), "aws");
  EXPECT_EQ(created.state.phase(), v1::IdentityState::PHASE_ACTIVE);
  EXPECT_EQ(created.state.seq(), created.events[0].seq);
}

TEST_F(IdentityCommandBusTest, TheReturnedStateIsTheFoldOfTheStream) {
  CreateAndBind();
  ASSERT_OK_AND_ASSIGN(IdentityCommandResult result,
                       Run(ApplyMirrorOutcomes{{Written(kHash1)}}, "req-2"));
  ASSERT_OK_AND_ASSIGN(v1::IdentityState loaded, bus_->LoadState({.identity = "aws"}));
  EXPECT_EQ(result.state.SerializeAsString(), loaded.SerializeAsString());
  EXPECT_EQ(result.state.stream_version(), 2);
  ASSERT_NE(projections::FindIdentityNamespace(loaded, "team-a"), nullptr);
  EXPECT_TRUE(projections::FindIdentityNamespace(loaded, "team-a")->has_mirror());
}

TEST_F(IdentityCommandBusTest, LoadStateOfAnUnknownIdentityIsTheEmptyState) {
  ASSERT_OK_AND_ASSIGN(v1::IdentityState state, bus_->LoadState({.identity = "nobody"}));
  EXPECT_EQ(state.phase(), v1::IdentityState::PHASE_UNSPECIFIED);
}

TEST_F(IdentityCommandBusTest, ARetriedRequestIdReturnsTheOriginalEventsAndAppendsNothing) {
  CreateAndBind();
  ASSERT_OK_AND_ASSIGN(IdentityCommandResult first,
                       Run(ApplyMirrorOutcomes{{Written(kHash1)}}, "req-3"));
  ASSERT_EQ(first.events.size(), 1u);
  const int64_t head = store_->HeadSeq();

  // Without the replay, a second MirrorWritten would be appended (writes are always recorded).
  ASSERT_OK_AND_ASSIGN(IdentityCommandResult again,
                       Run(ApplyMirrorOutcomes{{Written(kHash1)}}, "req-3"));
  EXPECT_TRUE(again.replayed);
  ASSERT_EQ(again.events.size(), 1u);
  EXPECT_EQ(again.events[0].seq, first.events[0].seq);
  EXPECT_EQ(again.events[0].event_id, first.events[0].event_id);
  EXPECT_EQ(again.events[0].chain_hash, first.events[0].chain_hash);
  EXPECT_EQ(store_->HeadSeq(), head);
  EXPECT_EQ(again.state.SerializeAsString(), first.state.SerializeAsString());
}

TEST_F(IdentityCommandBusTest, ARequestIdReusedForAnotherCommandIsRefused) {
  CreateAndBind();
  const int64_t head = store_->HeadSeq();
  EXPECT_THAT(Run(DeleteIdentity{}, "req-bind"),
              StatusIs(absl::StatusCode::kFailedPrecondition,
                       AllOf(HasSubstr("req-bind"), HasSubstr("BindIdentity"))));
  EXPECT_THAT(Run(BindIdentity{"team-a", Owner()}, "req-bind", "gcp"),
              StatusIs(absl::StatusCode::kFailedPrecondition, HasSubstr("identity/aws")));
  EXPECT_EQ(store_->HeadSeq(), head);
}

TEST_F(IdentityCommandBusTest, RejectedCommandsAppendNothingAndLeaveTheRequestIdUnused) {
  CreateAndBind();
  const int64_t head = store_->HeadSeq();
  EXPECT_THAT(Run(DeleteIdentity{}, "req-4"),
              StatusIs(absl::StatusCode::kFailedPrecondition, HasSubstr("bound in team-a")));
  EXPECT_THAT(Run(BindIdentity{"team-a", Owner()}, "req-4", "gcp"),
              StatusIs(absl::StatusCode::kNotFound));
  EXPECT_EQ(store_->HeadSeq(), head);

  ASSERT_OK_AND_ASSIGN(IdentityCommandResult unbound,
                       Run(UnbindIdentity{"team-a", Owner()}, "req-4"));
  EXPECT_FALSE(unbound.replayed);
  EXPECT_EQ(unbound.events.size(), 1u);
}

TEST_F(IdentityCommandBusTest, ACommandAlreadySatisfiedAppendsNothing) {
  CreateAndBind();
  const int64_t head = store_->HeadSeq();
  ASSERT_OK_AND_ASSIGN(IdentityCommandResult again, Run(BindIdentity{"team-a", Owner()}, "req-5"));
  EXPECT_FALSE(again.replayed);
  EXPECT_THAT(again.events, IsEmpty());
  EXPECT_EQ(again.state.phase(), v1::IdentityState::PHASE_ACTIVE);
  EXPECT_EQ(store_->HeadSeq(), head);
}

TEST_F(IdentityCommandBusTest, AMissingRequestIdIsInvalidArgument) {
  EXPECT_THAT(Run(CreateIdentity{Spec(), Review()}, ""),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("request_id")));
  EXPECT_EQ(store_->HeadSeq(), 0);
}

TEST_F(IdentityCommandBusTest, TheSinkRecordsABatchAsTheServiceInOneCommand) {
  CreateAndBind();
  ASSERT_OK_AND_ASSIGN(
      kubebridge::RecordedOutcomes recorded,
      sink_->Record(
          "aws",
          {kubebridge::RecordSourceObserved{true, kHash1, {"AWS_KEY"}, "7"}, Written(kHash1)},
          "credledger:mirror/aws/0/1/write"));
  EXPECT_EQ(recorded.appended, 2);
  const v1::IdentityState& state = recorded.state;
  const v1::IdentityNamespaceState* ns = projections::FindIdentityNamespace(state, "team-a");
  ASSERT_NE(ns, nullptr);
  EXPECT_EQ(ns->credentials_mirrored().status(), "True");

  ASSERT_OK_AND_ASSIGN(auto events, Stream());
  ASSERT_EQ(events.size(), 4u);
  for (size_t i = 2; i < events.size(); ++i) {
    ASSERT_OK_AND_ASSIGN(v1::EventMetadata metadata, store::EventCodec::DecodeMetadata(events[i]));
    EXPECT_EQ(metadata.actor(), "credledger");
    EXPECT_EQ(metadata.command(), "ApplyMirrorOutcomes");
    EXPECT_EQ(metadata.request_id(), "credledger:mirror/aws/0/1/write");
  }
  ASSERT_OK_AND_ASSIGN(v1::IdentityState loaded, sink_->Load("aws"));
  EXPECT_EQ(loaded.SerializeAsString(), state.SerializeAsString());

  // The same request again is answered from the log: nothing appended now.
  ASSERT_OK_AND_ASSIGN(
      kubebridge::RecordedOutcomes repeated,
      sink_->Record(
          "aws",
          {kubebridge::RecordSourceObserved{true, kHash1, {"AWS_KEY"}, "7"}, Written(kHash1)},
          "credledger:mirror/aws/0/1/write"));
  EXPECT_EQ(repeated.appended, 0);
  EXPECT_EQ(repeated.state.stream_version(), state.stream_version());
}

TEST_F(IdentityCommandBusTest, TheSinkAppendsNothingWhenOneOutcomeOfTheBatchIsMalformed) {
  CreateAndBind();
  const int64_t head = store_->HeadSeq();
  EXPECT_THAT(sink_->Record("aws",
                            {kubebridge::RecordSourceObserved{true, kHash2, {"AWS_KEY"}, "8"},
                             Written("not-a-hash")},
                            "credledger:mirror/aws/0/1/write"),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("outcomes[1]")));
  EXPECT_EQ(store_->HeadSeq(), head);
  ASSERT_OK_AND_ASSIGN(v1::IdentityState state, sink_->Load("aws"));
  EXPECT_FALSE(state.source().observed());
}

TEST_F(IdentityCommandBusTest, TheSinkReportsAnUnknownIdentityAsNotFound) {
  EXPECT_THAT(sink_->Record("aws", {Written(kHash1)}, "credledger:mirror/aws/0/0/write"),
              StatusIs(absl::StatusCode::kNotFound, HasSubstr("identity \"aws\"")));
  EXPECT_EQ(store_->HeadSeq(), 0);
}

}  // namespace identity_command_bus_test
}  // namespace credledger::service
