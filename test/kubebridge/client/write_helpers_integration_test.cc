// ApplyIfDrifted and CreateOnly against the test Kubernetes API server and a real ObjectCache:
// the cache decides whether a call is needed, a write is remembered at once, and no helper
// ever reads from the API server.
#include <memory>
#include <string>

#include "absl/hash/hash.h"
#include "gtest/gtest.h"
#include "kubebridge/client/write_helpers.h"
#include "test/kubeapi/request_recorder.h"
#include "test/kubebridge/api_server_fixture.h"

namespace credledger::kubebridge {
namespace write_helpers_integration_test {

constexpr absl::Duration kAwaitLimit = absl::Seconds(30);
constexpr char kAdmin[] = "kubernetes-admin";

// The digest of the tests' managed field: the label `tier`.
uint64_t TierDigest(const nlohmann::json& object) {
  const nlohmann::json labels =
      object.value("metadata", nlohmann::json::object()).value("labels", nlohmann::json::object());
  return absl::HashOf(labels.value("tier", nlohmann::json()).dump());
}

nlohmann::json Account(const std::string& tier) {
  return {
      {"apiVersion", "v1"},
      {"kind", "ServiceAccount"},
      {"metadata", {{"name", "agent"}, {"namespace", "default"}, {"labels", {{"tier", tier}}}}}};
}

class WriteHelpersTest : public ApiServerFixture {
 protected:
  void StartCache() {
    cache_ = ObjectCache::Start(client_.get(), Core("serviceaccounts"), {}, TierDigest);
    ASSERT_TRUE(cache_->WaitSynced(kAwaitLimit));
  }
  // Every PATCH of the ServiceAccount answered 409 Conflict, `times` times (-1: always).
  void ConflictOnApply(int times) {
    kubeapi::Fault conflict;
    conflict.method = "PATCH";
    conflict.path_prefix = "/api/v1/namespaces/default/serviceaccounts/agent";
    conflict.status_code = 409;
    conflict.times = times;
    server_->faults().Add(conflict);
  }
  void TearDown() override {
    if (cache_ != nullptr) cache_->Stop();
    ApiServerFixture::TearDown();
  }
  // HTTP requests of the admin user on serviceaccounts that reached the server's handlers
  // (an injected fault's answer is not one), other than the cache's list and watch.
  int64_t Calls() {
    int64_t calls = 0;
    for (const kubeapi::RequestCount& c : server_->requests().CountsOf(kAdmin)) {
      if (c.resource == "serviceaccounts" && !c.check && c.verb != "list" && c.verb != "watch") {
        calls += c.count;
      }
    }
    return calls;
  }
  nlohmann::json Live() {
    absl::StatusOr<nlohmann::json> live = client_->Get(Core("serviceaccounts", "agent"));
    EXPECT_TRUE(live.ok()) << live.status();
    return live.ok() ? *live : nlohmann::json();
  }

