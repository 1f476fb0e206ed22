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

TEST_F(WriteHelpersTest, CreateOrUpdateCreatesAnAbsentObject) {
  transport_->Push(FakeReply::Status(404, "NotFound", "not found"));
  transport_->Push(FakeReply::Json(201, Account("a", "1")));
  ASSERT_OK_AND_ASSIGN(WriteResult result,
                       CreateOrUpdate(*client_, kAccounts, Account("a"), SameLabels));
  EXPECT_TRUE(result.wrote);
  EXPECT_EQ(Methods(), (std::vector<std::string>{"GET", "POST"}));
  EXPECT_EQ(transport_->requests()[0].path, "/api/v1/namespaces/n/serviceaccounts/agent");
}

TEST_F(WriteHelpersTest, CreateOrUpdateMakesNoWriteWhenTheLiveObjectMatches) {
  transport_->Push(FakeReply::Json(200, Account("a", "5")));
  ASSERT_OK_AND_ASSIGN(WriteResult result,
                       CreateOrUpdate(*client_, kAccounts, Account("a"), SameLabels));
  EXPECT_FALSE(result.wrote);
  EXPECT_EQ(result.object["metadata"]["resourceVersion"], "5");
  EXPECT_EQ(Methods(), std::vector<std::string>{"GET"});
}

TEST_F(WriteHelpersTest, CreateOrUpdatePutsWithTheLiveResourceVersionWhenDifferent) {
  transport_->Push(FakeReply::Json(200, Account("old", "5")));
  transport_->Push(FakeReply::Json(200, Account("new", "6")));
  ASSERT_OK_AND_ASSIGN(WriteResult result,
                       CreateOrUpdate(*client_, kAccounts, Account("new"), SameLabels));
  EXPECT_TRUE(result.wrote);
  EXPECT_EQ(Methods(), (std::vector<std::string>{"GET", "PUT"}));
  nlohmann::json put = nlohmann::json::parse(transport_->requests()[1].body);
  EXPECT_EQ(put["metadata"]["resourceVersion"], "5");
  EXPECT_EQ(put["metadata"]["labels"]["tier"], "new");
}

TEST_F(WriteHelpersTest, CreateOrUpdateRereadsAfterAConflict) {
  transport_->Push(FakeReply::Json(200, Account("old", "5")));
  transport_->Push(FakeReply::Status(409, "Conflict", "the object has been modified"));
  transport_->Push(FakeReply::Json(200, Account("old", "8")));
  transport_->Push(FakeReply::Json(200, Account("new", "9")));
  ASSERT_OK_AND_ASSIGN(WriteResult result,
                       CreateOrUpdate(*client_, kAccounts, Account("new"), SameLabels));
  EXPECT_TRUE(result.wrote);
  EXPECT_EQ(Methods(), (std::vector<std::string>{"GET", "PUT", "GET", "PUT"}));
  EXPECT_EQ(nlohmann::json::parse(transport_->requests()[3].body)["metadata"]["resourceVersion"],
            "8");
}

TEST_F(WriteHelpersTest, CreateOrUpdateGivesUpWhenConflictsPersist) {
  for (int i = 0; i < 3; ++i) {
    transport_->Push(FakeReply::Json(200, Account("old", "5")));
    transport_->Push(FakeReply::Status(409, "Conflict", "modified"));
  }
  absl::StatusOr<WriteResult> result =
      CreateOrUpdate(*client_, kAccounts, Account("new"), SameLabels);
  EXPECT_EQ(result.status().code(), absl::StatusCode::kAborted);
}

TEST_F(WriteHelpersTest, CreateOrUpdatePassesOtherErrorsThrough) {
  transport_->Push(FakeReply::Status(403, "Forbidden", "no"));
  EXPECT_EQ(CreateOrUpdate(*client_, kAccounts, Account("a"), SameLabels).status().code(),
            absl::StatusCode::kPermissionDenied);
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
