// ObjectCache against the test Kubernetes API server: the first list, the events that keep
// the copy current (selectors included), the owner's own writes and deletions, and Stop.
#include <algorithm>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/hash/hash.h"
#include "absl/synchronization/mutex.h"
#include "gtest/gtest.h"
#include "kubebridge/client/object_cache.h"
#include "test/kubebridge/api_server_fixture.h"

namespace credledger::kubebridge {
namespace object_cache_integration_test {

constexpr absl::Duration kAwaitLimit = absl::Seconds(30);

// The digest the tests' cache keeps: the ConfigMap's data.
uint64_t DataDigest(const nlohmann::json& object) {
  return absl::HashOf(object.value("data", nlohmann::json()).dump());
}

class ObjectCacheTest : public ApiServerFixture {
 protected:
  void StartCache(const std::string& label_selector) {
    ListWatchOptions options;
    options.label_selector = label_selector;
    cache_ = ObjectCache::Start(client_.get(), Core("configmaps"), options, DataDigest);
    ASSERT_TRUE(cache_->WaitSynced(kAwaitLimit));
  }
  void TearDown() override {
    if (cache_ != nullptr) cache_->Stop();
    ApiServerFixture::TearDown();
  }
  nlohmann::json Create(const std::string& name, const std::string& app, const std::string& value) {
    absl::StatusOr<nlohmann::json> created =
        client_->Create(Core("configmaps"), ConfigMap(name, app, value));
    EXPECT_TRUE(created.ok()) << created.status();
    return created.ok() ? *created : nlohmann::json();
  }
  // Rewrites ConfigMap `name` with label app=`app` and data value `value`; returns it as
  // the server answered.
  nlohmann::json Replace(const std::string& name, const std::string& app,
                         const std::string& value) {
    absl::StatusOr<nlohmann::json> live = client_->Get(Core("configmaps", name));
    EXPECT_TRUE(live.ok()) << live.status();
    if (!live.ok()) return nlohmann::json();
    (*live)["metadata"]["labels"]["app"] = app;
    (*live)["data"]["key"] = value;
    absl::StatusOr<nlohmann::json> written = client_->Update(Core("configmaps", name), *live);
    EXPECT_TRUE(written.ok()) << written.status();
    return written.ok() ? *written : nlohmann::json();
  }
  uint64_t DigestOf(const std::string& value) { return DataDigest({{"data", {{"key", value}}}}); }
  // Waits until the cache holds `name` with data value `value` (nullopt: until it lacks it).
  bool AwaitValue(const std::string& name, std::optional<std::string> value) {
    const std::optional<uint64_t> want =
        value.has_value() ? std::optional<uint64_t>(DigestOf(*value)) : std::nullopt;
    return cache_->AwaitEntry(
        "default", name,
        [&](const std::optional<CachedObject>& entry) {
          return want.has_value() ? entry.has_value() && entry->digest == *want
                                  : !entry.has_value();
        },
        kAwaitLimit);
  }

