// ReviewSecretAccess against the test API server's SubjectAccessReview, which evaluates RBAC
// (docs/mirrors.md, "Access review").
#include "kubebridge/client/access_review.h"
#include "test/support/rbac_objects.h"

#include <string>
#include <vector>

#include "kubebridge/credentials/agent_objects.h"
#include "test/kubebridge/api_server_fixture.h"

namespace credledger::kubebridge {
namespace access_review_test {

using ::credledger::testing::StatusIs;
using ::testing::HasSubstr;

class AccessReviewTest : public ApiServerFixture {
 protected:
  void SetUp() override {
    ApiServerFixture::SetUp();
    ASSERT_OK(client_->Create(
        Core("namespaces", "", ""),
        {{"apiVersion", "v1"}, {"kind", "Namespace"}, {"metadata", {{"name", "ops"}}}}));
    // get on the Secret cloud-src only, for user alice and for group platform.
    ASSERT_OK(client_->Create(RoleResource("ops"),
                              testing::SecretReaderRole("read-cloud-src", "cloud-src")));
    Bind("alice", "User", "alice");
    Bind("platform", "Group", "platform");
  }

  void Bind(const std::string& name, const std::string& kind, const std::string& subject) {
    ASSERT_OK(client_->Create(RoleBindingResource("ops"),
                              testing::RoleBindingTo(name, "read-cloud-src", kind, subject)));
  }

  static v1::AccessReview Review(const std::string& user, std::vector<std::string> groups,
                                 const std::string& secret) {
    v1::AccessReview review;
    review.set_user(user);
    for (std::string& g : groups) review.add_groups(std::move(g));
    review.mutable_secret()->set_namespace_("ops");
    review.mutable_secret()->set_name(secret);
    return review;
  }
};

TEST_F(AccessReviewTest, UserBoundToGetTheSecretIsAllowed) {
  ASSERT_OK_AND_ASSIGN(bool allowed,
                       ReviewSecretAccess(*client_, Review("alice", {}, "cloud-src")));
  EXPECT_TRUE(allowed);
}

TEST_F(AccessReviewTest, SameUserOnAnotherSecretIsDenied) {
  ASSERT_OK_AND_ASSIGN(bool allowed, ReviewSecretAccess(*client_, Review("alice", {}, "other")));
  EXPECT_FALSE(allowed);
}

TEST_F(AccessReviewTest, GroupBindingAllowsAUserThroughItsGroups) {
  ASSERT_OK_AND_ASSIGN(
      bool with_group,
      ReviewSecretAccess(*client_, Review("bob", {"dev", "platform"}, "cloud-src")));
  EXPECT_TRUE(with_group);
  ASSERT_OK_AND_ASSIGN(bool without_group,
                       ReviewSecretAccess(*client_, Review("bob", {"dev"}, "cloud-src")));
  EXPECT_FALSE(without_group);
}

TEST_F(AccessReviewTest, ReviewerThatMayNotCreateReviewsGetsPermissionDenied) {
  ASSERT_OK(client_->Create(
      ServiceAccountResource("ops"),
      {{"apiVersion", "v1"}, {"kind", "ServiceAccount"}, {"metadata", {{"name", "reviewer"}}}}));
  ASSERT_OK_AND_ASSIGN(nlohmann::json token, client_->CreateSubresource(
                                                 ServiceAccountResource("ops", "reviewer"), "token",
                                                 {{"apiVersion", "authentication.k8s.io/v1"},
                                                  {"kind", "TokenRequest"},
                                                  {"spec", {{"expirationSeconds", 3600}}}}));
  ConnectionConfig config = config_;
  config.token = token["status"]["token"].get<std::string>();
  std::unique_ptr<KubeClient> reviewer = NewClient(config, ClientOptions());
  EXPECT_THAT(ReviewSecretAccess(*reviewer, Review("alice", {}, "cloud-src")),
              StatusIs(absl::StatusCode::kPermissionDenied));
}

TEST_F(AccessReviewTest, ReviewWithoutUserAndGroupsOrWithoutSecretIsInvalid) {
  EXPECT_THAT(ReviewSecretAccess(*client_, Review("", {}, "cloud-src")),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("user and groups")));
  // The server would answer this one (denied); the caller's mistake must not look like a
  // denial.
  EXPECT_THAT(ReviewSecretAccess(*client_, Review("alice", {}, "")),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("secret")));
}

}  // namespace access_review_test
}  // namespace credledger::kubebridge
