#include "kubebridge/client/write_helpers.h"

#include <memory>

#include "gtest/gtest.h"
#include "test/kubebridge/fake_transport.h"
#include "test/support/status_matchers.h"

namespace credledger::kubebridge {
namespace write_helpers_test {

const ResourceRef kAccounts{.version = "v1", .resource = "serviceaccounts", .namespace_name = "n"};

nlohmann::json Account(const std::string& label, const std::string& resource_version = "") {
  nlohmann::json object = {{"apiVersion", "v1"},
                           {"kind", "ServiceAccount"},
                           {"metadata", {{"name", "agent"}, {"labels", {{"tier", label}}}}}};
  if (!resource_version.empty()) object["metadata"]["resourceVersion"] = resource_version;
  return object;
}

bool SameLabels(const nlohmann::json& live, const nlohmann::json& desired) {
  return live["metadata"]["labels"] == desired["metadata"]["labels"];
}

class WriteHelpersTest : public ::testing::Test {
 protected:
  std::vector<std::string> Methods() {
    std::vector<std::string> methods;
    for (const HttpRequest& r : transport_->requests()) methods.push_back(r.method);
    return methods;
  }

  StepClock clock_;
  FakeClient fake_ = MakeFakeClient(&clock_);
  FakeTransport* transport_ = fake_.transport;
  std::unique_ptr<KubeClient>& client_ = fake_.client;
};

TEST_F(WriteHelpersTest, ApplyIfDriftedCreatesAnAbsentObjectByApplying) {
  transport_->Push(FakeReply::Status(404, "NotFound", "not found"));
  transport_->Push(FakeReply::Json(201, Account("a", "1")));
  ASSERT_OK_AND_ASSIGN(WriteResult result,
                       ApplyIfDrifted(*client_, kAccounts, Account("a"), SameLabels, "mgr"));
  EXPECT_TRUE(result.wrote);
  EXPECT_TRUE(result.created);
  EXPECT_EQ(Methods(), (std::vector<std::string>{"GET", "PATCH"}));
  EXPECT_EQ(transport_->requests()[0].path, "/api/v1/namespaces/n/serviceaccounts/agent");
  const HttpRequest apply = transport_->requests()[1];
  EXPECT_EQ(apply.path, "/api/v1/namespaces/n/serviceaccounts/agent?fieldManager=mgr&force=true");
  EXPECT_EQ(apply.content_type, "application/apply-patch+yaml");
  EXPECT_EQ(nlohmann::json::parse(apply.body), Account("a"));
}

TEST_F(WriteHelpersTest, ApplyIfDriftedMakesNoWriteWhenTheLiveObjectMatches) {
  transport_->Push(FakeReply::Json(200, Account("a", "5")));
  ASSERT_OK_AND_ASSIGN(WriteResult result,
                       ApplyIfDrifted(*client_, kAccounts, Account("a"), SameLabels, "mgr"));
  EXPECT_FALSE(result.wrote);
  EXPECT_EQ(result.object["metadata"]["resourceVersion"], "5");
  EXPECT_EQ(Methods(), std::vector<std::string>{"GET"});
}

TEST_F(WriteHelpersTest, ApplyIfDriftedSendsOnlyTheConfigurationWhenDrifted) {
  nlohmann::json live = Account("old", "5");
  live["imagePullSecrets"] = {{{"name", "theirs"}}};
  transport_->Push(FakeReply::Json(200, live));
  transport_->Push(FakeReply::Json(200, Account("new", "6")));
  ASSERT_OK_AND_ASSIGN(WriteResult result,
                       ApplyIfDrifted(*client_, kAccounts, Account("new"), SameLabels, "mgr"));
  EXPECT_TRUE(result.wrote);
  EXPECT_FALSE(result.created);
  EXPECT_EQ(Methods(), (std::vector<std::string>{"GET", "PATCH"}));
  // No resourceVersion and nothing of the live object: only the manager's fields.
  EXPECT_EQ(nlohmann::json::parse(transport_->requests()[1].body), Account("new"));
}

TEST_F(WriteHelpersTest, ApplyIfDriftedRereadsAfterAConflict) {
  transport_->Push(FakeReply::Json(200, Account("old", "5")));
  transport_->Push(FakeReply::Status(409, "Conflict", "the object has been modified"));
  transport_->Push(FakeReply::Json(200, Account("old", "8")));
  transport_->Push(FakeReply::Json(200, Account("new", "9")));
  ASSERT_OK_AND_ASSIGN(WriteResult result,
                       ApplyIfDrifted(*client_, kAccounts, Account("new"), SameLabels, "mgr"));
  EXPECT_TRUE(result.wrote);
  EXPECT_EQ(Methods(), (std::vector<std::string>{"GET", "PATCH", "GET", "PATCH"}));
}

TEST_F(WriteHelpersTest, ApplyIfDriftedGivesUpWhenConflictsPersist) {
  for (int i = 0; i < 3; ++i) {
    transport_->Push(FakeReply::Json(200, Account("old", "5")));
    transport_->Push(FakeReply::Status(409, "Conflict", "modified"));
  }
  absl::StatusOr<WriteResult> result =
      ApplyIfDrifted(*client_, kAccounts, Account("new"), SameLabels, "mgr");
  EXPECT_EQ(result.status().code(), absl::StatusCode::kAborted);
}

TEST_F(WriteHelpersTest, ApplyIfDriftedPassesOtherErrorsThrough) {
  transport_->Push(FakeReply::Status(403, "Forbidden", "no"));
  EXPECT_EQ(ApplyIfDrifted(*client_, kAccounts, Account("a"), SameLabels, "mgr").status().code(),
            absl::StatusCode::kPermissionDenied);
}

TEST_F(WriteHelpersTest, ApplyIfDriftedNeedsAFieldManager) {
  transport_->Push(FakeReply::Status(404, "NotFound", "not found"));
  EXPECT_EQ(ApplyIfDrifted(*client_, kAccounts, Account("a"), SameLabels, "").status().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(Methods(), std::vector<std::string>{"GET"});
}

TEST_F(WriteHelpersTest, CreateOnlyCreatesAnAbsentObject) {
  transport_->Push(FakeReply::Status(404, "NotFound", "not found"));
  transport_->Push(FakeReply::Json(201, Account("a", "1")));
  ASSERT_OK_AND_ASSIGN(WriteResult result, CreateOnly(*client_, kAccounts, Account("a")));
  EXPECT_TRUE(result.wrote);
  EXPECT_TRUE(result.created);
  EXPECT_EQ(Methods(), (std::vector<std::string>{"GET", "POST"}));
}

TEST_F(WriteHelpersTest, CreateOnlyReadsAnExistingObjectWithoutWriting) {
  transport_->Push(FakeReply::Json(200, Account("theirs", "4")));
  ASSERT_OK_AND_ASSIGN(WriteResult result, CreateOnly(*client_, kAccounts, Account("mine")));
  EXPECT_FALSE(result.wrote);
  EXPECT_EQ(result.object["metadata"]["labels"]["tier"], "theirs");
  EXPECT_EQ(Methods(), std::vector<std::string>{"GET"});
}

TEST_F(WriteHelpersTest, CreateOnlyReadsBackAnObjectCreatedBetweenItsReadAndPost) {
  transport_->Push(FakeReply::Status(404, "NotFound", "not found"));
  transport_->Push(FakeReply::Status(409, "AlreadyExists", "exists"));
  transport_->Push(FakeReply::Json(200, Account("theirs", "4")));
  ASSERT_OK_AND_ASSIGN(WriteResult result, CreateOnly(*client_, kAccounts, Account("mine")));
  EXPECT_FALSE(result.wrote);
  EXPECT_EQ(result.object["metadata"]["labels"]["tier"], "theirs");
  EXPECT_EQ(Methods(), (std::vector<std::string>{"GET", "POST", "GET"}));
}

TEST_F(WriteHelpersTest, CreateOnlyIsAbortedWhenTheObjectVanishesAfterAlreadyExists) {
  transport_->Push(FakeReply::Status(404, "NotFound", "not found"));
  transport_->Push(FakeReply::Status(409, "AlreadyExists", "exists"));
  transport_->Push(FakeReply::Status(404, "NotFound", "not found"));
  EXPECT_EQ(CreateOnly(*client_, kAccounts, Account("mine")).status().code(),
            absl::StatusCode::kAborted);
}

TEST_F(WriteHelpersTest, ObjectWithoutNameIsRejected) {
  nlohmann::json nameless = {{"kind", "ServiceAccount"}};
  EXPECT_EQ(CreateOnly(*client_, kAccounts, nameless).status().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_TRUE(transport_->requests().empty());
}

}  // namespace write_helpers_test
}  // namespace credledger::kubebridge