  std::unique_ptr<ObjectCache> cache_;
};

TEST_F(WriteHelpersTest, AnAbsentObjectIsCreatedByOneApplyAndNotAppliedAgain) {
  StartCache();
  ASSERT_OK_AND_ASSIGN(WriteResult first, ApplyIfDrifted(*client_, *cache_, Core("serviceaccounts"),
                                                         Account("a"), "mgr"));
  EXPECT_TRUE(first.wrote);
  EXPECT_TRUE(first.created);
  EXPECT_EQ(Calls(), 1);
  ASSERT_OK_AND_ASSIGN(
      WriteResult second,
      ApplyIfDrifted(*client_, *cache_, Core("serviceaccounts"), Account("a"), "mgr"));
  EXPECT_FALSE(second.wrote);
  EXPECT_EQ(Calls(), 1);
  const nlohmann::json live = Live();
  EXPECT_EQ(live["metadata"]["labels"]["tier"], "a");
  EXPECT_EQ(live["metadata"]["managedFields"][0]["manager"], "mgr");
  EXPECT_EQ(live["metadata"]["managedFields"][0]["operation"], "Apply");
}

TEST_F(WriteHelpersTest, AnObjectTheCacheHoldsAsConfiguredCostsNoCall) {
  ASSERT_OK(client_->Create(Core("serviceaccounts"), Account("a")).status());
  StartCache();
  const int64_t before = Calls();
  ASSERT_OK_AND_ASSIGN(
      WriteResult result,
      ApplyIfDrifted(*client_, *cache_, Core("serviceaccounts"), Account("a"), "mgr"));
  EXPECT_FALSE(result.wrote);
  EXPECT_EQ(Calls(), before);
}

TEST_F(WriteHelpersTest, ADriftedObjectGetsOnlyTheConfigurationAndKeepsOtherFields) {
  nlohmann::json theirs = Account("theirs");
  theirs["metadata"]["labels"]["team"] = "ops";
  ASSERT_OK(client_->Create(Core("serviceaccounts"), theirs).status());
  StartCache();
  ASSERT_OK_AND_ASSIGN(
      WriteResult result,
      ApplyIfDrifted(*client_, *cache_, Core("serviceaccounts"), Account("a"), "mgr"));
  EXPECT_TRUE(result.wrote);
  EXPECT_FALSE(result.created);
  const nlohmann::json live = Live();
  EXPECT_EQ(live["metadata"]["labels"]["tier"], "a");
  EXPECT_EQ(live["metadata"]["labels"]["team"], "ops");
  EXPECT_EQ(cache_->Get("default", "agent")->digest, TierDigest(Account("a")));
}

TEST_F(WriteHelpersTest, AConflictOnTheApplyIsTriedAgain) {
  StartCache();
  ConflictOnApply(1);
  ASSERT_OK_AND_ASSIGN(
      WriteResult result,
      ApplyIfDrifted(*client_, *cache_, Core("serviceaccounts"), Account("a"), "mgr"));
  EXPECT_TRUE(result.wrote);
  EXPECT_EQ(server_->faults().fired(), 1);
  EXPECT_EQ(Calls(), 1);  // the apply that went through
}

TEST_F(WriteHelpersTest, PersistentConflictsAreAborted) {
  StartCache();
  ConflictOnApply(-1);
  absl::StatusOr<WriteResult> result =
      ApplyIfDrifted(*client_, *cache_, Core("serviceaccounts"), Account("a"), "mgr");
  EXPECT_TRUE(absl::IsAborted(result.status())) << result.status();
  EXPECT_EQ(server_->faults().fired(), 3);
}

TEST_F(WriteHelpersTest, AnApplyNeedsAFieldManagerAndANamedObject) {
  StartCache();
  EXPECT_TRUE(absl::IsInvalidArgument(
      ApplyIfDrifted(*client_, *cache_, Core("serviceaccounts"), Account("a"), "").status()));
  nlohmann::json unnamed = Account("a");
  unnamed["metadata"].erase("name");
  EXPECT_TRUE(absl::IsInvalidArgument(
      ApplyIfDrifted(*client_, *cache_, Core("serviceaccounts"), unnamed, "mgr").status()));
  EXPECT_TRUE(absl::IsInvalidArgument(
      CreateOnly(*client_, *cache_, Core("serviceaccounts"), unnamed).status()));
  EXPECT_EQ(Calls(), 0);
}

TEST_F(WriteHelpersTest, CreateOnlyCreatesAnAbsentObjectOnceAndRemembersIt) {
  StartCache();
  ASSERT_OK_AND_ASSIGN(WriteResult first,
                       CreateOnly(*client_, *cache_, Core("serviceaccounts"), Account("a")));
  EXPECT_TRUE(first.wrote);
  EXPECT_TRUE(first.created);
  ASSERT_OK_AND_ASSIGN(WriteResult second,
                       CreateOnly(*client_, *cache_, Core("serviceaccounts"), Account("b")));
  EXPECT_FALSE(second.wrote);
  EXPECT_EQ(Calls(), 1);
  EXPECT_EQ(Live()["metadata"]["labels"]["tier"], "a");  // never updated
}

TEST_F(WriteHelpersTest, CreateOnlyLeavesAnObjectAnotherPartyCreatedAlone) {
  StartCache();
  // Created after the cache's list: the cache may or may not have seen it yet.
  ASSERT_OK(client_->Create(Core("serviceaccounts"), Account("theirs")).status());
  ASSERT_OK_AND_ASSIGN(WriteResult result,
                       CreateOnly(*client_, *cache_, Core("serviceaccounts"), Account("a")));
  EXPECT_FALSE(result.wrote);
  EXPECT_EQ(Live()["metadata"]["labels"]["tier"], "theirs");
}

}  // namespace write_helpers_integration_test
}  // namespace credledger::kubebridge
