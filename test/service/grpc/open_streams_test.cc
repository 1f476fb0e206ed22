// OpenStreams (service/grpc/open_streams.h): the limits per caller and in total, places freed
// when a ticket goes, StopAll ending every open stream and refusing later ones, and the
// memory release after a burst of ended streams and when the last one ends.
#include "service/grpc/open_streams.h"

#include <memory>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "test/support/status_matchers.h"

namespace credledger::service {
namespace {

using ::testing::HasSubstr;
using testing::StatusIs;

// A stream that records how it was stopped.
class FakeStream final : public OpenStream {
 public:
  void Stop(absl::Status status) override { stopped.push_back(std::move(status)); }
  void Ref() override { ++refs; }
  void Unref() override { --refs; }

  std::vector<absl::Status> stopped;
  int refs = 0;
};

TEST(OpenStreamsTest, AdmitsUpToTheLimitsPerCallerAndInTotal) {
  OpenStreams streams({.max_streams = 3, .max_streams_per_caller = 2});
  FakeStream a1, a2, a3, b1, c1;
  ASSERT_OK_AND_ASSIGN(auto t1, streams.Admit("alice", "WatchTargets", &a1));
  ASSERT_OK_AND_ASSIGN(auto t2, streams.Admit("alice", "WatchFleet", &a2));
  EXPECT_THAT(streams.Admit("alice", "WatchTargets", &a3),
              StatusIs(absl::StatusCode::kResourceExhausted,
                       HasSubstr("WatchTargets: caller \"alice\" already has 2 open streams, the "
                                 "limit per caller (--max-streams-per-caller)")));
  ASSERT_OK_AND_ASSIGN(auto t3, streams.Admit("bob", "ExportEvents", &b1));
  EXPECT_THAT(streams.Admit("carol", "WatchTargets", &c1),
              StatusIs(absl::StatusCode::kResourceExhausted,
                       HasSubstr("the server already has 3 open streams, its limit "
                                 "(--max-streams)")));
  EXPECT_EQ(streams.open(), 3u);
  t1.reset();  // one of alice's ends
  EXPECT_EQ(streams.open(), 2u);
  EXPECT_OK(streams.Admit("alice", "WatchTargets", &a3));
}

TEST(OpenStreamsTest, StopAllEndsEveryOpenStreamOnceAndRefusesLaterOnes) {
  OpenStreams streams({});
  FakeStream a, b, late;
  ASSERT_OK_AND_ASSIGN(auto ta, streams.Admit("alice", "WatchTargets", &a));
  ASSERT_OK_AND_ASSIGN(auto tb, streams.Admit("bob", "WatchFleet", &b));
  streams.StopAll([](absl::string_view rpc) {
    return absl::UnavailableError(absl::StrCat(rpc, ": shutting down"));
  });
  for (const FakeStream* stream : {&a, &b}) {
    ASSERT_EQ(stream->stopped.size(), 1u);
    EXPECT_EQ(stream->refs, 0);  // held only while it was being stopped
  }
  EXPECT_THAT(a.stopped[0],
              StatusIs(absl::StatusCode::kUnavailable, HasSubstr("WatchTargets: shutting down")));
  EXPECT_THAT(b.stopped[0],
              StatusIs(absl::StatusCode::kUnavailable, HasSubstr("WatchFleet: shutting down")));
  EXPECT_THAT(streams.Admit("carol", "WatchTargets", &late),
              StatusIs(absl::StatusCode::kUnavailable, HasSubstr("shutting down")));
}

TEST(OpenStreamsTest, MemoryIsReleasedAfterABurstOfEndedStreamsAndWhenTheLastEnds) {
  int releases = 0;
  OpenStreams streams({.max_streams = 1000, .max_streams_per_caller = 1000},
                      [&releases] { ++releases; });
  const int count = OpenStreams::kStreamsPerRelease + 10;
  std::vector<FakeStream> fakes(count);
  std::vector<std::unique_ptr<OpenStreams::Ticket>> tickets;
  for (FakeStream& fake : fakes) {
    ASSERT_OK_AND_ASSIGN(auto ticket, streams.Admit("platform", "WatchTargets", &fake));
    tickets.push_back(std::move(ticket));
  }
  // End all but ten: one release after kStreamsPerRelease ends.
  for (int i = 0; i < OpenStreams::kStreamsPerRelease; ++i) tickets[i].reset();
  EXPECT_EQ(releases, 1);
  // The last ten end: one more release when the last one ends, none before.
  for (int i = 0; i < 9; ++i) tickets[OpenStreams::kStreamsPerRelease + i].reset();
  EXPECT_EQ(releases, 1);
  tickets.back().reset();
  EXPECT_EQ(releases, 2);
}

}  // namespace
}  // namespace credledger::service
