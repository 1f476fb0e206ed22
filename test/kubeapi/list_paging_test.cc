// Contract tests: lists in pages (`limit` and `continue`), as kube-apiserver serves them:
// every page at the first page's resourceVersion, a continue token until the last page,
// remainingItemCount without selectors, 410 Expired once the token's snapshot is gone, 400
// for a malformed limit or token.
#include <set>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "test/kubeapi/list_pages.h"
#include "test/kubeapi/server_context.h"
#include "test/kubeapi/test_support.h"

namespace credledger::kubeapi::testing {
namespace list_paging_test {

const char kSecrets[] = "/api/v1/namespaces/team-a/secrets";

std::vector<std::string> Names(const nlohmann::json& list) {
  std::vector<std::string> names;
  for (const auto& item : list["items"]) names.push_back(item["metadata"]["name"]);
  return names;
}

std::string ContinueOf(const nlohmann::json& list) {
  return list["metadata"].value("continue", "");
}

class ListPagingTest : public ApiServerTest {
 protected:
  void SetUp() override {
    ApiServerTest::SetUp();
    CreateNamespace("team-a");
    for (int i = 0; i < 5; ++i) {
      CreateSecret("team-a", absl::StrCat("s-", i), {{"app", i % 2 == 0 ? "even" : "odd"}});
    }
  }
};

TEST_F(ListPagingTest, PagesCoverTheListOnceAtTheFirstPagesResourceVersion) {
  Reply first = Admin().Get(absl::StrCat(kSecrets, "?limit=2"));
  ASSERT_EQ(first.status, 200) << first.raw;
  EXPECT_EQ(Names(first.body), (std::vector<std::string>{"s-0", "s-1"}));
  EXPECT_EQ(first.body["metadata"]["remainingItemCount"], 3);
  const std::string version = first.body["metadata"]["resourceVersion"];
  // Changes after the first page do not show in later pages.
  CreateSecret("team-a", "s-5");
  ASSERT_EQ(Admin().Delete(absl::StrCat(kSecrets, "/s-3")).status, 200);

  Reply second = Admin().Get(absl::StrCat(kSecrets, "?limit=2&continue=", ContinueOf(first.body)));
  ASSERT_EQ(second.status, 200) << second.raw;
  EXPECT_EQ(Names(second.body), (std::vector<std::string>{"s-2", "s-3"}));
  EXPECT_EQ(second.body["metadata"]["resourceVersion"], version);
  Reply last = Admin().Get(absl::StrCat(kSecrets, "?limit=2&continue=", ContinueOf(second.body)));
  ASSERT_EQ(last.status, 200) << last.raw;
  EXPECT_EQ(Names(last.body), (std::vector<std::string>{"s-4"}));
  EXPECT_EQ(ContinueOf(last.body), "");
  EXPECT_FALSE(last.body["metadata"].contains("remainingItemCount"));
  // The last page closed the snapshot.
  EXPECT_EQ(
      Admin().Get(absl::StrCat(kSecrets, "?limit=2&continue=", ContinueOf(second.body))).status,
      410);
}

TEST_F(ListPagingTest, SelectorsApplyBeforePagingAndHideTheRemainingCount) {
  Reply first = Admin().Get(absl::StrCat(kSecrets, "?labelSelector=app%3Deven&limit=2"));
  ASSERT_EQ(first.status, 200) << first.raw;
  EXPECT_EQ(Names(first.body), (std::vector<std::string>{"s-0", "s-2"}));
  EXPECT_FALSE(first.body["metadata"].contains("remainingItemCount"));
  Reply rest = Admin().Get(absl::StrCat(
      kSecrets, "?labelSelector=app%3Deven&limit=2&continue=", ContinueOf(first.body)));
  ASSERT_EQ(rest.status, 200) << rest.raw;
  EXPECT_EQ(Names(rest.body), (std::vector<std::string>{"s-4"}));
}

TEST_F(ListPagingTest, AContinueWithoutLimitServesTheRest) {
  Reply first = Admin().Get(absl::StrCat(kSecrets, "?limit=1"));
  ASSERT_EQ(first.status, 200);
  Reply rest = Admin().Get(absl::StrCat(kSecrets, "?continue=", ContinueOf(first.body)));
  ASSERT_EQ(rest.status, 200) << rest.raw;
  EXPECT_EQ(Names(rest.body), (std::vector<std::string>{"s-1", "s-2", "s-3", "s-4"}));
}

TEST_F(ListPagingTest, ATokenOlderThanItsLifeIsExpired) {
  Reply first = Admin().Get(absl::StrCat(kSecrets, "?limit=2"));
  ASSERT_EQ(first.status, 200);
  clock_.Advance(ApiServerOptions{}.list_continue_ttl);
  Reply next = Admin().Get(absl::StrCat(kSecrets, "?limit=2&continue=", ContinueOf(first.body)));
  EXPECT_EQ(next.status, 410) << next.raw;
  EXPECT_EQ(next.body["reason"], "Expired");
}

TEST_F(ListPagingTest, TheOldestOpenListExpiresWhenTooManyAreOpen) {
  Reply oldest = Admin().Get(absl::StrCat(kSecrets, "?limit=1"));
  Reply newest;
  for (size_t i = 0; i < kMaxOpenListSnapshots; ++i) {
    newest = Admin().Get(absl::StrCat(kSecrets, "?limit=1"));
  }
  EXPECT_EQ(Admin().Get(absl::StrCat(kSecrets, "?continue=", ContinueOf(oldest.body))).status, 410);
  EXPECT_EQ(Admin().Get(absl::StrCat(kSecrets, "?continue=", ContinueOf(newest.body))).status, 200);
}

TEST_F(ListPagingTest, MalformedLimitsAndTokensAreBadRequests) {
  for (const char* query : {"?limit=-1", "?limit=two", "?continue=%21%21", "?continue=eDp5"}) {
    Reply reply = Admin().Get(absl::StrCat(kSecrets, query));
    EXPECT_EQ(reply.status, 400) << query << ": " << reply.raw;
    EXPECT_EQ(reply.body["reason"], "BadRequest") << query;
  }
  // A token of another collection.
  Reply first = Admin().Get(absl::StrCat(kSecrets, "?limit=1"));
  EXPECT_EQ(Admin()
                .Get(absl::StrCat("/api/v1/namespaces/team-a/configmaps?continue=",
                                  ContinueOf(first.body)))
                .status,
            400);
}

}  // namespace list_paging_test
}  // namespace credledger::kubeapi::testing
