// AuthorizationPolicy: parsing the policy file and deciding calls (docs/api.md,
// "Caller identity", "Authorization", "Target scopes" and "Declared names").
#include "service/api/authorization_policy.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "test/support/status_matchers.h"

namespace credledger::service {
namespace authorization_policy_test {

using ::credledger::testing::StatusIs;
using ::testing::HasSubstr;

constexpr char kPolicy[] = R"(
identities:
  - name: platform-controller
    rpcs: ["TargetService/*", "ReportService/PushReport"]
    kubernetes:
      user: system:serviceaccount:solar-system:solar-controller-manager
      groups: [solar-operators, auditors]
  - name: "*"
    rpcs: ["TargetService/GetTarget", "ReportService/GetTargetStatus"]
)";

// The policy of the worked example in docs/api.md, "Authorization".
constexpr char kFleetPolicy[] = R"(
identities:
  - name: spiffe://corp/agent/*
    rpcs: ["ReportService/PushReport", "TargetService/GetTarget"]
    targets: ["{identity-suffix}"]
  - name: spiffe://corp/agent/lab/*
    rpcs: ["ReportService/*"]
    targets: ["lab/*"]
  - name: spiffe://corp/ns/platform/sa/controller
    rpcs: ["TargetService/*", "ReportService/*"]
    targets: ["demo/*", "staging/*"]
  - name: oncall
    rpcs: ["TargetService/*", "AuditService/*"]
    allow_declared: true
  - name: "*"
    rpcs: ["TargetService/GetTarget", "TargetService/ListTargets"]
    targets: ["{identity-suffix}", "public/*"]
)";

AuthorizationPolicy Fleet() {
  absl::StatusOr<AuthorizationPolicy> policy = AuthorizationPolicy::Parse(kFleetPolicy);
  EXPECT_TRUE(policy.ok()) << policy.status();
  return policy.ok() ? *std::move(policy) : AuthorizationPolicy::DenyAll();
}

TEST(AuthorizationPolicyTest, NamedCallerGetsExactlyItsEntry) {
  absl::StatusOr<AuthorizationPolicy> policy = AuthorizationPolicy::Parse(kPolicy);
  ASSERT_TRUE(policy.ok()) << policy.status();
  EXPECT_TRUE(policy->restrictive());
  EXPECT_TRUE(policy->Authorize("platform-controller", false, "ReportService", "PushReport").ok());
  EXPECT_TRUE(policy->Authorize("platform-controller", false, "TargetService", "Revoke").ok());
  // Its own entry replaces the "*" entry rather than adding to it.
  EXPECT_THAT(policy->Authorize("platform-controller", false, "ReportService", "GetTargetStatus"),
              StatusIs(absl::StatusCode::kPermissionDenied));
}

TEST(AuthorizationPolicyTest, OtherCallersGetTheWildcardEntry) {
  absl::StatusOr<AuthorizationPolicy> policy = AuthorizationPolicy::Parse(kPolicy);
  ASSERT_TRUE(policy.ok()) << policy.status();
  EXPECT_TRUE(policy->Authorize("alice", false, "TargetService", "GetTarget").ok());
  EXPECT_THAT(policy->Authorize("alice", false, "ReportService", "PushReport"),
              StatusIs(absl::StatusCode::kPermissionDenied,
                       HasSubstr("caller \"alice\" may not call ReportService/PushReport")));
}

TEST(AuthorizationPolicyTest, WithoutWildcardUnknownCallersAreDenied) {
  absl::StatusOr<AuthorizationPolicy> policy = AuthorizationPolicy::Parse(R"(
identities:
  - name: ops
    rpcs: ["TargetService/*"]
)");
  ASSERT_TRUE(policy.ok()) << policy.status();
  EXPECT_THAT(policy->Authorize("anonymous", false, "TargetService", "GetTarget"),
              StatusIs(absl::StatusCode::kPermissionDenied));
  EXPECT_EQ(policy->SubjectOf("anonymous"), std::nullopt);
}

TEST(AuthorizationPolicyTest, SubjectOfNamedCaller) {
  absl::StatusOr<AuthorizationPolicy> policy = AuthorizationPolicy::Parse(kPolicy);
  ASSERT_TRUE(policy.ok()) << policy.status();
  std::optional<AuthorizationPolicy::KubernetesSubject> subject =
      policy->SubjectOf("platform-controller");
  ASSERT_TRUE(subject.has_value());
  EXPECT_EQ(subject->user, "system:serviceaccount:solar-system:solar-controller-manager");
  EXPECT_THAT(subject->groups, ::testing::ElementsAre("solar-operators", "auditors"));
}

TEST(AuthorizationPolicyTest, AllowAllAllowsEverythingOnEveryTarget) {
  AuthorizationPolicy policy = AuthorizationPolicy::AllowAll();
  EXPECT_FALSE(policy.restrictive());
  absl::StatusOr<TargetScope> scope =
      policy.Authorize("anyone", true, "ReportService", "PushReport");
  ASSERT_TRUE(scope.ok()) << scope.status();
  EXPECT_TRUE(scope->unrestricted());
  // Insecure by the operator's choice: a declared name is its own Kubernetes user.
  ASSERT_TRUE(policy.SubjectOf("declared:alice").has_value());
  EXPECT_EQ(policy.SubjectOf("declared:alice")->user, "alice");
}

