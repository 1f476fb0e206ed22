// RepeatLog (common/repeat_log.h) on a fake clock: the first occurrence per peer and interval
// is the caller's to write, the rest become one summary per peer once the interval ends, and
// a flood from any number of peers writes a bounded number of lines.
#include "common/repeat_log.h"

#include <string>
#include <thread>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "test/support/captured_log.h"

namespace credledger::common {
namespace {

using ::credledger::testing::CapturedLog;
using ::testing::StartsWith;

constexpr char kSummary[] = "thing repeated";

RepeatLog::Options TestOptions() {
  return {.summary_message = kSummary,
          .level = LogLevel::kWarning,
          .interval = absl::Seconds(10),
          .max_peers = 2,
          .max_kinds = 2};
}

TEST(RepeatLogTest, FirstOccurrencePerPeerAndIntervalIsWrittenTheRestSummedUp) {
  CapturedLog log;
  FakeClock clock(absl::FromUnixSeconds(1000));
  RepeatLog repeats(TestOptions(), &clock);
  EXPECT_TRUE(repeats.Count("ipv4:10.0.0.1", "A"));
  EXPECT_FALSE(repeats.Count("ipv4:10.0.0.1", "A"));
  EXPECT_FALSE(repeats.Count("ipv4:10.0.0.1", "B"));
  EXPECT_TRUE(repeats.Count("ipv4:10.0.0.2", "A"));  // written in full, nothing to sum up
  repeats.Flush(clock.Now());                        // the interval has not ended
  EXPECT_TRUE(log.Lines(kSummary).empty());
  clock.Advance(absl::Seconds(10));
  EXPECT_TRUE(repeats.Count("ipv4:10.0.0.1", "A"));  // a new interval
  repeats.Flush(clock.Now());
  const std::vector<nlohmann::json> lines = log.Lines(kSummary);
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_EQ(lines[0]["level"], "warning");
  EXPECT_EQ(lines[0]["peer"], "ipv4:10.0.0.1");
  EXPECT_EQ(lines[0]["interval_start"], "1970-01-01T00:16:40Z");
  EXPECT_EQ(lines[0]["interval_seconds"], "10");
  EXPECT_EQ(lines[0]["count"], "2");
  EXPECT_EQ(lines[0]["kinds"], "A: 1, B: 1");
}

TEST(RepeatLogTest, AFloodFromManyPeersWithManyKindsWritesBoundedLines) {
  CapturedLog log;
  FakeClock clock(absl::FromUnixSeconds(1000));
  RepeatLog repeats(TestOptions(), &clock);
  int written_in_full = 0;
  for (int i = 0; i < 100000; ++i) {
    if (repeats.Count(absl::StrCat("ipv4:10.0.", i % 50, ".1"), absl::StrCat("kind-", i % 7))) {
      ++written_in_full;
    }
  }
  repeats.Stop();
  // Two peers told apart and the shared entry: one full line and one summary each.
  EXPECT_EQ(written_in_full, 3);
  const std::vector<nlohmann::json> lines = log.Lines(kSummary);
  ASSERT_EQ(lines.size(), 3u);
  EXPECT_EQ(lines[2]["peer"], kOtherPeers);
  EXPECT_EQ(lines[2]["peers"], "48");
  // 2,000 occurrences of the first peer, one of them written in full; two kinds told apart.
  EXPECT_EQ(lines[0]["count"], "1999");
  EXPECT_THAT(lines[0]["kinds"].get<std::string>(), StartsWith("(other): "));
}

TEST(RepeatLogTest, TheThreadWritesSummariesWhenTheIntervalEnds) {
  CapturedLog log;
  FakeClock clock(absl::FromUnixSeconds(1000));
  RepeatLog repeats(TestOptions(), &clock);
  repeats.Start();
  repeats.Count("unix:/run/s", "A");
  repeats.Count("unix:/run/s", "A");
  // The thread computes its wake-up time before it sleeps: advance only once it sleeps.
  const absl::Time give_up = absl::Now() + absl::Seconds(20);
  while (clock.Sleepers() == 0 && absl::Now() < give_up) std::this_thread::yield();
  clock.Advance(absl::Seconds(10));
  const std::vector<nlohmann::json> lines = log.WaitFor(
      kSummary, [](const std::vector<nlohmann::json>& l) { return !l.empty(); }, absl::Seconds(20));
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_EQ(lines[0]["count"], "1");
}

}  // namespace
}  // namespace credledger::common
