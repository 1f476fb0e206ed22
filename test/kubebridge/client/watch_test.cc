#include "kubebridge/client/watch.h"

#include <memory>
#include <thread>

#include "absl/strings/match.h"
#include "gtest/gtest.h"
#include "test/kubebridge/fake_transport.h"
#include "test/support/status_matchers.h"

namespace credledger::kubebridge {
namespace watch_test {

const ResourceRef kSecrets{.version = "v1", .resource = "secrets", .namespace_name = "a"};

// Records every callback as a line of text.
class RecordingHandler : public WatchHandler {
 public:
  absl::Status OnSync(const std::vector<nlohmann::json>& items,
                      const std::string& resource_version) override {
    log.push_back("sync " + std::to_string(items.size()) + " @" + resource_version);
    return sync_result;
  }
  absl::Status OnEvent(const WatchEvent& event) override {
    log.push_back("event " + std::to_string(static_cast<int>(event.type)) + " @" +
                  event.object["metadata"].value("resourceVersion", ""));
    return absl::OkStatus();
  }
  void OnError(const absl::Status& status) override {
    log.push_back("error " + std::string(absl::StatusCodeToString(status.code())));
  }

  std::vector<std::string> log;
  absl::Status sync_result;
};

FakeReply ListReply(const std::string& resource_version, int items) {
  nlohmann::json list = {{"metadata", {{"resourceVersion", resource_version}}},
                         {"items", nlohmann::json::array()}};
  for (int i = 0; i < items; ++i) {
    list["items"].push_back({{"metadata", {{"name", "o" + std::to_string(i)}}}});
  }
  return FakeReply::Json(200, list);
}

std::string Event(const std::string& type, const std::string& resource_version) {
  return nlohmann::json(
             {{"type", type},
              {"object", {{"metadata", {{"name", "x"}, {"resourceVersion", resource_version}}}}}})
      .dump();
}

class ListWatchTest : public ::testing::Test {
 protected:
  // Runs the loop on a thread until `requests` requests were made, then stops the client;
  // the loop's result lands in result_.
  void RunUntilRequests(size_t requests) {
    std::thread loop([&] { result_ = RunListWatch(*client_, kSecrets, {}, handler_); });
    EXPECT_TRUE(transport_->AwaitRequests(requests));
    client_->Stop();
    loop.join();
  }

  std::string RequestPath(size_t i) { return transport_->requests().at(i).path; }

  StepClock clock_;
  FakeClient fake_ = MakeFakeClient(&clock_);
  FakeTransport* transport_ = fake_.transport;
  std::unique_ptr<KubeClient>& client_ = fake_.client;
  RecordingHandler handler_;
  absl::Status result_;
};

TEST_F(ListWatchTest, ListsThenWatchesAndRewatchesFromTheLastVersionSeen) {
  transport_->Push(ListReply("10", 2));
  transport_->Push(FakeReply::Stream({Event("ADDED", "11"), Event("BOOKMARK", "12")}));
  transport_->Push(FakeReply::Blocking());
  RunUntilRequests(3);
  EXPECT_EQ(result_.code(), absl::StatusCode::kCancelled);
  EXPECT_EQ(handler_.log, (std::vector<std::string>{"sync 2 @10", "event 0 @11", "event 3 @12"}));
  EXPECT_TRUE(absl::StrContains(RequestPath(1), "resourceVersion=10")) << RequestPath(1);
  EXPECT_TRUE(absl::StrContains(RequestPath(2), "resourceVersion=12")) << RequestPath(2);
}

TEST_F(ListWatchTest, ExpiredErrorEventTriggersARelist) {
  transport_->Push(ListReply("10", 2));
  transport_->Push(FakeReply::Stream({
      Event("MODIFIED", "11"),
      R"({"type":"ERROR","object":{"kind":"Status","code":410,"reason":"Expired"}})",
  }));
  transport_->Push(ListReply("20", 1));
  transport_->Push(FakeReply::Blocking());
  RunUntilRequests(4);
  EXPECT_EQ(handler_.log, (std::vector<std::string>{"sync 2 @10", "event 1 @11", "sync 1 @20"}));
  EXPECT_FALSE(absl::StrContains(RequestPath(2), "watch=true"));
  EXPECT_TRUE(absl::StrContains(RequestPath(3), "resourceVersion=20"));
  EXPECT_TRUE(clock_.sleeps().empty());  // a 410 re-lists at once
}

TEST_F(ListWatchTest, Http410OnTheWatchRequestTriggersARelist) {
  transport_->Push(ListReply("10", 0));
  transport_->Push(FakeReply::Status(410, "Gone", "too old"));
  transport_->Push(ListReply("30", 0));
  transport_->Push(FakeReply::Blocking());
  RunUntilRequests(4);
  EXPECT_EQ(handler_.log, (std::vector<std::string>{"sync 0 @10", "sync 0 @30"}));
}

TEST_F(ListWatchTest, LostConnectionBacksOffAndRewatchesWithoutRelisting) {
  transport_->Push(ListReply("10", 0));
  transport_->Push(FakeReply::Error(absl::UnavailableError("GET /x: connection reset")));
  transport_->Push(FakeReply::Blocking());
  RunUntilRequests(3);
  EXPECT_EQ(handler_.log, (std::vector<std::string>{"sync 0 @10", "error UNAVAILABLE"}));
  EXPECT_TRUE(absl::StrContains(RequestPath(2), "watch=true&"));
  EXPECT_TRUE(absl::StrContains(RequestPath(2), "resourceVersion=10"));
  EXPECT_EQ(clock_.sleeps().size(), 1u);
}

TEST_F(ListWatchTest, ForbiddenListIsReportedAndRetriedAfterBackoff) {
  transport_->Push(FakeReply::Status(403, "Forbidden", "no"));
  transport_->Push(ListReply("10", 1));
  transport_->Push(FakeReply::Blocking());
  RunUntilRequests(3);
  EXPECT_EQ(handler_.log, (std::vector<std::string>{"error PERMISSION_DENIED", "sync 1 @10"}));
  EXPECT_EQ(clock_.sleeps().size(), 1u);
}

TEST_F(ListWatchTest, QuietStreamsThatEndAtOnceArePaced) {
  transport_->Push(ListReply("10", 0));
  transport_->Push(FakeReply::Stream({}));
  transport_->Push(FakeReply::Stream({}));
  transport_->Push(FakeReply::Stream({}));
  transport_->Push(FakeReply::Blocking());
  RunUntilRequests(5);
  EXPECT_EQ(clock_.sleeps().size(), 2u);  // after the 2nd and 3rd empty stream
}

TEST_F(ListWatchTest, HandlerErrorStopsTheLoopWithThatError) {
  handler_.sync_result = absl::InternalError("handler broke");
  transport_->Push(ListReply("10", 0));
  absl::Status result = RunListWatch(*client_, kSecrets, {}, handler_);
  EXPECT_EQ(result, absl::InternalError("handler broke"));
}

TEST_F(ListWatchTest, CallerCancellationStopsTheLoop) {
  transport_->Push(ListReply("10", 0));
  transport_->Push(FakeReply::Blocking());
  Cancellation cancel;
  absl::Status result;
  std::thread loop([&] { result = RunListWatch(*client_, kSecrets, {}, handler_, &cancel); });
  ASSERT_TRUE(transport_->AwaitRequests(2));
  cancel.Cancel();
  loop.join();
  EXPECT_EQ(result.code(), absl::StatusCode::kCancelled);
  EXPECT_FALSE(client_->stopped());
}

}  // namespace watch_test
}  // namespace credledger::kubebridge
