#include "store/subscription.h"

#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "store/sqlite_event_store.h"
#include "test/support/status_matchers.h"
#include "test/support/temp_dir.h"

namespace credledger::store {
namespace subscription_test {

using ::credledger::testing::StatusIs;
using ::testing::ElementsAre;

AppendRequest OneEvent(const std::string& request_id) {
  return AppendRequest{request_id,
                       {StreamAppend{"s/a", ExpectedVersion::Any(),
                                     {NewEvent{"credledger.v1.ServiceConfigured", 1, "", ""}}}}};
}

class SubscriptionTest : public ::testing::Test {
 protected:
  void SetUp() override {
    SqliteEventStoreOptions options;
    options.path = dir_.path() / "events.db";
    auto store = SqliteEventStore::Open(options);
    ASSERT_OK(store);
    store_ = *std::move(store);
  }
  testing::TempDir dir_;
  std::unique_ptr<SqliteEventStore> store_;
};

TEST_F(SubscriptionTest, CatchesUpInPagesThenFollowsLiveInSeqOrder) {
  for (int i = 0; i < 5; ++i) ASSERT_OK(store_->Append(OneEvent("r" + std::to_string(i))));
  absl::Mutex mu;
  std::vector<int64_t> seen;
  Subscription sub(store_.get(), /*after_seq=*/1, [&](const RecordedEvent& e) {
    absl::MutexLock lock(&mu);
    seen.push_back(e.seq);
    return absl::OkStatus();
  }, /*page_size=*/2);
  ASSERT_TRUE(sub.WaitForPosition(5, absl::Seconds(30)));
  ASSERT_OK(store_->Append(OneEvent("live-1")));
  ASSERT_OK(store_->Append(OneEvent("live-2")));
  ASSERT_TRUE(sub.WaitForPosition(7, absl::Seconds(30)));
  sub.Stop();
  absl::MutexLock lock(&mu);
  EXPECT_THAT(seen, ElementsAre(2, 3, 4, 5, 6, 7));
  EXPECT_OK(sub.status());
}

TEST_F(SubscriptionTest, AHandlerErrorEndsTheSubscriptionAtTheFailingEvent) {
  for (int i = 0; i < 3; ++i) ASSERT_OK(store_->Append(OneEvent("r" + std::to_string(i))));
  Subscription sub(store_.get(), 0, [](const RecordedEvent& e) {
    return e.seq == 2 ? absl::DataLossError("cannot fold seq 2") : absl::OkStatus();
  });
  EXPECT_FALSE(sub.WaitForPosition(3, absl::Seconds(30)));
  EXPECT_EQ(sub.position(), 1);
  EXPECT_THAT(sub.status(), StatusIs(absl::StatusCode::kDataLoss));
}

}  // namespace subscription_test
}  // namespace credledger::store
