// ListWatch against the test Kubernetes API server: events, bookmarks, the re-list after
// 410 Expired, the resume after a dropped stream, and Stop() ending a blocked watch promptly.
#include <algorithm>
#include <atomic>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_join.h"
#include "absl/synchronization/mutex.h"
#include "gtest/gtest.h"
#include "kubebridge/client/status_mapping.h"
#include "kubebridge/client/watch.h"
#include "test/kubebridge/api_server_fixture.h"

namespace credledger::kubebridge {
namespace watch_integration_test {

constexpr absl::Duration kAwaitLimit = absl::Seconds(30);

// Records syncs and events; can hold its first OnSync until released.
class RecordingHandler : public WatchHandler {
 public:
  absl::Status OnSync(const std::vector<nlohmann::json>& items,
                      const std::string& resource_version) override {
    absl::MutexLock lock(&mu_);
    std::vector<std::string> names;
    for (const nlohmann::json& item : items) names.push_back(item["metadata"]["name"]);
    syncs_.push_back(names);
    sync_versions_.push_back(resource_version);
    if (hold_first_sync_ && syncs_.size() == 1) {
      mu_.AwaitWithTimeout(absl::Condition(&released_), kAwaitLimit);
    }
    return absl::OkStatus();
  }
  absl::Status OnEvent(const WatchEvent& event) override {
    absl::MutexLock lock(&mu_);
    static constexpr const char* kNames[] = {"ADDED", "MODIFIED", "DELETED", "BOOKMARK"};
    std::string name = event.object["metadata"].value("name", "");
    events_.push_back(std::string(kNames[static_cast<int>(event.type)]) +
                      (name.empty() ? "" : " " + name));
    return absl::OkStatus();
  }

  void HoldFirstSync() {
    absl::MutexLock lock(&mu_);
    hold_first_sync_ = true;
  }
  void OnError(const absl::Status& status) override {
    absl::MutexLock lock(&mu_);
    errors_.push_back(status.ToString());
  }
  std::vector<std::string> errors() {
    absl::MutexLock lock(&mu_);
    return errors_;
  }

  void ReleaseFirstSync() {
    absl::MutexLock lock(&mu_);
    released_ = true;
  }
  bool AwaitSyncs(size_t n) {
    absl::MutexLock lock(&mu_);
    auto enough = [&]() ABSL_SHARED_LOCKS_REQUIRED(mu_) { return syncs_.size() >= n; };
    return mu_.AwaitWithTimeout(absl::Condition(&enough), kAwaitLimit);
  }
  // Waits until `event` (e.g. "ADDED x") has been received.
  bool AwaitEvent(const std::string& event) {
    absl::MutexLock lock(&mu_);
    auto seen = [&]() ABSL_SHARED_LOCKS_REQUIRED(mu_) {
      return std::find(events_.begin(), events_.end(), event) != events_.end();
    };
    return mu_.AwaitWithTimeout(absl::Condition(&seen), kAwaitLimit);
  }
  std::vector<std::vector<std::string>> syncs() {
    absl::MutexLock lock(&mu_);
    return syncs_;
  }
  std::vector<std::string> events() {
    absl::MutexLock lock(&mu_);
    return events_;
  }

 private:
  absl::Mutex mu_;
  std::vector<std::vector<std::string>> syncs_ ABSL_GUARDED_BY(mu_);
  std::vector<std::string> sync_versions_ ABSL_GUARDED_BY(mu_);
  std::vector<std::string> events_ ABSL_GUARDED_BY(mu_);
  std::vector<std::string> errors_ ABSL_GUARDED_BY(mu_);
  bool hold_first_sync_ ABSL_GUARDED_BY(mu_) = false;
  bool released_ ABSL_GUARDED_BY(mu_) = false;
};

class WatchIntegrationTest : public ApiServerFixture {
 protected:
  void StartLoop(const std::string& label_selector = "", int64_t page_size = 500) {
    ListWatchOptions options;
    options.label_selector = label_selector;
    options.page_size = page_size;
    options.backoff.initial_delay = absl::Milliseconds(10);
    options.backoff.max_delay = absl::Milliseconds(200);
    loop_ = std::thread([this, options] {
      loop_result_ = RunListWatch(*client_, Core("configmaps"), options, handler_);
    });
  }
  void StopLoop() {
    client_->Stop();
    if (loop_.joinable()) loop_.join();
  }
  void TearDown() override {
    StopLoop();
    ApiServerFixture::TearDown();
  }