TEST(AuthorizationPolicyTest, DenyAllRefusesEveryCallAndNamesTheMissingPolicy) {
  AuthorizationPolicy policy = AuthorizationPolicy::DenyAll();
  EXPECT_TRUE(policy.restrictive());
  EXPECT_THAT(policy.Authorize("oncall", false, "TargetService", "GetTarget"),
              StatusIs(absl::StatusCode::kPermissionDenied,
                       HasSubstr("runs without --authorization-policy")));
  EXPECT_EQ(policy.SubjectOf("oncall"), std::nullopt);
}

TEST(AuthorizationPolicyTest, IdentitySuffixScopesAnAgentToItsOwnTarget) {
  const AuthorizationPolicy policy = Fleet();
  absl::StatusOr<TargetScope> scope =
      policy.Authorize("spiffe://corp/agent/demo/edge-a", false, "ReportService", "PushReport");
  ASSERT_TRUE(scope.ok()) << scope.status();
  EXPECT_TRUE(scope->Contains("demo", "edge-a"));
  EXPECT_FALSE(scope->Contains("demo", "edge-b"));
  EXPECT_EQ(scope->Describe(), "demo/edge-a");
  // A suffix that is no Target name scopes to nothing rather than to everything.
  scope = policy.Authorize("spiffe://corp/agent/demo", false, "ReportService", "PushReport");
  ASSERT_TRUE(scope.ok()) << scope.status();
  EXPECT_EQ(scope->Describe(), "no Target");
  // Nor does a suffix with a '*' become a namespace pattern.
  scope = policy.Authorize("spiffe://corp/agent/demo/*", false, "ReportService", "PushReport");
  ASSERT_TRUE(scope.ok()) << scope.status();
  EXPECT_EQ(scope->Describe(), "no Target");
  // "anonymous" is no proven name either: under "*" it fills no suffix.
  scope = policy.Authorize("anonymous", false, "TargetService", "ListTargets");
  ASSERT_TRUE(scope.ok()) << scope.status();
  EXPECT_EQ(scope->Describe(), "public/*");
}

TEST(AuthorizationPolicyTest, LongestPrefixWins) {
  const AuthorizationPolicy policy = Fleet();
  absl::StatusOr<TargetScope> scope =
      policy.Authorize("spiffe://corp/agent/lab/x1", false, "ReportService", "SetBoundReleases");
  ASSERT_TRUE(scope.ok()) << scope.status();
  EXPECT_EQ(scope->Describe(), "lab/*");
  // The longer prefix's entry replaces the shorter one's: no GetTarget there.
  EXPECT_THAT(policy.Authorize("spiffe://corp/agent/lab/x1", false, "TargetService", "GetTarget"),
              StatusIs(absl::StatusCode::kPermissionDenied));
}

TEST(AuthorizationPolicyTest, FixedTargetsAndUnscopedEntries) {
  const AuthorizationPolicy policy = Fleet();
  absl::StatusOr<TargetScope> scope =
      policy.Authorize("spiffe://corp/ns/platform/sa/controller", false, "TargetService", "Revoke");
  ASSERT_TRUE(scope.ok()) << scope.status();
  EXPECT_TRUE(scope->Contains("staging", "x"));
  EXPECT_FALSE(scope->Contains("prod", "x"));
  scope = policy.Authorize("oncall", false, "AuditService", "Timeline");
  ASSERT_TRUE(scope.ok()) << scope.status();
  EXPECT_TRUE(scope->unrestricted());
}

TEST(AuthorizationPolicyTest, DeclaredNameMatchesOnlyEntriesThatAllowIt) {
  const AuthorizationPolicy policy = Fleet();
  // "oncall" allows declared names.
  EXPECT_TRUE(policy.Authorize("oncall", true, "TargetService", "Revoke").ok());
  // The controller's and the agents' entries do not: a declared name falls to "*".
  EXPECT_THAT(
      policy.Authorize("spiffe://corp/ns/platform/sa/controller", true, "TargetService", "Revoke"),
      StatusIs(absl::StatusCode::kPermissionDenied));
  EXPECT_THAT(
      policy.Authorize("spiffe://corp/agent/demo/edge-a", true, "ReportService", "PushReport"),
      StatusIs(absl::StatusCode::kPermissionDenied));
  // Under "*" a declared name supplies no identity suffix: only the fixed targets remain.
  absl::StatusOr<TargetScope> scope =
      policy.Authorize("demo/edge-a", true, "TargetService", "GetTarget");
  ASSERT_TRUE(scope.ok()) << scope.status();
  EXPECT_EQ(scope->Describe(), "public/*");
  // An authenticated caller with the same name gets its suffix.
  scope = policy.Authorize("demo/edge-a", false, "TargetService", "GetTarget");
  ASSERT_TRUE(scope.ok()) << scope.status();
  EXPECT_EQ(scope->Describe(), "demo/edge-a, public/*");
}

