// Tests of PageReader (store/page_reader.h): it gives the log's events in seq order page by
// page from the requested position, reads pages before they are asked for, reads into the
// pages handed back, runs its page hook on the reading thread before a page is handed over,
// and stops at the first read or hook error.
#include "store/page_reader.h"

#include <algorithm>
#include <memory>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "store/sqlite_event_store.h"
#include "test/support/forwarding_event_store.h"
#include "test/support/status_matchers.h"
#include "test/support/temp_dir.h"

namespace credledger::store {
namespace page_reader_test {

using ::credledger::testing::StatusIs;
using ::testing::HasSubstr;

constexpr absl::Duration kWait = absl::Seconds(30);  // only reached when a test fails
// Longer than a string keeps inside itself, so that a payload has memory of its own.
constexpr size_t kPayloadBytes = 40;

// A store whose ReadAll calls are counted, and fail from call number `fail_from` on. It leaves
// ReadAllInto to EventStore's default, which reads through ReadAll.
class CountingStore final : public testing::ForwardingEventStore {
 public:
  using ForwardingEventStore::ForwardingEventStore;
  void FailFrom(int call) { fail_from_ = call; }
  int calls() {
    absl::MutexLock lock(&mu_);
    return calls_;
  }
  // Waits until ReadAll has been called `calls` times; false after kWait.
  bool AwaitCalls(int calls) {
    absl::MutexLock lock(&mu_);
    const auto reached = [&]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) { return calls_ >= calls; };
    return mu_.AwaitWithTimeout(absl::Condition(&reached), kWait);
  }

  absl::StatusOr<std::vector<RecordedEvent>> ReadAll(int64_t after_seq, int limit) override {
    int call = 0;
    {
      absl::MutexLock lock(&mu_);
      call = ++calls_;
    }
    if (fail_from_ > 0 && call >= fail_from_) return absl::UnavailableError("disk I/O error");
    return inner()->ReadAll(after_seq, limit);
  }

 private:
  int fail_from_ = 0;
  absl::Mutex mu_;
  int calls_ ABSL_GUARDED_BY(mu_) = 0;
};

// A store that counts the reads into a vector that never held events (no memory of its own),
// and reads through the inner store's ReadAllInto.
class FreshPageCountingStore final : public testing::ForwardingEventStore {
 public:
  using ForwardingEventStore::ForwardingEventStore;
  int fresh_pages() {
    absl::MutexLock lock(&mu_);
    return fresh_pages_;
  }
  absl::Status ReadAllInto(int64_t after_seq, int limit, EventFields fields,
                           std::vector<RecordedEvent>& page) override {
    if (page.capacity() == 0) {
      absl::MutexLock lock(&mu_);
      ++fresh_pages_;
    }
    return inner()->ReadAllInto(after_seq, limit, fields, page);
  }

 private:
  absl::Mutex mu_;
  int fresh_pages_ ABSL_GUARDED_BY(mu_) = 0;
};

class PageReaderTest : public ::testing::Test {
 protected:
  void SetUp() override {
    SqliteEventStoreOptions options;
    options.path = dir_.path() / "events.db";
    options.clock = &clock_;
    ASSERT_OK_AND_ASSIGN(sqlite_, SqliteEventStore::Open(options));
    AppendUpTo(10);
    store_ = std::make_unique<CountingStore>(sqlite_.get());
  }

  // Appends events until the log holds `events`; the payload of seq i is kPayloadBytes of
  // the letter 'a' + i % 26.
  void AppendUpTo(int events) {
    for (int i = static_cast<int>(sqlite_->HeadSeq()) + 1; i <= events; ++i) {
      ASSERT_OK(sqlite_
                    ->Append(AppendRequest{
                        absl::StrCat("r", i),
                        {StreamAppend{"s",
                                      ExpectedVersion::Any(),
                                      {NewEvent{"credledger.v1.ServiceConfigured", 1, "m",
                                                std::string(kPayloadBytes, 'a' + i % 26)}}}}})
                    .status());
    }
  }

  // The seqs of every page until the first empty one (at most 100 pages).
  std::vector<std::vector<int64_t>> Pages(PageReader& reader) {
    std::vector<std::vector<int64_t>> pages;
    std::vector<RecordedEvent> page;
    for (int i = 0; i < 100; ++i) {
      const absl::Status read = reader.Next(page);
      EXPECT_OK(read);
      if (!read.ok() || page.empty()) break;
      std::vector<int64_t>& seqs = pages.emplace_back();
      for (const RecordedEvent& e : page) seqs.push_back(e.seq);
    }
    return pages;
  }

