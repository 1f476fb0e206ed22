// Tests of PageReader (store/page_reader.h): it gives the log's events in seq order page by
// page from the requested position, reads the next page before it is asked for, reads into
// the pages handed back, and stops at the first read error.
#include "store/page_reader.h"

#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "gtest/gtest.h"
#include "store/sqlite_event_store.h"
#include "test/support/forwarding_event_store.h"
#include "test/support/status_matchers.h"
#include "test/support/temp_dir.h"

namespace credledger::store {
namespace page_reader_test {

using ::credledger::testing::StatusIs;

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

class PageReaderTest : public ::testing::Test {
 protected:
  void SetUp() override {
    SqliteEventStoreOptions options;
    options.path = dir_.path() / "events.db";
    options.clock = &clock_;
    ASSERT_OK_AND_ASSIGN(sqlite_, SqliteEventStore::Open(options));
    for (int i = 1; i <= 10; ++i) {
      ASSERT_OK(sqlite_
                    ->Append(AppendRequest{
                        absl::StrCat("r", i),
                        {StreamAppend{"s",
                                      ExpectedVersion::Any(),
                                      {NewEvent{"credledger.v1.ServiceConfigured", 1, "m",
                                                std::string(kPayloadBytes, 'a' + i)}}}}})
                    .status());
    }
    store_ = std::make_unique<CountingStore>(sqlite_.get());
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
  PageReader reader(store_.get(), 3, 3);
  EXPECT_EQ(Pages(reader), (std::vector<std::vector<int64_t>>{{4, 5, 6}, {7, 8, 9}, {10}}));
  std::vector<RecordedEvent> after_end(2);
  ASSERT_OK(reader.Next(after_end));
  EXPECT_TRUE(after_end.empty());
}

TEST_F(PageReaderTest, ReadsTheNextPageBeforeItIsAskedFor) {
  PageReader reader(store_.get(), 0, 4);
  std::vector<RecordedEvent> first;
  ASSERT_OK(reader.Next(first));
  ASSERT_EQ(first.size(), 4u);
  // No second Next: the read of the second page is under way anyway.
  EXPECT_TRUE(store_->AwaitCalls(2));
}

// SqliteEventStore's ReadAllInto reuses the memory of the page it reads into.
TEST_F(PageReaderTest, ReadsIntoThePagesHandedBack) {
  PageReader reader(sqlite_.get(), 0, 3);
  std::vector<RecordedEvent> page;
  ASSERT_OK(reader.Next(page));  // seqs 1 to 3
  ASSERT_EQ(page.size(), 3u);
  const RecordedEvent* const events = page.data();
  const char* const payload = page[0].payload.data();
  ASSERT_OK(reader.Next(page));  // 4 to 6, read while 1 to 3 were handed out
  // 7 to 9, read into the vector that held 1 to 3 when it was handed back.
  ASSERT_OK(reader.Next(page));
  ASSERT_EQ(page.size(), 3u);
  EXPECT_EQ(page[0].seq, 7);
  EXPECT_EQ(page[0].payload, std::string(kPayloadBytes, 'a' + 7));
  EXPECT_EQ(page.data(), events);
  EXPECT_EQ(page[0].payload.data(), payload);
}

TEST_F(PageReaderTest, StopsAtTheFirstReadError) {
  store_->FailFrom(2);
  {
    PageReader reader(store_.get(), 0, 4);
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
