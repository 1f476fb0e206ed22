// Streams on the callback API of a real Server over real gRPC channels (docs/api.md, "Threads
// and streams"): hundreds of open watches add no thread each, the stream limits per caller and
// in total answer RESOURCE_EXHAUSTED and free a place when a stream ends, and a watch whose
// queued changes pass --watch-queue-bytes ends RESOURCE_EXHAUSTED.
#include <filesystem>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "service/credledger_main.h"
#include "test/integration/api_fixture.h"
#include "test/support/process_stats.h"

namespace credledger::testing {
namespace open_streams_integration_test {

using ::testing::HasSubstr;
using Kind = v1::WatchTargetsResponse;

constexpr absl::Duration kWait = absl::Seconds(30);

class OpenStreamsIntegrationTest : public ApiFixture {
 protected:
  struct Watch {
    grpc::ClientContext context;
    std::unique_ptr<grpc::ClientReader<v1::WatchTargetsResponse>> reader;
  };

  void Configure(service::ServeOptions& options) override {
    options.grpc.max_streams = static_cast<int64_t>(limits_.max_streams);
    options.grpc.max_streams_per_caller = static_cast<int64_t>(limits_.max_streams_per_caller);
    options.grpc.watch_queue_bytes = static_cast<int64_t>(watch_queue_bytes_);
  }

  // Starts WatchTargets as `actor` (a declared name).
  std::unique_ptr<Watch> StartWatch(const std::string& actor) {
    auto watch = std::make_unique<Watch>();
    watch->context.AddMetadata("credledger-actor", actor);
    watch->context.set_deadline(absl::ToChronoTime(absl::Now() + kWait));
    watch->reader = stub_->WatchTargets(&watch->context, v1::WatchTargetsRequest());
    return watch;
  }

  // Reads through the snapshot's end marker; false when the stream ended first.
  static bool ReadSnapshot(Watch& watch) {
    v1::WatchTargetsResponse item;
    while (watch.reader->Read(&item)) {
      if (item.kind() == Kind::KIND_SNAPSHOT_END) return true;
    }
    return false;
  }

  // The status a stream ended with, after reading what it still sends.
  static grpc::Status Drain(Watch& watch) {
    v1::WatchTargetsResponse item;
    while (watch.reader->Read(&item)) {
    }
    return watch.reader->Finish();
  }

  static grpc::Status Cancel(Watch& watch) {
    watch.context.TryCancel();
    return Drain(watch);
  }

