#include "kubebridge/client/resource_ref.h"

#include "gtest/gtest.h"
#include "test/support/status_matchers.h"

namespace credledger::kubebridge {
namespace resource_ref_test {

TEST(ResourceRefTest, CoreNamespacedPaths) {
  ResourceRef ref{.version = "v1", .resource = "secrets", .namespace_name = "a", .name = "x"};
  ASSERT_OK_AND_ASSIGN(std::string collection, CollectionPath(ref));
  ASSERT_OK_AND_ASSIGN(std::string object, ObjectPath(ref));
  EXPECT_EQ(collection, "/api/v1/namespaces/a/secrets");
  EXPECT_EQ(object, "/api/v1/namespaces/a/secrets/x");
}

TEST(ResourceRefTest, GroupClusterScopedAndSubresourcePaths) {
  ResourceRef role{.group = "rbac.authorization.k8s.io",
                   .version = "v1",
                   .resource = "clusterroles",
                   .name = "system:reader"};
  ASSERT_OK_AND_ASSIGN(std::string object, ObjectPath(role));
  EXPECT_EQ(object, "/apis/rbac.authorization.k8s.io/v1/clusterroles/system:reader");
  ResourceRef sa{
      .version = "v1", .resource = "serviceaccounts", .namespace_name = "n", .name = "agent"};
  ASSERT_OK_AND_ASSIGN(std::string token, SubresourcePath(sa, "token"));
  EXPECT_EQ(token, "/api/v1/namespaces/n/serviceaccounts/agent/token");
}

TEST(ResourceRefTest, InvalidSegmentsAreRejected) {
  ResourceRef ref{.version = "v1", .resource = "secrets", .namespace_name = "a", .name = "../x"};
  EXPECT_EQ(ObjectPath(ref).status().message(),
            "resource reference: name \"../x\" is not a valid path segment");
  ref.name = "..";
  EXPECT_FALSE(ObjectPath(ref).ok());
  ref.name = "";
  EXPECT_FALSE(ObjectPath(ref).ok());
  ResourceRef no_version{.resource = "secrets"};
  EXPECT_FALSE(CollectionPath(no_version).ok());
}

TEST(ResourceRefTest, OddCharactersArePercentEncoded) {
  ResourceRef ref{
      .version = "v1", .resource = "configmaps", .namespace_name = "a", .name = "x?y#z w"};
  ASSERT_OK_AND_ASSIGN(std::string object, ObjectPath(ref));
  EXPECT_EQ(object, "/api/v1/namespaces/a/configmaps/x%3Fy%23z%20w");
}

TEST(ResourceRefTest, QueryEncodesValuesAndSkipsEmptyOnes) {
  EXPECT_EQ(
      BuildQuery({{"labelSelector", "app=x,tier in (a,b)"}, {"continue", ""}, {"limit", "5"}}),
      "?labelSelector=app%3Dx%2Ctier%20in%20%28a%2Cb%29&limit=5");
  EXPECT_EQ(BuildQuery({{"a", ""}}), "");
}

TEST(ResourceRefTest, DebugStringNamesKindAndObject) {
  ResourceRef ref{.group = "apps",
                  .version = "v1",
                  .resource = "deployments",
                  .namespace_name = "n",
                  .name = "d"};
  EXPECT_EQ(ref.DebugString(), "deployments.apps n/d");
}

}  // namespace resource_ref_test
}  // namespace credledger::kubebridge