TEST(AuthorizationPolicyTest, DeclaredNameSuppliesNoKubernetesUser) {
  absl::StatusOr<AuthorizationPolicy> policy = AuthorizationPolicy::Parse(R"(
identities:
  - name: alice
    rpcs: ["IdentityService/*"]
  - name: bob
    rpcs: ["IdentityService/*"]
    allow_declared: true
  - name: "*"
    rpcs: ["IdentityService/*"]
)");
  ASSERT_TRUE(policy.ok()) << policy.status();
  // Authenticated: the identity is the user.
  ASSERT_TRUE(policy->SubjectOf("alice").has_value());
  EXPECT_EQ(policy->SubjectOf("alice")->user, "alice");
  // Declared: only where the policy allows declared names.
  EXPECT_EQ(policy->SubjectOf("declared:alice"), std::nullopt);
  EXPECT_EQ(policy->SubjectOf("declared:system:serviceaccount:kube-system:admin"), std::nullopt);
  ASSERT_TRUE(policy->SubjectOf("declared:bob").has_value());
  EXPECT_EQ(policy->SubjectOf("declared:bob")->user, "bob");
}

TEST(AuthorizationPolicyTest, DeclaredNameGetsTheUserThePolicyNames) {
  absl::StatusOr<AuthorizationPolicy> policy = AuthorizationPolicy::Parse(R"(
identities:
  - name: "*"
    rpcs: ["IdentityService/*"]
    kubernetes: {user: local-developer, groups: [dev]}
)");
  ASSERT_TRUE(policy.ok()) << policy.status();
  ASSERT_TRUE(policy->SubjectOf("declared:alice").has_value());
  EXPECT_EQ(policy->SubjectOf("declared:alice")->user, "local-developer");
}

struct BadPolicy {
  const char* yaml;
  const char* message;
};

class AuthorizationPolicyParseTest : public ::testing::TestWithParam<BadPolicy> {};

TEST_P(AuthorizationPolicyParseTest, RejectsWithPathAndRule) {
  EXPECT_THAT(AuthorizationPolicy::Parse(GetParam().yaml),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr(GetParam().message)));
}

INSTANTIATE_TEST_SUITE_P(
    Table, AuthorizationPolicyParseTest,
    ::testing::Values(
        BadPolicy{"identities: [", "not valid YAML"},
        BadPolicy{"rules: []", "policy.rules: unknown key"},
        BadPolicy{"identities: {}", "identities: must be a list"},
        BadPolicy{"identities:\n  - rpcs: []", "identities[0].name: must be a non-empty string"},
        BadPolicy{"identities:\n  - name: a\n    rpc: []", "identities[0].rpc: unknown key"},
        BadPolicy{"identities:\n  - name: a\n    rpcs: [PushReport]",
                  "identities[0].rpcs[0]: \"PushReport\" is not"},
        BadPolicy{"identities:\n  - name: a\n    rpcs: [NoService/*]",
                  "identities[0].rpcs[0]: \"NoService/*\" is not"},
        BadPolicy{"identities:\n  - name: a\n    rpcs: [ReportService/Push]",
                  "ReportService has no method Push"},
        BadPolicy{"identities:\n  - name: a\n  - name: a",
                  "identities[1].name: \"a\" is listed twice"},
        BadPolicy{"identities:\n  - name: a\n    kubernetes: {groups: [x]}",
                  "identities[0].kubernetes.user: must be a non-empty string"},
        BadPolicy{"identities:\n  - name: a*b\n    rpcs: []",
                  "identities[0].name: \"a*b\": '*' may only end a name"},
        BadPolicy{"identities:\n  - name: a\n    targets: [demo]",
                  "identities[0].targets[0]: \"demo\" is not \"<namespace>/<name>\""},
        BadPolicy{"identities:\n  - name: a\n    targets: [\"*/*\"]",
                  "identities[0].targets[0]: \"*/*\" is not"},
        BadPolicy{"identities:\n  - name: a\n    targets: [\"{identity}\"]",
                  "identities[0].targets[0]: \"{identity}\" is not"},
        BadPolicy{"identities:\n  - name: a\n    targets: [\"{identity-suffix}\"]",
                  "identities[0].targets[0]: {identity-suffix} needs an entry whose name ends"},
        BadPolicy{"identities:\n  - name: a*\n    targets: [\"{identity-suffix}}\"]",
                  "identities[0].targets[0]: \"{identity-suffix}}\" is not"},
        BadPolicy{"identities:\n  - name: a\n    targets: demo/x",
                  "identities[0].targets: must be a list"},
        BadPolicy{"identities:\n  - name: a\n    allow_declared: yes",
                  "identities[0].allow_declared: must be true or false"},
        BadPolicy{"identities:\n  - name: a*\n  - name: a*",
                  "identities[1].name: \"a*\" is listed twice"}));

}  // namespace authorization_policy_test
}  // namespace credledger::service