  testing::TempDir dir_;
  common::FakeClock clock_;
  std::unique_ptr<SqliteEventStore> sqlite_;
  std::unique_ptr<CountingStore> store_;
};

TEST_F(PageReaderTest, GivesEveryEventAfterThePositionInPagesThenEmptyPages) {
  PageReader reader(store_.get(), 3, PageReader::kToTheHead, 3, EventFields::kAll);
  EXPECT_EQ(Pages(reader), (std::vector<std::vector<int64_t>>{{4, 5, 6}, {7, 8, 9}, {10}}));
  std::vector<RecordedEvent> after_end(2);
  ASSERT_OK(reader.Next(after_end));
  EXPECT_TRUE(after_end.empty());
}

TEST_F(PageReaderTest, ReadsPagesBeforeTheyAreAskedFor) {
  AppendUpTo(40);
  PageReader reader(store_.get(), 0, PageReader::kToTheHead, 2, EventFields::kAll);
  // No Next at all: kPagesAhead pages are read anyway.
  EXPECT_TRUE(store_->AwaitCalls(PageReader::kPagesAhead));
  std::vector<RecordedEvent> first;
  ASSERT_OK(reader.Next(first));
  ASSERT_EQ(first.size(), 2u);
  // One page taken: one more is read, and no more than that.
  EXPECT_TRUE(store_->AwaitCalls(PageReader::kPagesAhead + 1));
  EXPECT_LE(store_->calls(), PageReader::kPagesAhead + 1);
}

TEST_F(PageReaderTest, ReadsNothingPastTheLastSeq) {
  PageReader reader(store_.get(), 2, 7, 3, EventFields::kAll);
  EXPECT_EQ(Pages(reader), (std::vector<std::vector<int64_t>>{{3, 4, 5}, {6, 7}}));
  // The second read asked for two events only, and none followed.
  EXPECT_EQ(store_->calls(), 2);
}

// Pages are read into the vectors handed back, and SqliteEventStore's ReadAllInto reuses the
// memory of their events: a long read uses no more vectors and payload buffers than the pages
// waiting, the one being read and the caller's.
TEST_F(PageReaderTest, ReadsIntoThePagesHandedBack) {
  AppendUpTo(90);
  FreshPageCountingStore counting(sqlite_.get());
  PageReader reader(&counting, 0, PageReader::kToTheHead, 3, EventFields::kAll);
  std::set<const char*> payloads;
  std::vector<RecordedEvent> page;
  int64_t seq = 0;
  for (int i = 0; i < 30; ++i) {
    ASSERT_OK(reader.Next(page));
    ASSERT_EQ(page.size(), 3u);
    for (const RecordedEvent& e : page) {
      ASSERT_EQ(e.seq, ++seq);
      ASSERT_EQ(e.payload, std::string(kPayloadBytes, 'a' + e.seq % 26));
    }
    payloads.insert(page[0].payload.data());
  }
  ASSERT_OK(reader.Next(page));
  EXPECT_TRUE(page.empty());
  const int most = PageReader::kPagesAhead + 2;
  EXPECT_LE(counting.fresh_pages(), most);
  EXPECT_LE(payloads.size(), static_cast<size_t>(most));
}

// The hook sees every page, in order, on a thread other than the caller's, before the caller
// gets it.
TEST_F(PageReaderTest, RunsTheHookOnEveryPageBeforeHandingItOver) {
  absl::Mutex mu;
  std::vector<int64_t> hooked;  // first seq of each page the hook saw
  std::set<std::thread::id> threads;
  PageReader reader(store_.get(), 1, PageReader::kToTheHead, 4, EventFields::kAll,
                    [&](const std::vector<RecordedEvent>& page) {
                      absl::MutexLock lock(&mu);
                      hooked.push_back(page.front().seq);
                      threads.insert(std::this_thread::get_id());
                      return absl::OkStatus();
                    });
  std::vector<RecordedEvent> page;
  for (int64_t first : {2, 6, 10}) {
    ASSERT_OK(reader.Next(page));
    ASSERT_FALSE(page.empty());
    EXPECT_EQ(page.front().seq, first);
    absl::MutexLock lock(&mu);
    EXPECT_NE(std::find(hooked.begin(), hooked.end(), first), hooked.end());
  }
  ASSERT_OK(reader.Next(page));
  EXPECT_TRUE(page.empty());
  absl::MutexLock lock(&mu);
  EXPECT_EQ(hooked, (std::vector<int64_t>{2, 6, 10}));  // not run on the empty page
  ASSERT_EQ(threads.size(), 1u);
  EXPECT_NE(*threads.begin(), std::this_thread::get_id());
}

TEST_F(PageReaderTest, StopsAtAHookErrorAfterThePagesBeforeIt) {
  int calls = 0;  // touched by the reading thread only
  {
    PageReader reader(store_.get(), 0, PageReader::kToTheHead, 3, EventFields::kAll,
                      [&](const std::vector<RecordedEvent>& page) {
                        ++calls;
                        return page.front().seq == 4 ? absl::DataLossError("seq 4 does not fold")
                                                     : absl::OkStatus();
                      });
    std::vector<RecordedEvent> page;
    ASSERT_OK(reader.Next(page));
    EXPECT_EQ(page.size(), 3u);
    EXPECT_THAT(reader.Next(page),
                StatusIs(absl::StatusCode::kDataLoss, HasSubstr("seq 4 does not fold")));
    EXPECT_TRUE(page.empty());
    ASSERT_OK(reader.Next(page));
    EXPECT_TRUE(page.empty());
  }
  EXPECT_EQ(calls, 2);  // nothing was read or hooked after the error
  EXPECT_EQ(store_->calls(), 2);
}

TEST_F(PageReaderTest, StopsAtTheFirstReadError) {
  store_->FailFrom(2);
  {
    PageReader reader(store_.get(), 0, PageReader::kToTheHead, 4, EventFields::kAll);
    std::vector<RecordedEvent> page;
    ASSERT_OK(reader.Next(page));
    EXPECT_EQ(page.size(), 4u);
    EXPECT_THAT(reader.Next(page), StatusIs(absl::StatusCode::kUnavailable));
    EXPECT_TRUE(page.empty());
    page.resize(2);
    ASSERT_OK(reader.Next(page));
    EXPECT_TRUE(page.empty());
  }
  EXPECT_EQ(store_->calls(), 2);  // nothing was read after the error
}

}  // namespace page_reader_test
}  // namespace credledger::store
