// TargetWatch: snapshot then changes in seq order, the wake after an empty poll, the queue
// bounded in items and bytes for slow consumers, and resuming after changes the projector no longer
// keeps.
#include "service/api/target_watch.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "service/bus/target_command_bus.h"
#include "service/server/service_configuration.h"
#include "store/sqlite_event_store.h"
#include "test/support/status_matchers.h"
#include "test/support/temp_dir.h"
#include "test/support/watch_waiter.h"

namespace credledger::service {
namespace target_watch_test {

using ::testing::HasSubstr;
using testing::StatusIs;
using Kind = v1::WatchTargetsResponse;

class TargetWatchTest : public ::testing::Test {
 protected:
  void SetUp() override {
    store::SqliteEventStoreOptions options;
    options.path = dir_.path() / "events.db";
    ASSERT_OK_AND_ASSIGN(store_, store::SqliteEventStore::Open(options));
    service_.set_credentials_enabled(true);
    service_.set_agent_apiserver_url("https://agents.example:6443");
    service_.set_agent_token_ttl_seconds(86400);
    service_.set_connection_hash("0a1b2c3d4e");
    ASSERT_OK(RecordServiceConfiguration(*store_, service_, "credledger"));
    bus_ = std::make_unique<TargetCommandBus>(store_.get());
  }

  void StartProjector(size_t change_history) {
    projections::CredentialProjector::Options options;
    options.change_history = change_history;
    ASSERT_OK_AND_ASSIGN(projector_,
                         projections::CredentialProjector::Start(store_.get(), options));
  }

  // Registers demo/<name>; returns the seq of its last event once the projector has it.
  int64_t Register(const std::string& name) {
    CommandContext context{"demo", name, absl::Now(), "test", "req-" + name, service_};
    RegisterTarget command{"0f8fad5b-d9cb-469f-a165-70867728950e", true};
    auto result = bus_->Execute(command, context);
    EXPECT_OK(result);
    const int64_t seq = result->events.back().seq;
    EXPECT_TRUE(projector_->WaitForSeq(seq, absl::Seconds(10)));
    return seq;
  }

  v1::WatchTargetsResponse Next(TargetWatch& watch) {
    auto item = waiter_.Next(watch, absl::Seconds(10));
    EXPECT_OK(item);
    EXPECT_TRUE(item->has_value());
    return item->value_or(v1::WatchTargetsResponse());
  }

  testing::TempDir dir_;
  WatchWaiter waiter_;
  std::unique_ptr<store::SqliteEventStore> store_;
  v1::ServiceConfigured service_;
  std::unique_ptr<TargetCommandBus> bus_;
  std::unique_ptr<projections::CredentialProjector> projector_;
};

TEST_F(TargetWatchTest, SnapshotMarkerThenChangesInSeqOrder) {
  StartProjector(100);
  const int64_t first = Register("edge-1");
  ASSERT_OK_AND_ASSIGN(auto watch,
                       TargetWatch::Start(projector_.get(), {"", 0, 16}, waiter_.wake()));
  const int64_t second = Register("edge-2");

  v1::WatchTargetsResponse item = Next(*watch);
  EXPECT_EQ(item.kind(), Kind::KIND_SNAPSHOT);
  EXPECT_EQ(item.seq(), first);
  EXPECT_EQ(item.target().name(), "edge-1");
  EXPECT_EQ(item.target().uid(), "0f8fad5b-d9cb-469f-a165-70867728950e");
  item = Next(*watch);
  EXPECT_EQ(item.kind(), Kind::KIND_SNAPSHOT_END);
  EXPECT_EQ(item.seq(), first);
  int64_t previous = first;
  do {
    item = Next(*watch);
    EXPECT_EQ(item.kind(), Kind::KIND_CHANGE);
    EXPECT_EQ(item.target().name(), "edge-2");
    EXPECT_GT(item.seq(), previous);
    previous = item.seq();
  } while (item.seq() < second && !HasFailure());
  ASSERT_OK_AND_ASSIGN(auto nothing, watch->Poll());
  EXPECT_FALSE(nothing.has_value());
}

TEST_F(TargetWatchTest, AnEmptyPollIsFollowedByOneWakeWhenTheNextItemArrives) {
  StartProjector(100);
  ASSERT_OK_AND_ASSIGN(auto watch,
                       TargetWatch::Start(projector_.get(), {"", 0, 16}, waiter_.wake()));
  EXPECT_EQ(Next(*watch).kind(), Kind::KIND_SNAPSHOT_END);
  ASSERT_OK_AND_ASSIGN(auto nothing, watch->Poll());
  ASSERT_FALSE(nothing.has_value());
  EXPECT_EQ(waiter_.wakes(), 0);
  // Two changes arrive (registered, mint requested); only the first wakes the consumer.
  Register("edge-1");
  EXPECT_EQ(waiter_.wakes(), 1);
  EXPECT_EQ(Next(*watch).kind(), Kind::KIND_CHANGE);
  EXPECT_EQ(Next(*watch).kind(), Kind::KIND_CHANGE);
}

TEST_F(TargetWatchTest, ASlowConsumerIsCutOffWithResourceExhausted) {
  StartProjector(100);
  ASSERT_OK_AND_ASSIGN(auto watch,
                       TargetWatch::Start(projector_.get(), {"", 0, 2}, waiter_.wake()));
  // Each registration changes its Target twice (registered, mint requested): 4 > 2 queued.
  Register("edge-1");
  Register("edge-2");
  EXPECT_THAT(watch->Poll(), StatusIs(absl::StatusCode::kResourceExhausted,
                                      HasSubstr("fell behind by more than 2 changes; list again")));
}

TEST_F(TargetWatchTest, AConsumerHoldingTooManyBytesIsCutOffWithResourceExhausted) {
  StartProjector(100);
  TargetWatch::Options options;
  options.queue_bytes_limit = 1;  // every change is larger than a byte
  ASSERT_OK_AND_ASSIGN(auto watch, TargetWatch::Start(projector_.get(), options, waiter_.wake()));
  EXPECT_EQ(Next(*watch).kind(), Kind::KIND_SNAPSHOT_END);
  Register("edge-1");
  EXPECT_THAT(watch->Poll(),
              StatusIs(absl::StatusCode::kResourceExhausted,
                       HasSubstr("fell behind by more than 1 bytes of changes (--watch-queue-bytes); list again")));
}

TEST_F(TargetWatchTest, ResumingAfterForgottenChangesIsResourceExhausted) {
  StartProjector(/*change_history=*/2);
  const int64_t first = Register("edge-1");
  Register("edge-2");
  Register("edge-3");
  EXPECT_THAT(TargetWatch::Start(projector_.get(), {"", first, 16}, waiter_.wake()),
              StatusIs(absl::StatusCode::kResourceExhausted, HasSubstr("list again")));
  // A resume inside the kept history works and sends no snapshot.
  const int64_t last = Register("edge-4");
  ASSERT_OK_AND_ASSIGN(auto watch,
                       TargetWatch::Start(projector_.get(), {"", last - 1, 16}, waiter_.wake()));
  v1::WatchTargetsResponse item = Next(*watch);
  EXPECT_EQ(item.kind(), Kind::KIND_CHANGE);
  EXPECT_EQ(item.seq(), last);
}

}  // namespace target_watch_test
}  // namespace credledger::service