  RecordingHandler handler_;
  std::thread loop_;
  absl::Status loop_result_;
};

TEST_F(WatchIntegrationTest, HandlerSeesTheListThenAddedModifiedDeletedAndBookmarks) {
  ASSERT_OK(client_->Create(Core("configmaps"), ConfigMap("before", "a")).status());
  StartLoop();
  ASSERT_TRUE(handler_.AwaitSyncs(1));
  EXPECT_EQ(handler_.syncs()[0], std::vector<std::string>{"before"});

  ASSERT_OK_AND_ASSIGN(nlohmann::json created,
                       client_->Create(Core("configmaps"), ConfigMap("x", "a")));
  created["data"]["key"] = "changed";
  ASSERT_OK(client_->Update(Core("configmaps"), created).status());
  ASSERT_OK(client_->Delete(Core("configmaps", "x")));
  ASSERT_TRUE(handler_.AwaitEvent("DELETED x"));
  server_->ForceBookmarks();
  ASSERT_TRUE(handler_.AwaitEvent("BOOKMARK"));
  std::vector<std::string> events = handler_.events();
  EXPECT_EQ(std::vector<std::string>(events.begin(), events.begin() + 3),
            (std::vector<std::string>{"ADDED x", "MODIFIED x", "DELETED x"}));
  StopLoop();
  EXPECT_EQ(loop_result_.code(), absl::StatusCode::kCancelled);
}

TEST_F(WatchIntegrationTest, LabelSelectorLimitsListAndEvents) {
  StartLoop("app=a");
  ASSERT_TRUE(handler_.AwaitSyncs(1));
  ASSERT_OK(client_->Create(Core("configmaps"), ConfigMap("other", "b")).status());
  ASSERT_OK(client_->Create(Core("configmaps"), ConfigMap("mine", "a")).status());
  ASSERT_TRUE(handler_.AwaitEvent("ADDED mine"));
  EXPECT_EQ(handler_.events(), std::vector<std::string>{"ADDED mine"});
}

class WatchExpiryTest : public WatchIntegrationTest {
 protected:
  void SetUp() override {
    kubeapi::ApiServerOptions options = ServerOptions();
    options.watch_history = 5;
    options.watch_history_window = absl::ZeroDuration();
    StartServer(std::move(options));
  }
};

TEST_F(WatchExpiryTest, WatchFromAVersionOlderThanTheHistoryIsResourceExpired) {
  ASSERT_OK_AND_ASSIGN(ObjectList list, client_->List(Core("configmaps")));
  for (int i = 0; i < 10; ++i) {
    ASSERT_OK(
        client_->Create(Core("configmaps"), ConfigMap("cm" + std::to_string(i), "a")).status());
  }
  absl::Status status =
      client_->WatchOnce(Core("configmaps"), {.resource_version = list.resource_version},
                         [](const WatchEvent&) { return absl::OkStatus(); });
  EXPECT_TRUE(IsResourceExpired(status)) << status;
}

TEST_F(WatchExpiryTest, LoopRelistsAfter410AndKeepsWatching) {
  handler_.HoldFirstSync();
  StartLoop();
  ASSERT_TRUE(handler_.AwaitSyncs(1));  // the loop is now held inside its first OnSync
  // Enough writes that the first list's resourceVersion falls out of the 5-event history.
  for (int i = 0; i < 10; ++i) {
    ASSERT_OK(
        client_->Create(Core("configmaps"), ConfigMap("cm" + std::to_string(i), "a")).status());
  }
  handler_.ReleaseFirstSync();
  ASSERT_TRUE(handler_.AwaitSyncs(2));  // 410 Expired -> re-list
  std::vector<std::vector<std::string>> syncs = handler_.syncs();
  EXPECT_TRUE(syncs[0].empty());
  EXPECT_EQ(syncs[1].size(), 10u);
  ASSERT_OK(client_->Create(Core("configmaps"), ConfigMap("after", "a")).status());
  ASSERT_TRUE(handler_.AwaitEvent("ADDED after"));
  // None of the ten writes arrived as events: the re-list delivered them.
  EXPECT_EQ(handler_.events(), std::vector<std::string>{"ADDED after"});
}

// A collection whose list would not fit in one response (here the client's body limit is
// 8 KiB; at 100,000 Targets the credential Secrets are far beyond the default 64 MiB) is
// listed in pages and synced once, without errors.
TEST_F(WatchIntegrationTest, ACollectionLargerThanOneResponseIsListedInPages) {
  KubeClientOptions options = ClientOptions();
  options.transport.max_body_bytes = 8 << 10;
  client_->Stop();
  client_ = NewClient(config_, options);
  for (int i = 0; i < 40; ++i) {
    nlohmann::json map = ConfigMap("cm" + std::to_string(i), "a");
    map["data"] = {{"value", std::string(200, 'x')}};
    ASSERT_OK(client_->Create(Core("configmaps"), map).status());
  }
  ASSERT_FALSE(client_->List(Core("configmaps")).ok());  // one response is too big
  StartLoop("", /*page_size=*/5);
  ASSERT_TRUE(handler_.AwaitSyncs(1)) << absl::StrJoin(handler_.errors(), "\n");
  EXPECT_EQ(handler_.syncs()[0].size(), 40u);
  EXPECT_EQ(handler_.errors(), std::vector<std::string>{});
}

// A watch stream cut by the network right after an event is resumed from that event's
// resourceVersion: the next change arrives once, nothing repeats, nothing is listed again.
TEST_F(WatchIntegrationTest, AStreamCutAfterAnEventResumesRightAfterIt) {
  kubeapi::Fault cut;
  cut.path_prefix = "/api/v1/namespaces/default/configmaps";
  cut.drop_watch_after_events = 1;
  cut.times = 1;
  server_->faults().Add(cut);
  StartLoop();
  ASSERT_TRUE(handler_.AwaitSyncs(1));
  ASSERT_OK(client_->Create(Core("configmaps"), ConfigMap("x", "a")).status());
  ASSERT_TRUE(handler_.AwaitEvent("ADDED x"));
  ASSERT_OK(client_->Create(Core("configmaps"), ConfigMap("y", "a")).status());
  ASSERT_TRUE(handler_.AwaitEvent("ADDED y"));
  EXPECT_EQ(server_->faults().fired(), 1);
  EXPECT_EQ(handler_.events(), (std::vector<std::string>{"ADDED x", "ADDED y"}));
  EXPECT_EQ(handler_.syncs().size(), 1u);
}

// Changes made while every watch attempt is cut at once (the API server restarting) reach
// the handler in order and once when the watch comes back, without a re-list.
TEST_F(WatchIntegrationTest, ChangesMadeWhileTheWatchIsDownArriveWhenItResumes) {
  kubeapi::Fault down;
  down.path_prefix = "/api/v1/namespaces/default/configmaps";
  down.drop_watch_after_events = 0;
  server_->faults().Add(down);
  StartLoop();
  ASSERT_TRUE(handler_.AwaitSyncs(1));
  ASSERT_TRUE(server_->faults().AwaitFired(1, kAwaitLimit));  // the watch is down now
  ASSERT_OK_AND_ASSIGN(nlohmann::json x, client_->Create(Core("configmaps"), ConfigMap("x", "a")));
  x["data"]["key"] = "changed";
  ASSERT_OK(client_->Update(Core("configmaps"), x).status());
  ASSERT_OK(client_->Create(Core("configmaps"), ConfigMap("y", "a")).status());
  server_->faults().Clear();
  ASSERT_TRUE(handler_.AwaitEvent("ADDED y"));
  EXPECT_EQ(handler_.events(), (std::vector<std::string>{"ADDED x", "MODIFIED x", "ADDED y"}));
  EXPECT_EQ(handler_.syncs().size(), 1u);
}

TEST_F(WatchIntegrationTest, StopEndsABlockedWatchWithinASecond) {
  StartLoop();
  ASSERT_TRUE(handler_.AwaitSyncs(1));
  ASSERT_OK(client_->Create(Core("configmaps"), ConfigMap("x", "a")).status());
  ASSERT_TRUE(handler_.AwaitEvent("ADDED x"));  // the watch stream is open and idle now
  absl::Time start = absl::Now();
  StopLoop();
  absl::Duration took = absl::Now() - start;
  EXPECT_LT(took, absl::Seconds(1));
  EXPECT_EQ(loop_result_.code(), absl::StatusCode::kCancelled);
}

TEST_F(WatchIntegrationTest, CallerCancellationEndsABlockedWatchOnceCall) {
  Cancellation cancel;
  absl::Status result;
  std::atomic<bool> got_event{false};
  ASSERT_OK_AND_ASSIGN(ObjectList list, client_->List(Core("configmaps")));
  std::thread watcher([&] {
    result = client_->WatchOnce(
        Core("configmaps"), {.resource_version = list.resource_version},
        [&](const WatchEvent&) {
          got_event = true;
          return absl::OkStatus();
        },
        &cancel);
  });
  ASSERT_OK(client_->Create(Core("configmaps"), ConfigMap("x", "a")).status());
  absl::Time give_up = absl::Now() + kAwaitLimit;
  while (!got_event && absl::Now() < give_up) std::this_thread::yield();
  ASSERT_TRUE(got_event);
  absl::Time start = absl::Now();
  cancel.Cancel();
  watcher.join();
  EXPECT_LT(absl::Now() - start, absl::Seconds(1));
  EXPECT_EQ(result.code(), absl::StatusCode::kCancelled);
  EXPECT_FALSE(client_->stopped());
}

}  // namespace watch_integration_test
}  // namespace credledger::kubebridge