  std::unique_ptr<ObjectCache> cache_;
};

TEST_F(ObjectCacheTest, TheFirstListFillsTheCopyWithTheSelectedObjects) {
  const nlohmann::json mine = Create("mine", "a", "one");
  Create("other", "b", "two");
  StartCache("app=a");
  std::optional<CachedObject> entry = cache_->Get("default", "mine");
  ASSERT_TRUE(entry.has_value());
  EXPECT_EQ(entry->digest, DigestOf("one"));
  EXPECT_EQ(std::to_string(entry->resource_version), mine["metadata"]["resourceVersion"]);
  EXPECT_FALSE(cache_->Get("default", "other").has_value());
  EXPECT_EQ(cache_->size(), 1u);
}

TEST_F(ObjectCacheTest, EventsKeepTheCopyCurrent) {
  StartCache("app=a");
  Create("x", "a", "one");
  ASSERT_TRUE(AwaitValue("x", "one"));
  Replace("x", "a", "two");
  ASSERT_TRUE(AwaitValue("x", "two"));
  // Leaving the selector is a deletion for the cache.
  Replace("x", "b", "two");
  ASSERT_TRUE(AwaitValue("x", std::nullopt));
  Create("y", "a", "three");
  ASSERT_TRUE(AwaitValue("y", "three"));
  ASSERT_OK(client_->Delete(Core("configmaps", "y")));
  ASSERT_TRUE(AwaitValue("y", std::nullopt));
}

TEST_F(ObjectCacheTest, TheOwnersWriteIsSeenAtOnceAndAnOlderEventDoesNotUndoIt) {
  const nlohmann::json old = Create("x", "a", "one");
  StartCache("app=a");
  cache_->Observe(Replace("x", "a", "two"));
  EXPECT_EQ(cache_->Get("default", "x")->digest, DigestOf("two"));
  // The object as it was before the write (an event still on its way) changes nothing.
  cache_->Observe(old);
  EXPECT_EQ(cache_->Get("default", "x")->digest, DigestOf("two"));
  // The watch's own event of the write, and a later one, arrive in order.
  Create("barrier", "a", "b");
  ASSERT_TRUE(AwaitValue("barrier", "b"));
  EXPECT_EQ(cache_->Get("default", "x")->digest, DigestOf("two"));
}

TEST_F(ObjectCacheTest, AnObjectTheOwnerDeletedStaysGoneUntilANewerVersionArrives) {
  const nlohmann::json old = Create("x", "a", "one");
  StartCache("app=a");
  cache_->ObserveDeleted("default", "x");
  EXPECT_FALSE(cache_->Get("default", "x").has_value());
  EXPECT_EQ(cache_->size(), 0u);
  cache_->Observe(old);  // a late event from before the deletion
  EXPECT_FALSE(cache_->Get("default", "x").has_value());
  // The object was not really deleted here: its next change brings it back.
  Replace("x", "a", "two");
  ASSERT_TRUE(AwaitValue("x", "two"));
}

// The cache tells its owner of a change it did not make itself: a new object, another
// digest, a deletion; not of a change outside the digest, nor of the echo of the owner's own
// write once Observe has recorded it.
TEST_F(ObjectCacheTest, ChangesTheOwnerDidNotMakeAreReported) {
  absl::Mutex mu;
  std::vector<std::string> changed;
  ListWatchOptions options;
  options.label_selector = "app=a";
  cache_ = ObjectCache::Start(client_.get(), Core("configmaps"), options, DataDigest,
                              [&](const std::string& ns, const std::string& name) {
                                absl::MutexLock lock(&mu);
                                changed.push_back(ns + "/" + name);
                              });
  ASSERT_TRUE(cache_->WaitSynced(kAwaitLimit));
  cache_->Observe(Create("mine", "a", "one"));  // the owner's write, then its echo
  Create("theirs", "a", "one");
  ASSERT_TRUE(AwaitValue("theirs", "one"));
  nlohmann::json relabelled = Replace("theirs", "a", "one");  // no change of the digest
  relabelled["metadata"]["annotations"] = {{"note", "x"}};
  ASSERT_OK(client_->Update(Core("configmaps", "theirs"), relabelled).status());
  Replace("theirs", "a", "two");
  ASSERT_TRUE(AwaitValue("theirs", "two"));
  ASSERT_OK(client_->Delete(Core("configmaps", "theirs")));
  ASSERT_TRUE(AwaitValue("theirs", std::nullopt));
  // The cache calls its owner after it changed the entry: wait for the deletion's call.
  absl::MutexLock lock(&mu);
  const auto reported = [&] {
    return std::count(changed.begin(), changed.end(), "default/theirs") >= 3;
  };
  ASSERT_TRUE(mu.AwaitWithTimeout(absl::Condition(&reported), kAwaitLimit));
  // The echo of the owner's write is reported only when it overtook Observe.
  EXPECT_LE(std::count(changed.begin(), changed.end(), "default/mine"), 1);
  changed.erase(std::remove(changed.begin(), changed.end(), "default/mine"), changed.end());
  EXPECT_EQ(changed, std::vector<std::string>(3, "default/theirs"));
}

TEST_F(ObjectCacheTest, StopEndsAWaitForTheFirstList) {
  kubeapi::Fault refused;
  refused.method = "GET";
  refused.path_prefix = "/api/v1/namespaces/default/configmaps";
  refused.status_code = 403;
  server_->faults().Add(refused);
  ListWatchOptions options;
  cache_ = ObjectCache::Start(client_.get(), Core("configmaps"), options, DataDigest);
  EXPECT_FALSE(cache_->WaitSynced(absl::Milliseconds(100)));
  cache_->Stop();
  EXPECT_FALSE(cache_->WaitSynced());
}

}  // namespace object_cache_integration_test
}  // namespace credledger::kubebridge
