// Contract tests: watch streams (list-then-watch, synthetic ADDED, selectors, bookmarks, the
// bookmark before the timeout, the history's window, 410 Expired, many concurrent watchers,
// prompt end on Stop).
#include <memory>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "test/kubeapi/test_support.h"

namespace credledger::kubeapi::testing {
namespace watch_test {

const char kSecrets[] = "/api/v1/namespaces/team-a/secrets";

std::vector<std::string> Types(const std::vector<nlohmann::json>& events) {
  std::vector<std::string> types;
  for (const auto& e : events) types.push_back(e["type"]);
  return types;
}

class WatchTest : public ApiServerTest {
 protected:
  void SetUp() override {
    ApiServerTest::SetUp();
    CreateNamespace("team-a");
  }
  std::unique_ptr<WatchReader> Watch(const std::string& query) {
    return std::make_unique<WatchReader>(*server_, server_->admin_token(),
                                         absl::StrCat(kSecrets, "?watch=true&", query));
  }
};

TEST_F(WatchTest, ListThenWatchFromTheListResourceVersionSeesOnlyLaterChanges) {
  CreateSecret("team-a", "before");
  Reply list = Admin().Get(kSecrets);
  std::string rv = list.body["metadata"]["resourceVersion"];
  auto watch = Watch(absl::StrCat("resourceVersion=", rv));
  nlohmann::json created = CreateSecret("team-a", "after");
  nlohmann::json changed = created;
  changed["data"] = {{"k", "dg=="}};
  ASSERT_EQ(Admin().Put(absl::StrCat(kSecrets, "/after"), changed).status, 200);
  ASSERT_EQ(Admin().Delete(absl::StrCat(kSecrets, "/after")).status, 200);
  std::vector<nlohmann::json> events = watch->WaitForEvents(3);
  ASSERT_EQ(Types(events), (std::vector<std::string>{"ADDED", "MODIFIED", "DELETED"}));
  EXPECT_EQ(events[0]["object"]["metadata"]["name"], "after");
  EXPECT_EQ(events[0]["object"]["kind"], "Secret");
  EXPECT_EQ(events[1]["object"]["data"]["k"], "dg==");
  EXPECT_EQ(watch->status(), 200);
}

TEST_F(WatchTest, WatchWithoutResourceVersionStartsWithSyntheticAdds) {
  CreateSecret("team-a", "a");
  CreateSecret("team-a", "b");
  auto watch = Watch("");
  std::vector<nlohmann::json> initial = watch->WaitForEvents(2);
  ASSERT_EQ(Types(initial), (std::vector<std::string>{"ADDED", "ADDED"}));
  CreateSecret("team-a", "c");
  std::vector<nlohmann::json> events = watch->WaitForEvents(3);
  ASSERT_EQ(events.size(), 3u);
  EXPECT_EQ(events[2]["object"]["metadata"]["name"], "c");
}

TEST_F(WatchTest, LabelSelectorTurnsTransitionsIntoAddedAndDeleted) {
  auto watch = Watch("resourceVersion=0&labelSelector=app%3Ddb");
  nlohmann::json s = CreateSecret("team-a", "s", {{"app", "web"}});
  s["metadata"]["labels"]["app"] = "db";
  Reply in = Admin().Put(absl::StrCat(kSecrets, "/s"), s);
  ASSERT_EQ(in.status, 200);
  nlohmann::json out = in.body;
  out["metadata"]["labels"]["app"] = "web";
  ASSERT_EQ(Admin().Put(absl::StrCat(kSecrets, "/s"), out).status, 200);
  EXPECT_EQ(Types(watch->WaitForEvents(2)), (std::vector<std::string>{"ADDED", "DELETED"}));
}

TEST_F(WatchTest, ForcedBookmarkCarriesOnlyTypeMetaAndResourceVersion) {
  auto watch = Watch(absl::StrCat("resourceVersion=", server_->resource_version(),
                                  "&allowWatchBookmarks=true"));
  CreateSecret("team-a", "s");
  ASSERT_EQ(watch->WaitForEvents(1).size(), 1u);
  server_->ForceBookmarks();
  std::vector<nlohmann::json> events = watch->WaitForEvents(2);
  ASSERT_EQ(events.size(), 2u);
  EXPECT_TRUE(MatchesFixture(events[1], "watch_event_bookmark.json",
                             {{"RV", absl::StrCat(server_->resource_version())}}));
}

TEST_F(WatchTest, NoBookmarksUnlessAllowed) {
  auto watch = Watch(absl::StrCat("resourceVersion=", server_->resource_version()));
  server_->ForceBookmarks();
  CreateSecret("team-a", "s");
  std::vector<nlohmann::json> events = watch->WaitForEvents(1);
  ASSERT_EQ(Types(events), (std::vector<std::string>{"ADDED"}));
}

TEST_F(WatchTest, TimeoutSecondsEndsTheStream) {
  auto watch = Watch("resourceVersion=0&timeoutSeconds=1");
  EXPECT_TRUE(watch->WaitForEnd(absl::Seconds(10)));
  EXPECT_EQ(watch->status(), 200);
  EXPECT_TRUE(watch->complete()) << "ended with the end of the chunked body";
}

// As kube-apiserver does, a stream sends a bookmark shortly before its timeout ends it, so
// that the client resumes from a current version even when nothing it selects changed.
TEST_F(WatchTest, ABookmarkComesRightBeforeTheTimeoutEndsTheStream) {
  ASSERT_GT(Options().bookmark_interval, absl::Seconds(3));  // no periodic one meanwhile
  auto watch = Watch(absl::StrCat("resourceVersion=", server_->resource_version(),
                                  "&allowWatchBookmarks=true&timeoutSeconds=3"));
  CreateObject("/api/v1/namespaces/team-a/configmaps",
               {{"apiVersion", "v1"}, {"kind", "ConfigMap"}, {"metadata", {{"name", "other"}}}});
  ASSERT_TRUE(watch->WaitForEnd(absl::Seconds(10)));
  std::vector<nlohmann::json> events = watch->events();
  ASSERT_EQ(Types(events), (std::vector<std::string>{"BOOKMARK"}));
  EXPECT_EQ(events[0]["object"]["metadata"]["resourceVersion"],
            absl::StrCat(server_->resource_version()));
}

class ShortHistoryWatchTest : public WatchTest {
 protected:
  ApiServerOptions Options() override {
    ApiServerOptions options = WatchTest::Options();
    options.watch_history = 3;
    options.watch_history_window = absl::ZeroDuration();
    return options;
  }
};

TEST_F(ShortHistoryWatchTest, ResourceVersionOlderThanHistoryGetsExpiredErrorAndEnd) {
  int64_t start = server_->resource_version();
  for (int i = 0; i < 5; ++i) CreateSecret("team-a", absl::StrCat("s", i));
  auto watch = Watch(absl::StrCat("resourceVersion=", start));
  ASSERT_TRUE(watch->WaitForEnd());
  std::vector<nlohmann::json> events = watch->events();
  ASSERT_EQ(events.size(), 1u);
  // History keeps the last 3 writes, so resuming is possible from current - 3.
  int64_t oldest = server_->resource_version() - 3;
  EXPECT_TRUE(MatchesFixture(events[0], "watch_event_410_expired.json",
                             {{"REQUESTED", absl::StrCat(start)}, {"OLDEST", absl::StrCat(oldest)}}));
  auto resumable = Watch(absl::StrCat("resourceVersion=", oldest));
  EXPECT_EQ(resumable->WaitForEvents(3).size(), 3u);
}

// Beyond its newest events, the history keeps every event younger than its window, as
// kube-apiserver's watch cache keeps at least 75 s: a watch resumes from there.
class RecentHistoryWatchTest : public WatchTest {
 protected:
  ApiServerOptions Options() override {
    ApiServerOptions options = WatchTest::Options();
    options.watch_history = 3;
    options.watch_history_window = absl::Hours(1);
    return options;
  }
};

TEST_F(RecentHistoryWatchTest, AResourceVersionWithinTheWindowResumes) {
  int64_t start = server_->resource_version();
  for (int i = 0; i < 5; ++i) CreateSecret("team-a", absl::StrCat("s", i));
  auto watch = Watch(absl::StrCat("resourceVersion=", start));
  std::vector<nlohmann::json> events = watch->WaitForEvents(5);
  EXPECT_EQ(Types(events), std::vector<std::string>(5, "ADDED"));
}

TEST_F(WatchTest, ManyConcurrentWatchesAllSeeTheChangeAndEndOnStop) {
  constexpr int kWatchers = 24;
  std::vector<std::unique_ptr<WatchReader>> watches;
  std::string rv = absl::StrCat(server_->resource_version());
  for (int i = 0; i < kWatchers; ++i) watches.push_back(Watch(absl::StrCat("resourceVersion=", rv)));
  CreateSecret("team-a", "s");
  for (auto& w : watches) EXPECT_EQ(w->WaitForEvents(1).size(), 1u);
  absl::Time before = absl::Now();
  server_->Stop();
  EXPECT_LT(absl::Now() - before, absl::Seconds(3)) << "Stop() must end open watches promptly";
  for (auto& w : watches) EXPECT_TRUE(w->WaitForEnd(absl::Seconds(5)));
}

}  // namespace watch_test
}  // namespace credledger::kubeapi::testing
