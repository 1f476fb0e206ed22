// Contract tests: RBAC for service-account tokens and client certificates (Roles,
// RoleBindings, ClusterRoles, ClusterRoleBindings; verbs, apiGroups, resources with
// subresources, resourceNames, wildcards) and kube-apiserver's 403 message format.
#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "test/kubeapi/test_support.h"
#include "test/support/status_matchers.h"

namespace credledger::kubeapi::testing {
namespace rbac_test {

const char kRbac[] = "/apis/rbac.authorization.k8s.io/v1";

nlohmann::json Rule(std::vector<std::string> groups, std::vector<std::string> resources,
                    std::vector<std::string> verbs, std::vector<std::string> names = {}) {
  nlohmann::json rule = {{"apiGroups", groups}, {"resources", resources}, {"verbs", verbs}};
  if (!names.empty()) rule["resourceNames"] = names;
  return rule;
}

class RbacTest : public ApiServerTest {
 protected:
  void SetUp() override {
    ApiServerTest::SetUp();
    CreateNamespace("team-a");
    CreateServiceAccount("team-a", "reader");
    CreateServiceAccount("team-a", "agent");
    CreateSecret("team-a", "db-password");
    reader_ = IssueToken("team-a", "reader");
    agent_ = IssueToken("team-a", "agent");
  }
  void Role(const std::string& name, const nlohmann::json& rules) {
    CreateObject(absl::StrCat(kRbac, "/namespaces/team-a/roles"),
                 {{"apiVersion", "rbac.authorization.k8s.io/v1"}, {"kind", "Role"},
                  {"metadata", {{"name", name}}}, {"rules", rules}});
  }
  void Bind(const std::string& name, const std::string& role_kind, const std::string& role,
            const std::string& sa) {
    CreateObject(absl::StrCat(kRbac, "/namespaces/team-a/rolebindings"),
                 {{"apiVersion", "rbac.authorization.k8s.io/v1"}, {"kind", "RoleBinding"},
                  {"metadata", {{"name", name}}},
                  {"roleRef", {{"apiGroup", "rbac.authorization.k8s.io"}, {"kind", role_kind}, {"name", role}}},
                  {"subjects", nlohmann::json::array(
                                   {{{"kind", "ServiceAccount"}, {"name", sa}, {"namespace", "team-a"}}})}});
  }
  std::string reader_;
  std::string agent_;
};

TEST_F(RbacTest, ServiceAccountWithoutBindingsIsForbidden) {
  Reply reply = As(reader_).Get("/api/v1/namespaces/team-a/secrets/db-password");
  EXPECT_EQ(reply.status, 403);
  EXPECT_TRUE(MatchesFixture(reply.body, "status_403_get_secret.json"));
  Reply list = As(reader_).Get("/api/v1/namespaces");
  EXPECT_EQ(list.status, 403);
  EXPECT_TRUE(MatchesFixture(list.body, "status_403_list_namespaces.json"));
}

TEST_F(RbacTest, RoleBindingGrantsTheRoleInItsNamespaceOnly) {
  Role("secret-reader", nlohmann::json::array({Rule({""}, {"secrets"}, {"get", "list"})}));
  Bind("reader", "Role", "secret-reader", "reader");
  EXPECT_EQ(As(reader_).Get("/api/v1/namespaces/team-a/secrets/db-password").status, 200);
  EXPECT_EQ(As(reader_).Get("/api/v1/namespaces/team-a/secrets").status, 200);
  EXPECT_EQ(As(reader_).Get("/api/v1/namespaces/default/secrets").status, 403);
  EXPECT_EQ(As(reader_).Delete("/api/v1/namespaces/team-a/secrets/db-password").status, 403);
  EXPECT_EQ(As(agent_).Get("/api/v1/namespaces/team-a/secrets/db-password").status, 403);
}

TEST_F(RbacTest, ResourceNamesAllowOnlyTheNamedObjects) {
  CreateObject("/apis/solar.opendefense.cloud/v1alpha1/namespaces/team-a/targetreports",
               {{"apiVersion", "solar.opendefense.cloud/v1alpha1"}, {"kind", "TargetReport"},
                {"metadata", {{"name", "cluster-a"}}}, {"spec", nlohmann::json::object()}});
  Role("agent", nlohmann::json::array(
                    {Rule({"solar.opendefense.cloud"}, {"targetreports"}, {"get", "update"}, {"cluster-a"})}));
  Bind("agent", "Role", "agent", "agent");
  const std::string reports = "/apis/solar.opendefense.cloud/v1alpha1/namespaces/team-a/targetreports";
  Reply own = As(agent_).Get(reports + "/cluster-a");
  ASSERT_EQ(own.status, 200);
  EXPECT_EQ(As(agent_).Put(reports + "/cluster-a", own.body).status, 200);
  nlohmann::json other = own.body;
  other["metadata"] = {{"name", "cluster-b"}};
  Reply denied = As(agent_).Put(reports + "/cluster-b", other);
  EXPECT_EQ(denied.status, 403);
  EXPECT_TRUE(MatchesFixture(denied.body, "status_403_update_targetreport.json"));
  EXPECT_EQ(As(agent_).Get(reports).status, 403) << "resourceNames never grant an unfiltered list";
  EXPECT_EQ(As(agent_).Post(reports, other).status, 403) << "resourceNames never grant create";
}

TEST_F(RbacTest, SubresourcesNeedTheirOwnRule) {
  Role("sa-reader", nlohmann::json::array({Rule({""}, {"serviceaccounts"}, {"get", "create"})}));
  Bind("reader", "Role", "sa-reader", "reader");
  const std::string token = "/api/v1/namespaces/team-a/serviceaccounts/agent/token";
  nlohmann::json request = {{"apiVersion", "authentication.k8s.io/v1"}, {"kind", "TokenRequest"},
                            {"spec", nlohmann::json::object()}};
  Reply denied = As(reader_).Post(token, request);
  EXPECT_EQ(denied.status, 403);
  EXPECT_TRUE(MatchesFixture(denied.body, "status_403_create_token.json"));
  Role("token-minter", nlohmann::json::array({Rule({""}, {"serviceaccounts/token"}, {"create"}, {"agent"})}));
  Bind("minter", "Role", "token-minter", "reader");
  EXPECT_EQ(As(reader_).Post(token, request).status, 201);
}

TEST_F(RbacTest, ClusterRoleBindingGrantsEverywhereWithWildcards) {
  CreateObject(absl::StrCat(kRbac, "/clusterroles"),
               {{"apiVersion", "rbac.authorization.k8s.io/v1"}, {"kind", "ClusterRole"},
                {"metadata", {{"name", "read-all"}}},
                {"rules", nlohmann::json::array({Rule({"*"}, {"*"}, {"get", "list", "watch"})})}});
  CreateObject(absl::StrCat(kRbac, "/clusterrolebindings"),
               {{"apiVersion", "rbac.authorization.k8s.io/v1"}, {"kind", "ClusterRoleBinding"},
                {"metadata", {{"name", "read-all"}}},
                {"roleRef", {{"apiGroup", "rbac.authorization.k8s.io"}, {"kind", "ClusterRole"}, {"name", "read-all"}}},
                {"subjects", nlohmann::json::array({{{"kind", "Group"}, {"name", "system:serviceaccounts:team-a"}}})}});
  EXPECT_EQ(As(reader_).Get("/api/v1/namespaces").status, 200);
  EXPECT_EQ(As(agent_).Get("/api/v1/namespaces/default/configmaps").status, 200);
  EXPECT_EQ(As(agent_).Delete("/api/v1/namespaces/team-a/secrets/db-password").status, 403);
}

TEST_F(RbacTest, RoleBindingToClusterRoleAppliesInTheBindingNamespace) {
  CreateObject(absl::StrCat(kRbac, "/clusterroles"),
               {{"apiVersion", "rbac.authorization.k8s.io/v1"}, {"kind", "ClusterRole"},
                {"metadata", {{"name", "secret-admin"}}},
                {"rules", nlohmann::json::array({Rule({""}, {"secrets"}, {"*"})})}});
  Bind("admin", "ClusterRole", "secret-admin", "reader");
  EXPECT_EQ(As(reader_).Delete("/api/v1/namespaces/team-a/secrets/db-password").status, 200);
  EXPECT_EQ(As(reader_).Get("/api/v1/namespaces/default/secrets").status, 403);
}

TEST_F(RbacTest, AuthenticatedUsersMayReadDiscovery) {
  EXPECT_EQ(As(reader_).Get("/api").status, 200);
  EXPECT_EQ(As(reader_).Get("/apis/solar.opendefense.cloud/v1alpha1").status, 200);
  EXPECT_EQ(As("").Get("/api").status, 401);
  EXPECT_EQ(As("").Get("/version").status, 200);
}

TEST_F(RbacTest, SubjectAccessReviewEvaluatesTheSameRules) {
  Role("secret-reader", nlohmann::json::array({Rule({""}, {"secrets"}, {"get"}, {"db-password"})}));
  Bind("reader", "Role", "secret-reader", "reader");
  auto review = [&](const std::string& name) {
    Reply reply = Admin().Post(
        "/apis/authorization.k8s.io/v1/subjectaccessreviews",
        {{"apiVersion", "authorization.k8s.io/v1"}, {"kind", "SubjectAccessReview"},
         {"spec", {{"user", "system:serviceaccount:team-a:reader"},
                   {"resourceAttributes", {{"namespace", "team-a"}, {"verb", "get"},
                                           {"resource", "secrets"}, {"name", name}}}}}});
    EXPECT_EQ(reply.status, 201) << reply.raw;
    return reply.body["status"]["allowed"].get<bool>();
  };
  EXPECT_TRUE(review("db-password"));
  EXPECT_FALSE(review("other"));
}

TEST_F(RbacTest, ClientCertificateAuthenticatesAsCommonNameInItsOrganizations) {
  ClientCertificate alice;
  ASSERT_OK_AND_ASSIGN(alice, server_->IssueClientCertificate("alice", {"team-a-readers", "ops"}));
  ClientCertificate bob;
  ASSERT_OK_AND_ASSIGN(bob, server_->IssueClientCertificate("bob"));
  const std::string secret = "/api/v1/namespaces/team-a/secrets/db-password";
  Reply denied = Client(*server_, alice).Get(secret);
  EXPECT_EQ(denied.status, 403);
  EXPECT_EQ(denied.body["message"],
            "secrets \"db-password\" is forbidden: User \"alice\" cannot get resource "
            "\"secrets\" in API group \"\" in the namespace \"team-a\"");
  Role("secret-reader", nlohmann::json::array({Rule({""}, {"secrets"}, {"get"})}));
  CreateObject(absl::StrCat(kRbac, "/namespaces/team-a/rolebindings"),
               {{"apiVersion", "rbac.authorization.k8s.io/v1"}, {"kind", "RoleBinding"},
                {"metadata", {{"name", "readers"}}},
                {"roleRef", {{"apiGroup", "rbac.authorization.k8s.io"}, {"kind", "Role"},
                             {"name", "secret-reader"}}},
                {"subjects",
                 nlohmann::json::array({{{"kind", "Group"}, {"name", "team-a-readers"}}})}});
  EXPECT_EQ(Client(*server_, alice).Get(secret).status, 200);
  EXPECT_EQ(Client(*server_, bob).Get(secret).status, 403) << "bob is not in team-a-readers";
  EXPECT_EQ(Client(*server_, bob).Get("/api").status, 200) << "system:authenticated may discover";
}

TEST_F(RbacTest, ClientCertificateFromAnotherCaIsUnauthorized) {
  // A CA the server does not trust issues a certificate claiming system:masters.
  ASSERT_OK_AND_ASSIGN(TlsMaterial other, GenerateTlsMaterial({"localhost"}, {"127.0.0.1"}));
  ClientCertificate forged;
  ASSERT_OK_AND_ASSIGN(forged, IssueClientCertificate(other.client_ca_cert.get(),
                                                      other.client_ca_key.get(), "mallory",
                                                      {"system:masters"}));
  Reply reply = Client(*server_, forged).Get("/api/v1/namespaces");
  EXPECT_EQ(reply.status, 401);
  EXPECT_EQ(reply.body["reason"], "Unauthorized");
}

}  // namespace rbac_test
}  // namespace credledger::kubeapi::testing
