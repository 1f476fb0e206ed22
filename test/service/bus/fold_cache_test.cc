// Tests of the command bus's fold cache (service/bus/fold_cache.h) over an in-memory reader:
// folds of several streams and side inputs in seq order, kept folds checked against the log,
// streams folded from their last event, and which fold is kept.
#include "service/bus/fold_cache.h"

#include <map>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "test/support/status_matchers.h"

namespace credledger::service {
namespace {

using ::testing::ElementsAre;

// What a fold saw: event seqs, side inputs as their negated seq.
using Seen = std::vector<int64_t>;

// An in-memory log: events by stream, with the counts of reads.
class MemoryLog {
 public:
  void Add(const std::string& stream, int64_t seq, const std::string& hash) {
    std::vector<store::RecordedEvent>& events = streams_[stream];
    store::RecordedEvent& event = events.emplace_back();
    event.stream = stream;
    event.seq = seq;
    event.stream_version = static_cast<int64_t>(events.size()) - 1;
    event.stream_hash = hash;
  }

  StreamReader Reader(int page_limit = 0) {
    return {[this, page_limit](const std::string& stream, int64_t from) {
              ++reads_;
              std::vector<store::RecordedEvent> out;
              for (const store::RecordedEvent& event : streams_[stream]) {
                if (event.stream_version < from) continue;
                if (page_limit > 0 && out.size() == static_cast<size_t>(page_limit)) break;
                out.push_back(event);
              }
              read_events_ += static_cast<int>(out.size());
              return absl::StatusOr<std::vector<store::RecordedEvent>>(out);
            },
            [this](const std::string& stream) {
              return absl::StatusOr<int64_t>(static_cast<int64_t>(streams_[stream].size()) - 1);
            },
            page_limit};
  }

  int read_events() const { return read_events_; }

 private:
  std::map<std::string, std::vector<store::RecordedEvent>> streams_;
  int reads_ = 0;
  int read_events_ = 0;
};

absl::Status Record(Seen& seen, const store::RecordedEvent& event) {
  seen.push_back(event.seq);
  return absl::OkStatus();
}

SideInput<Seen> Side(int64_t seq) {
  return {seq, [seq](Seen& seen) { seen.push_back(-seq); }};
}

const std::vector<FoldedStream> kTwoStreams = {{"target/a"}, {"report/a"}};

TEST(FoldCacheTest, TwoStreamsAndASideInputAreFoldedInSeqOrder) {
  MemoryLog log;
  log.Add("target/a", 1, "t0");
  log.Add("report/a", 2, "r0");
  log.Add("target/a", 4, "t1");
  log.Add("report/a", 5, "r1");
  ASSERT_OK_AND_ASSIGN(Fold<Seen> fold, AdvanceFold(Fold<Seen>(), kTwoStreams, log.Reader(),
                                                    {Side(3), Side(6)}, Record));
  EXPECT_THAT(fold.state, ElementsAre(1, 2, -3, 4, 5, -6));
  EXPECT_EQ(fold.seq, 6);
  EXPECT_EQ(fold.positions[0].version, 1);
  EXPECT_EQ(fold.positions[0].stream_hash, "t1");
  EXPECT_EQ(fold.positions[1].stream_hash, "r1");
}

TEST(FoldCacheTest, AKeptFoldFoldsOnlyWhatFollowsItAndNoSideInputTwice) {
  MemoryLog log;
  log.Add("target/a", 1, "t0");
  log.Add("report/a", 2, "r0");
  ASSERT_OK_AND_ASSIGN(Fold<Seen> kept,
                       AdvanceFold(Fold<Seen>(), kTwoStreams, log.Reader(), {Side(3)}, Record));
  log.Add("target/a", 4, "t1");
  ASSERT_OK_AND_ASSIGN(Fold<Seen> fold,
                       AdvanceFold(kept, kTwoStreams, log.Reader(), {Side(3)}, Record));
  EXPECT_THAT(fold.state, ElementsAre(1, 2, -3, 4));
}

TEST(FoldCacheTest, AKeptFoldTheLogDoesNotContinueIsRefoldedFromTheStart) {
  MemoryLog kept_log;
  kept_log.Add("target/a", 1, "t0");
  ASSERT_OK_AND_ASSIGN(Fold<Seen> kept,
                       AdvanceFold(Fold<Seen>(), {{"target/a"}}, kept_log.Reader(), {}, Record));
  MemoryLog log;  // the same position with another stream hash: another history
  log.Add("target/a", 7, "other");
  log.Add("target/a", 8, "t1");
  ASSERT_OK_AND_ASSIGN(Fold<Seen> fold,
                       AdvanceFold(kept, {{"target/a"}}, log.Reader(), {}, Record));
  EXPECT_THAT(fold.state, ElementsAre(7, 8));
}

TEST(FoldCacheTest, AStreamFoldedFromItsLastEventReadsOnlyThatEventInATransaction) {
  MemoryLog log;
  for (int seq = 1; seq <= 5; ++seq) log.Add("service", seq, "h" + std::to_string(seq));
  ASSERT_OK_AND_ASSIGN(Fold<Seen> fold,
                       AdvanceFold(Fold<Seen>(), {{"service", true}}, log.Reader(), {}, Record));
  EXPECT_THAT(fold.state, ElementsAre(5));
  EXPECT_EQ(log.read_events(), 1);
  EXPECT_EQ(fold.positions[0].version, 4);
}

TEST(FoldCacheTest, PagedReadsFoldEveryPage) {
  MemoryLog log;
  for (int seq = 1; seq <= 5; ++seq) log.Add("target/a", seq, "h" + std::to_string(seq));
  ASSERT_OK_AND_ASSIGN(Fold<Seen> fold, AdvanceFold(Fold<Seen>(), {{"target/a"}},
                                                    log.Reader(/*page_limit=*/2), {}, Record));
  EXPECT_THAT(fold.state, ElementsAre(1, 2, 3, 4, 5));
}

TEST(FoldCacheTest, TheLaterFoldIsKeptAndANewScopeDropsTheRest) {
  FoldCache<Seen> cache;
  Fold<Seen> later{{1, 2}, {}, 2};
  Fold<Seen> earlier{{1}, {}, 1};
  cache.Publish("target/a", "config-1", later);
  cache.Publish("target/a", "config-1", earlier);
  EXPECT_THAT(cache.Kept("target/a", "config-1").state, ElementsAre(1, 2));
  EXPECT_TRUE(cache.Kept("target/a", "config-2").state.empty());
  cache.Publish("target/b", "config-2", earlier);
  EXPECT_TRUE(cache.Kept("target/a", "config-1").state.empty());
  EXPECT_THAT(cache.Kept("target/b", "config-2").state, ElementsAre(1));
  cache.Publish("target/c", "config-2", Fold<Seen>());  // a fold of nothing is not kept
  EXPECT_EQ(cache.Kept("target/c", "config-2").seq, 0);
}

// A load or a command that appended nothing publishes the fold kept already: it is not copied
// again.
TEST(FoldCacheTest, AFoldOfTheKeptSeqLeavesTheKeptOne) {
  FoldCache<Seen> cache;
  cache.Publish("target/a", "config-1", Fold<Seen>{{1, 2}, {}, 2});
  // Another fold of seq 2 (the same events, as a real one would be) is not taken in.
  cache.Publish("target/a", "config-1", Fold<Seen>{{7}, {}, 2});
  EXPECT_THAT(cache.Kept("target/a", "config-1").state, ElementsAre(1, 2));
}

}  // namespace
}  // namespace credledger::service
