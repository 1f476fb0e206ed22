// Tests of the checkpoint writer (docs/audit.md, "Checkpoints"): when a checkpoint is due,
// what it signs, and that the thread and shutdown leave the head under a signature.
#include "service/api/checkpoint_writer.h"

#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "audit/signed_records.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "store/sqlite_event_store.h"
#include "test/support/status_matchers.h"
#include "test/support/temp_dir.h"

namespace credledger::service {
namespace checkpoint_writer_test {

using ::testing::ElementsAre;

const absl::Time kT0 = absl::FromUnixSeconds(1767225600);

TEST(CheckpointDueTest, DueAfterEnoughEventsOrEnoughTimeButOnlyWhenTheHeadMoved) {
  const CheckpointPolicy policy{.every_events = 10, .interval = absl::Seconds(1)};
  // The head has not moved: never due, however long ago.
  EXPECT_FALSE(CheckpointDue(5, 5, kT0, kT0 + absl::Hours(1), policy));
  EXPECT_FALSE(CheckpointDue(0, 0, absl::InfinitePast(), kT0, policy));
  // Fewer events than every_events and less time than the interval.
  EXPECT_FALSE(CheckpointDue(14, 5, kT0, kT0 + absl::Milliseconds(999), policy));
  // Exactly every_events new events.
  EXPECT_TRUE(CheckpointDue(15, 5, kT0, kT0, policy));
  // Exactly the interval after the last one, with one new event.
  EXPECT_TRUE(CheckpointDue(6, 5, kT0, kT0 + absl::Seconds(1), policy));
  // No checkpoint yet: the first event makes one due.
  EXPECT_TRUE(CheckpointDue(1, 0, absl::InfinitePast(), kT0, policy));
}

class CheckpointWriterTest : public ::testing::Test {
 protected:
  void SetUp() override {
    store::SqliteEventStoreOptions options;
    options.path = dir_.path() / "events.db";
    options.clock = &clock_;
    auto store = store::SqliteEventStore::Open(options);
    ASSERT_OK(store);
    store_ = *std::move(store);
    auto key = audit::SigningKey::Generate();
    ASSERT_OK(key);
    key_ = std::make_unique<audit::SigningKey>(*std::move(key));
  }

  store::RecordedEvent Append(int events) {
    store::AppendRequest request{"r" + std::to_string(++requests_), {}};
    request.streams.push_back({"s", store::ExpectedVersion::Any(), {}});
    for (int i = 0; i < events; ++i) {
      request.streams[0].events.push_back({"credledger.v1.ServiceConfigured", 1, "", ""});
    }
    auto result = store_->Append(request);
    EXPECT_OK(result);
    return result.ok() ? result->events.back() : store::RecordedEvent();
  }

  int64_t LatestSeq() {
    auto latest = store_->LatestCheckpoint();
    EXPECT_OK(latest);
    return latest.ok() && latest->has_value() ? (*latest)->seq() : 0;
  }

