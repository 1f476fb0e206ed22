// AuthorizationPolicy: parsing the policy file and deciding calls (docs/api.md,
// "Caller identity" and "Authorization").
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

TEST(AuthorizationPolicyTest, NamedCallerGetsExactlyItsEntry) {
  absl::StatusOr<AuthorizationPolicy> policy = AuthorizationPolicy::Parse(kPolicy);
  ASSERT_TRUE(policy.ok()) << policy.status();
  EXPECT_TRUE(policy->restrictive());
  EXPECT_TRUE(policy->Authorize("platform-controller", "ReportService", "PushReport").ok());
  EXPECT_TRUE(policy->Authorize("platform-controller", "TargetService", "Revoke").ok());
  // Its own entry replaces the "*" entry rather than adding to it.
  EXPECT_THAT(policy->Authorize("platform-controller", "ReportService", "GetTargetStatus"),
              StatusIs(absl::StatusCode::kPermissionDenied));
}

TEST(AuthorizationPolicyTest, OtherCallersGetTheWildcardEntry) {
  absl::StatusOr<AuthorizationPolicy> policy = AuthorizationPolicy::Parse(kPolicy);
  ASSERT_TRUE(policy.ok()) << policy.status();
  EXPECT_TRUE(policy->Authorize("alice", "TargetService", "GetTarget").ok());
  EXPECT_THAT(policy->Authorize("alice", "ReportService", "PushReport"),
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
  EXPECT_THAT(policy->Authorize("anonymous", "TargetService", "GetTarget"),
              StatusIs(absl::StatusCode::kPermissionDenied));
  EXPECT_TRUE(policy->SubjectOf("anonymous").user.empty());
}

TEST(AuthorizationPolicyTest, SubjectOfNamedCaller) {
  absl::StatusOr<AuthorizationPolicy> policy = AuthorizationPolicy::Parse(kPolicy);
  ASSERT_TRUE(policy.ok()) << policy.status();
  AuthorizationPolicy::KubernetesSubject subject = policy->SubjectOf("platform-controller");
  EXPECT_EQ(subject.user, "system:serviceaccount:solar-system:solar-controller-manager");
  EXPECT_THAT(subject.groups, ::testing::ElementsAre("solar-operators", "auditors"));
}

TEST(AuthorizationPolicyTest, AllowAllAllowsEverything) {
  AuthorizationPolicy policy = AuthorizationPolicy::AllowAll();
  EXPECT_FALSE(policy.restrictive());
  EXPECT_TRUE(policy.Authorize("anyone", "ReportService", "PushReport").ok());
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
        BadPolicy{"identities:\n  - name: a\n  - name: a", "identities[1].name: \"a\" is listed twice"},
        BadPolicy{"identities:\n  - name: a\n    kubernetes: {groups: [x]}",
                  "identities[0].kubernetes.user: must be a non-empty string"}));

}  // namespace authorization_policy_test
}  // namespace credledger::service
