// Tests of projections::CatchUpTogether (projections/projector.h) over a real SQLite log of
// several pages: each projection folds exactly the events after its own seq up to the last
// seq asked for (or the head), once each and in order; the first on the reading thread, the
// second on the caller's; a fold error of either ends the pass with that error.
#include <memory>
#include <set>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "projections/projector.h"
#include "store/sqlite_event_store.h"
#include "test/support/status_matchers.h"
#include "test/support/temp_dir.h"
#include "test/support/test_event_log.h"

namespace credledger::projections {
namespace catch_up_together_test {

using ::credledger::testing::StatusIs;
using ::testing::HasSubstr;

// Events of the log: over two pages of a catch-up and a part of a third.
constexpr int64_t kEvents = 2 * kCatchUpPage + 300;

// A projection that records the seqs it folds and the threads it folds on, and refuses the
// event at `refuse_at` (0: none).
class SeqRecorder {
 public:
  explicit SeqRecorder(int64_t seq, int64_t refuse_at = 0) : seq_(seq), refuse_at_(refuse_at) {}
  int64_t seq() const { return seq_; }
  absl::Status Fold(const store::RecordedEvent& event) {
    if (event.seq == refuse_at_) {
      return absl::DataLossError(absl::StrCat("seq ", event.seq, " refused"));
    }
    folded_.push_back(event.seq);
    threads_.insert(std::this_thread::get_id());
    seq_ = event.seq;
    return absl::OkStatus();
  }
  const std::vector<int64_t>& folded() const { return folded_; }
  const std::set<std::thread::id>& threads() const { return threads_; }

 private:
  int64_t seq_;
  int64_t refuse_at_;
  std::vector<int64_t> folded_;
  std::set<std::thread::id> threads_;
};

// The seqs from + 1 to to.
std::vector<int64_t> Seqs(int64_t from, int64_t to) {
  std::vector<int64_t> seqs;
  for (int64_t s = from + 1; s <= to; ++s) seqs.push_back(s);
  return seqs;
}

class CatchUpTogetherTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_OK_AND_ASSIGN(store_, ::credledger::testing::OpenTestEventLog(dir_.path(), &clock_));
    store::AppendRequest request{"r", {{"s/a", store::ExpectedVersion::Any(), {}}}};
    for (int64_t i = 0; i < kEvents; ++i) {
      request.streams[0].events.push_back({"credledger.v1.ServiceConfigured", 1, "m", "p"});
    }
    ASSERT_OK(store_->Append(request).status());
  }

  testing::TempDir dir_;
  common::FakeClock clock_;
  std::unique_ptr<store::SqliteEventStore> store_;
};

TEST_F(CatchUpTogetherTest, EachFoldsTheEventsAfterItsOwnSeqUpToTheLastSeqOnItsThread) {
  // Starts in the first and second page, the end inside the third.
  SeqRecorder first(100), second(kCatchUpPage + 200);
  const int64_t until = 2 * kCatchUpPage + 50;
  ASSERT_OK(CatchUpTogether(*store_, until, first, second));
  EXPECT_EQ(first.folded(), Seqs(100, until));
  EXPECT_EQ(second.folded(), Seqs(kCatchUpPage + 200, until));
  EXPECT_EQ(second.threads(), std::set<std::thread::id>{std::this_thread::get_id()});
  ASSERT_EQ(first.threads().size(), 1u);
  EXPECT_NE(*first.threads().begin(), std::this_thread::get_id());
}

TEST_F(CatchUpTogetherTest, ALastSeqBeyondTheHeadFoldsToTheHead) {
  SeqRecorder first(0), second(0);
  ASSERT_OK(CatchUpTogether(*store_, kEvents + 1000, first, second));
  EXPECT_EQ(first.folded(), Seqs(0, kEvents));
  EXPECT_EQ(second.folded(), Seqs(0, kEvents));
}

TEST_F(CatchUpTogetherTest, AProjectionAtOrPastTheLastSeqIsLeftAsItIs) {
  SeqRecorder ahead(kEvents - 10), behind(5);
  ASSERT_OK(CatchUpTogether(*store_, 700, ahead, behind));
  EXPECT_TRUE(ahead.folded().empty());
  EXPECT_EQ(ahead.seq(), kEvents - 10);
  EXPECT_EQ(behind.folded(), Seqs(5, 700));
}

TEST_F(CatchUpTogetherTest, AFoldErrorOfEitherProjectionEndsThePassWithIt) {
  {
    SeqRecorder first(0, /*refuse_at=*/kCatchUpPage + 3), second(0);
    EXPECT_THAT(CatchUpTogether(*store_, kEvents, first, second),
                StatusIs(absl::StatusCode::kDataLoss, HasSubstr("refused")));
    EXPECT_EQ(first.seq(), kCatchUpPage + 2);
    EXPECT_LT(second.seq(), kEvents);
  }
  {
    SeqRecorder first(0), second(0, /*refuse_at=*/kCatchUpPage + 3);
    EXPECT_THAT(CatchUpTogether(*store_, kEvents, first, second),
                StatusIs(absl::StatusCode::kDataLoss, HasSubstr("refused")));
    EXPECT_EQ(second.seq(), kCatchUpPage + 2);
  }
}

}  // namespace catch_up_together_test
}  // namespace credledger::projections