  testing::TempDir dir_;
  common::FakeClock clock_{kT0};
  std::unique_ptr<store::SqliteEventStore> store_;
  std::unique_ptr<audit::SigningKey> key_;
  int requests_ = 0;
};

TEST_F(CheckpointWriterTest, SignsTheHeadsSeqChainHashAndTime) {
  CheckpointWriter writer(store_.get(), key_.get(), &clock_, {});
  ASSERT_OK_AND_ASSIGN(int64_t nothing, writer.CheckpointHead());
  EXPECT_EQ(nothing, 0);  // an empty log has no head to sign

  const store::RecordedEvent head = Append(3);
  clock_.Advance(absl::Seconds(2));
  ASSERT_OK_AND_ASSIGN(int64_t seq, writer.CheckpointHead());
  EXPECT_EQ(seq, head.seq);
  ASSERT_OK_AND_ASSIGN(std::optional<v1::Checkpoint> latest, store_->LatestCheckpoint());
  ASSERT_TRUE(latest.has_value());
  EXPECT_EQ(latest->seq(), head.seq);
  EXPECT_EQ(latest->chain_hash(), head.chain_hash);
  EXPECT_EQ(latest->signed_at_us(), absl::ToUnixMicros(clock_.Now()));
  EXPECT_EQ(latest->key_id(), key_->key_id());
  EXPECT_OK(audit::VerifyCheckpoint(key_->public_key(), *latest));

  // Nothing new: nothing signed.
  ASSERT_OK_AND_ASSIGN(seq, writer.CheckpointHead());
  EXPECT_EQ(seq, 0);
}

TEST_F(CheckpointWriterTest, TheThreadCheckpointsEveryNEventsAndStopSignsTheRest) {
  // The fake clock never moves: only the event count makes checkpoints due.
  CheckpointWriter writer(store_.get(), key_.get(), &clock_,
                          {.every_events = 4, .interval = absl::Hours(1)});
  ASSERT_OK(writer.Start());
  const store::RecordedEvent fourth = Append(4);
  const absl::Time give_up = absl::Now() + absl::Seconds(30);
  while (LatestSeq() < fourth.seq && absl::Now() < give_up) {
    store_->WaitForHead(store_->HeadSeq(), absl::Milliseconds(10));
  }
  ASSERT_EQ(LatestSeq(), fourth.seq);

  const store::RecordedEvent sixth = Append(2);  // not due: 2 of 4
  writer.Stop();
  EXPECT_EQ(LatestSeq(), sixth.seq);
}

TEST_F(CheckpointWriterTest, StartResumesAfterTheNewestStoredCheckpoint) {
  Append(2);
  {
    CheckpointWriter first(store_.get(), key_.get(), &clock_, {});
    ASSERT_OK_AND_ASSIGN(int64_t seq, first.CheckpointHead());
    ASSERT_EQ(seq, 2);
  }
  CheckpointWriter second(store_.get(), key_.get(), &clock_,
                          {.every_events = 1000, .interval = absl::Hours(1)});
  ASSERT_OK(second.Start());
  second.Stop();  // the head did not move since the stored checkpoint: nothing to sign
  ASSERT_OK_AND_ASSIGN(auto all, store_->ReadCheckpoints(0, 10));
  EXPECT_EQ(all.size(), 1u);
}

// A witness that records what it is given and fails while `fail` is set.
class RecordingWitness final : public audit::WitnessStore {
 public:
  absl::StatusOr<std::vector<v1::Checkpoint>> Read() override { return appended; }
  absl::Status Append(const v1::Checkpoint& checkpoint) override {
    if (fail) return absl::UnavailableError("witness down");
    appended.push_back(checkpoint);
    return absl::OkStatus();
  }
  const std::string& name() const override { return name_; }

  std::vector<v1::Checkpoint> appended;
  bool fail = false;

 private:
  const std::string name_ = "file:recording";
};

std::vector<int64_t> Seqs(const std::vector<v1::Checkpoint>& checkpoints) {
  std::vector<int64_t> seqs;
  for (const v1::Checkpoint& c : checkpoints) seqs.push_back(c.seq());
  return seqs;
}

TEST_F(CheckpointWriterTest, PublishesTheFirstCheckpointThenOnePerWitnessInterval) {
  RecordingWitness witness;
  CheckpointWriter writer(store_.get(), key_.get(), &clock_, {},
                          {.keeper = &witness, .interval = absl::Minutes(1)});
  Append(1);
  ASSERT_OK(writer.CheckpointHead().status());
  EXPECT_THAT(Seqs(witness.appended), ElementsAre(1)) << "the first is not held back";

  Append(1);
  clock_.Advance(absl::Seconds(10));
  ASSERT_OK(writer.CheckpointHead().status());
  EXPECT_THAT(Seqs(witness.appended), ElementsAre(1)) << "within the interval";

  Append(1);
  clock_.Advance(absl::Minutes(1));
  witness.fail = true;
  ASSERT_OK(writer.CheckpointHead().status());  // a failed publication is not a failed checkpoint
  EXPECT_THAT(Seqs(witness.appended), ElementsAre(1));

  witness.fail = false;
  Append(1);
  clock_.Advance(absl::Seconds(1));
  ASSERT_OK(writer.CheckpointHead().status());
  EXPECT_THAT(Seqs(witness.appended), ElementsAre(1, 4)) << "retried with the next checkpoint";

  // The signatures are the stored checkpoints'.
  ASSERT_OK_AND_ASSIGN(auto stored, store_->ReadCheckpoints(3, 1));
  ASSERT_EQ(stored.size(), 1u);
  EXPECT_EQ(witness.appended.back().SerializeAsString(), stored[0].SerializeAsString());
}

TEST_F(CheckpointWriterTest, StopPublishesTheLastCheckpoint) {
  RecordingWitness witness;
  CheckpointWriter writer(store_.get(), key_.get(), &clock_,
                          {.every_events = 1000, .interval = absl::Hours(1)},
                          {.keeper = &witness, .interval = absl::Hours(1)});
  ASSERT_OK(writer.Start());
  Append(1);  // the thread's first checkpoint, published at once, may cover it
  const store::RecordedEvent last = Append(3);
  writer.Stop();
  ASSERT_FALSE(witness.appended.empty());
  EXPECT_EQ(witness.appended.back().seq(), last.seq);
  EXPECT_EQ(LatestSeq(), last.seq);
}

}  // namespace checkpoint_writer_test
}  // namespace credledger::service
