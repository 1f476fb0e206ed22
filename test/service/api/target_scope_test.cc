// TargetScope: which Targets a scope holds (docs/api.md, "Target scopes").
#include "service/api/target_scope.h"

#include <gtest/gtest.h>

namespace credledger::service {
namespace {

TEST(TargetScopeTest, UnrestrictedHoldsEveryTarget) {
  const TargetScope scope = TargetScope::Unrestricted();
  EXPECT_TRUE(scope.unrestricted());
  EXPECT_TRUE(scope.Contains("demo", "edge-a"));
  EXPECT_EQ(scope.Describe(), "every Target");
}

TEST(TargetScopeTest, ExactTargetAndNamespacePatterns) {
  const TargetScope scope = TargetScope::Of({"demo/edge-a", "staging/*"});
  EXPECT_FALSE(scope.unrestricted());
  EXPECT_TRUE(scope.Contains("demo", "edge-a"));
  EXPECT_FALSE(scope.Contains("demo", "edge-b"));
  EXPECT_FALSE(scope.Contains("demo", "edge-ab"));
  EXPECT_TRUE(scope.Contains("staging", "anything"));
  EXPECT_FALSE(scope.Contains("staging-2", "anything"));
  EXPECT_EQ(scope.Describe(), "demo/edge-a, staging/*");
}

TEST(TargetScopeTest, PatternsThatAreNotTargetsMatchNothing) {
  // What a substituted identity suffix may turn into: more slashes, upper case, empty parts,
  // a wildcard namespace.
  const TargetScope scope =
      TargetScope::Of({"demo/edge-a/x", "Demo/edge-a", "/edge-a", "demo/", "*/*", ""});
  EXPECT_FALSE(scope.Contains("demo", "edge-a"));
  EXPECT_FALSE(scope.Contains("x", "y"));
  EXPECT_EQ(scope.Describe(), "no Target");
}

TEST(TargetScopeTest, EmptyScopeHoldsNothing) {
  const TargetScope scope = TargetScope::Of({});
  EXPECT_FALSE(scope.unrestricted());
  EXPECT_FALSE(scope.Contains("demo", "edge-a"));
}

TEST(TargetScopeTest, IsTargetPattern) {
  EXPECT_TRUE(IsTargetPattern("demo/edge-a"));
  EXPECT_TRUE(IsTargetPattern("demo/*"));
  EXPECT_FALSE(IsTargetPattern("*/edge-a"));
  EXPECT_FALSE(IsTargetPattern("demo"));
  EXPECT_FALSE(IsTargetPattern("demo/edge_a"));
}

}  // namespace
}  // namespace credledger::service
