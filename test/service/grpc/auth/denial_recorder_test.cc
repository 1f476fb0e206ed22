// Refusals counted in the ledger become CallsDenied events on stream `access`, one per
// identity and ended minute; a failed append keeps them for the next try.
#include "service/grpc/auth/denial_recorder.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "projections/proto_time.h"
#include "store/event_codec.h"
#include "store/sqlite_event_store.h"
#include "test/support/status_matchers.h"
#include "test/support/temp_dir.h"
#include "test/support/test_event_log.h"

namespace credledger::service {
namespace denial_recorder_test {

class DenialRecorderTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_OK_AND_ASSIGN(store_, ::credledger::testing::OpenTestEventLog(dir_.path(), &clock_));
  }

  // The CallsDenied events of stream `access` with their metadata.
  std::vector<std::pair<v1::CallsDenied, v1::EventMetadata>> Recorded() {
    std::vector<std::pair<v1::CallsDenied, v1::EventMetadata>> recorded;
    absl::StatusOr<std::vector<store::RecordedEvent>> events =
        store_->ReadStream(kAccessStream, 0, 1000);
    EXPECT_OK(events);
    if (!events.ok()) return recorded;
    for (const store::RecordedEvent& event : *events) {
      absl::StatusOr<v1::Event> decoded = store::EventCodec::Default().Decode(event);
      EXPECT_OK(decoded);
      v1::EventMetadata metadata;
      EXPECT_TRUE(metadata.ParseFromString(event.metadata));
      if (decoded.ok()) recorded.emplace_back(decoded->calls_denied(), metadata);
    }
    return recorded;
  }

  testing::TempDir dir_;
  common::FakeClock clock_;
  std::unique_ptr<store::SqliteEventStore> store_;
  DenialLedger ledger_;
};

TEST_F(DenialRecorderTest, RecordsEndedMinutesOnlyThenTheRestAtStop) {
  const absl::Time minute = absl::FromUnixSeconds(absl::ToUnixSeconds(clock_.Now()) / 60 * 60);
  ledger_.Add("bob", "declared", "TargetService/Revoke", minute + absl::Seconds(3));
  ledger_.Add("bob", "declared", "TargetService/Revoke", minute + absl::Seconds(4));
  ledger_.Add("eve", "anonymous", "AuditService/ExportEvents", minute + absl::Minutes(1));
  DenialRecorder recorder(&ledger_, store_.get(), &clock_);

  ASSERT_OK_AND_ASSIGN(int64_t none, recorder.Record(minute + absl::Seconds(59)));
  EXPECT_EQ(none, 0);
  EXPECT_EQ(store_->HeadSeq(), 0);
  ASSERT_OK_AND_ASSIGN(int64_t first, recorder.Record(minute + absl::Minutes(1)));
  EXPECT_EQ(first, 1);
  recorder.Stop();

  auto recorded = Recorded();
  ASSERT_EQ(recorded.size(), 2u);
  EXPECT_EQ(recorded[0].first.identity(), "bob");
  ASSERT_EQ(recorded[0].first.rpcs_size(), 1);
  EXPECT_EQ(recorded[0].first.rpcs(0).rpc(), "TargetService/Revoke");
  EXPECT_EQ(recorded[0].first.rpcs(0).count(), 2);
  EXPECT_EQ(projections::FromProto(recorded[0].first.minute()), minute);
  EXPECT_EQ(recorded[0].second.actor(), "credledger");
  EXPECT_EQ(recorded[0].second.command(), "RecordCallsDenied");
  EXPECT_EQ(recorded[1].first.identity(), "eve");
  EXPECT_EQ(projections::FromProto(recorded[1].first.minute()), minute + absl::Minutes(1));
  // Each append names its stream position, so the two appends have different request ids.
  EXPECT_NE(recorded[0].second.request_id(), recorded[1].second.request_id());
}

TEST_F(DenialRecorderTest, AFailedAppendKeepsTheEntries) {
  ledger_.Add("bob", "declared", "TargetService/Revoke", clock_.Now());
  store_->Close();  // every later Execute fails
  DenialRecorder recorder(&ledger_, store_.get(), &clock_);
  EXPECT_FALSE(recorder.Record(absl::InfiniteFuture()).ok());
  EXPECT_EQ(ledger_.pending(), 1u);
}

}  // namespace denial_recorder_test
}  // namespace credledger::service