  service::OpenStreams::Limits limits_{.max_streams = 1000, .max_streams_per_caller = 1000};
  size_t watch_queue_bytes_ = size_t{4} << 20;
};

TEST_F(OpenStreamsIntegrationTest, HundredsOfOpenWatchesAddNoThreadEach) {
  Register("demo", "edge-1", "req-1");
  constexpr int kStreams = 300;
  const int threads_before = ThreadCount();
  std::vector<std::unique_ptr<Watch>> watches;
  for (int i = 0; i < kStreams; ++i) {
    watches.push_back(StartWatch("platform"));
    ASSERT_TRUE(ReadSnapshot(*watches.back())) << "watch " << i;
  }
  const int threads_open = ThreadCount();
  EXPECT_LT(threads_open - threads_before, 40)
      << threads_before << " threads before, " << threads_open << " with the watches open";

  // The open watches hold up neither calls nor changes: a unary read answers and every watch
  // sees the next change.
  v1::ListTargetsResponse listed;
  ASSERT_TRUE(Call(&v1::TargetService::Stub::ListTargets, v1::ListTargetsRequest(), &listed).ok());
  EXPECT_EQ(listed.targets_size(), 1);
  const v1::RegisterTargetResponse second = Register("demo", "edge-2", "req-2");
  for (auto& watch : watches) {
    v1::WatchTargetsResponse item;
    do {
      ASSERT_TRUE(watch->reader->Read(&item));
    } while (item.seq() < second.seq());
  }
  for (auto& watch : watches) {
    EXPECT_EQ(Cancel(*watch).error_code(), grpc::StatusCode::CANCELLED);
  }
  EXPECT_LT(ThreadCount() - threads_before, 40);
}

TEST_F(OpenStreamsIntegrationTest, StreamsPastTheLimitsAreResourceExhaustedUntilOneEnds) {
  limits_ = {.max_streams = 3, .max_streams_per_caller = 2};
  RestartServer();
  std::unique_ptr<Watch> alice_1 = StartWatch("alice");
  std::unique_ptr<Watch> alice_2 = StartWatch("alice");
  ASSERT_TRUE(ReadSnapshot(*alice_1));
  ASSERT_TRUE(ReadSnapshot(*alice_2));
  std::unique_ptr<Watch> alice_3 = StartWatch("alice");
  grpc::Status refused = Drain(*alice_3);
  EXPECT_EQ(refused.error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED);
  EXPECT_THAT(refused.error_message(),
              HasSubstr("caller \"declared:alice\" already has 2 open streams, the limit per "
                        "caller (--max-streams-per-caller)"));

  // A WatchFleet stream takes a place of the same total.
  auto reports = v1::ReportService::NewStub(channel_);
  grpc::ClientContext fleet_context;
  fleet_context.AddMetadata("credledger-actor", "bob");
  fleet_context.set_deadline(absl::ToChronoTime(absl::Now() + kWait));
  auto fleet = reports->WatchFleet(&fleet_context, v1::WatchFleetRequest());
  v1::WatchFleetResponse fleet_item;
  ASSERT_TRUE(fleet->Read(&fleet_item));
  std::unique_ptr<Watch> carol = StartWatch("carol");
  refused = Drain(*carol);
  EXPECT_EQ(refused.error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED);
  EXPECT_THAT(refused.error_message(),
              HasSubstr("the server already has 3 open streams, its limit (--max-streams)"));

  // Once a stream of alice's has ended, its place is free again.
  EXPECT_EQ(Cancel(*alice_1).error_code(), grpc::StatusCode::CANCELLED);
  const absl::Time deadline = absl::Now() + kWait;
  bool admitted = false;
  while (!admitted && absl::Now() < deadline) {
    std::unique_ptr<Watch> again = StartWatch("alice");
    admitted = ReadSnapshot(*again);
    if (!admitted) {
      EXPECT_EQ(Drain(*again).error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED);
    } else {
      Cancel(*again);
    }
  }
  EXPECT_TRUE(admitted);
  fleet_context.TryCancel();
  while (fleet->Read(&fleet_item)) {
  }
  fleet->Finish();
  Cancel(*alice_2);
}

TEST_F(OpenStreamsIntegrationTest, AWatchWhoseQueuedChangesPassTheByteLimitEnds) {
  watch_queue_bytes_ = 1;  // any change waiting for the client passes it
  RestartServer();
  std::unique_ptr<Watch> watch = StartWatch("platform");
  ASSERT_TRUE(ReadSnapshot(*watch));
  Register("demo", "edge-1", "req-1");
  const grpc::Status ended = Drain(*watch);
  EXPECT_EQ(ended.error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED);
  EXPECT_THAT(ended.error_message(),
              HasSubstr("fell behind by more than 1 bytes of changes (--watch-queue-bytes)"));
}

TEST_F(OpenStreamsIntegrationTest, AnExportRefusedForTheStreamLimitSaysSoAndNothingMore) {
  limits_ = {.max_streams = 1, .max_streams_per_caller = 1};
  RestartServer();
  std::unique_ptr<Watch> watch = StartWatch("alice");
  ASSERT_TRUE(ReadSnapshot(*watch));
  std::ostringstream out;
  std::ostringstream err;
  const int exported = service::CredledgerMain(
      {"export", "--server", server_->address(), "--as", "alice", "--output",
       (dir_.path() / "export.jsonl").string()},
      out, err);
  EXPECT_EQ(exported, 1);
  EXPECT_THAT(err.str(), HasSubstr("RESOURCE_EXHAUSTED: ExportEvents: caller \"declared:alice\" "
                                   "already has 1 open streams"));
  // Nothing was exported: no advice to resume, no file left behind.
  EXPECT_THAT(err.str(), ::testing::Not(HasSubstr("incomplete")));
  EXPECT_FALSE(std::filesystem::exists(dir_.path() / "export.jsonl"));
  Cancel(*watch);
}

}  // namespace open_streams_integration_test
}  // namespace credledger::testing
