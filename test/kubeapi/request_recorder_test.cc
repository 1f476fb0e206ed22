// Tests of the request recorder: every authenticated request is counted per user by verb,
// group, resource (with subresource) or path, and the status answered, refusals included;
// requests answered before authentication are not.
#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "test/kubeapi/request_recorder.h"
#include "test/kubeapi/test_support.h"

namespace credledger::kubeapi {

bool operator==(const RequestCount& a, const RequestCount& b) {
  return a.verb == b.verb && a.group == b.group && a.resource == b.resource && a.path == b.path &&
         a.code == b.code && a.count == b.count && a.check == b.check;
}

void PrintTo(const RequestCount& c, std::ostream* os) {
  *os << "{" << c.verb << " " << c.group << "/" << c.resource << c.path << " " << c.code << " x"
      << c.count << (c.check ? " check" : "") << "}";
}

namespace testing {
namespace request_recorder_test {

using ::testing::ElementsAre;
using ::testing::IsEmpty;

const char kReader[] = "system:serviceaccount:team-a:reader";

class RequestRecorderTest : public ApiServerTest {
 protected:
  void SetUp() override {
    ApiServerTest::SetUp();
    CreateNamespace("team-a");
    CreateServiceAccount("team-a", "reader");
    CreateSecret("team-a", "db-password");
    CreateObject("/apis/rbac.authorization.k8s.io/v1/namespaces/team-a/roles",
                 {{"apiVersion", "rbac.authorization.k8s.io/v1"},
                  {"kind", "Role"},
                  {"metadata", {{"name", "secret-reader"}}},
                  {"rules", nlohmann::json::array({{{"apiGroups", {""}},
                                                    {"resources", {"secrets"}},
                                                    {"verbs", {"get"}}}})}});
    CreateObject("/apis/rbac.authorization.k8s.io/v1/namespaces/team-a/rolebindings",
                 {{"apiVersion", "rbac.authorization.k8s.io/v1"},
                  {"kind", "RoleBinding"},
                  {"metadata", {{"name", "reader"}}},
                  {"roleRef", {{"apiGroup", "rbac.authorization.k8s.io"},
                               {"kind", "Role"},
                               {"name", "secret-reader"}}},
                  {"subjects", nlohmann::json::array({{{"kind", "ServiceAccount"},
                                                       {"name", "reader"},
                                                       {"namespace", "team-a"}}})}});
    reader_ = IssueToken("team-a", "reader");
  }
  std::string reader_;
};

TEST_F(RequestRecorderTest, CountsEachUsersRequestsByVerbResourceAndStatus) {
  Client reader = As(reader_);
  EXPECT_EQ(reader.Get("/api/v1/namespaces/team-a/secrets/db-password").status, 200);
  EXPECT_EQ(reader.Get("/api/v1/namespaces/team-a/secrets/db-password").status, 200);
  EXPECT_EQ(reader.Get("/api/v1/namespaces/team-a/secrets/missing").status, 404);
  EXPECT_EQ(reader.Get("/api/v1/namespaces/team-a/secrets").status, 403);
  EXPECT_EQ(reader.Post("/api/v1/namespaces/team-a/serviceaccounts/reader/token",
                        {{"apiVersion", "authentication.k8s.io/v1"}, {"kind", "TokenRequest"},
                         {"spec", nlohmann::json::object()}})
                .status,
            403);
  EXPECT_EQ(reader.Get("/apis").status, 200);

  EXPECT_THAT(server_->requests().CountsOf(kReader),
              ElementsAre(RequestCount{"get", "", "", "/apis", 200, 1, false},
                          RequestCount{"get", "", "secrets", "", 200, 2, false},
                          RequestCount{"get", "", "secrets", "", 404, 1, false},
                          RequestCount{"list", "", "secrets", "", 403, 1, false},
                          RequestCount{"create", "", "serviceaccounts/token", "", 403, 1, false}));
}

TEST_F(RequestRecorderTest, RequestsAnsweredBeforeAuthenticationAreNotRecorded) {
  Fault fault;
  fault.path_prefix = "/api/v1/namespaces/team-a/secrets";
  fault.status_code = 500;
  fault.times = 1;
  server_->faults().Add(fault);
  EXPECT_EQ(As(reader_).Get("/api/v1/namespaces/team-a/secrets/db-password").status, 500);
  EXPECT_EQ(As(reader_).Get("/version").status, 200);
  EXPECT_EQ(As("not-a-token").Get("/api/v1/namespaces/team-a/secrets").status, 401);
  EXPECT_THAT(server_->requests().CountsOf(kReader), IsEmpty());
  EXPECT_THAT(server_->requests().CountsOf(""), IsEmpty());
}

TEST_F(RequestRecorderTest, UsersAreCountedApart) {
  EXPECT_EQ(Admin().Get("/api/v1/namespaces/team-a/secrets").status, 200);
  EXPECT_EQ(As(reader_).Get("/api/v1/namespaces/team-a/secrets").status, 403);
  EXPECT_THAT(server_->requests().CountsOf(kReader),
              ElementsAre(RequestCount{"list", "", "secrets", "", 403, 1, false}));
  const std::vector<RequestCount> admin = server_->requests().CountsOf("kubernetes-admin");
  EXPECT_THAT(admin, ::testing::Contains(RequestCount{"list", "", "secrets", "", 200, 1, false}));
}

// An apply that creates its object is one patch request; the create right it needed is
// counted apart, as a check.
TEST_F(RequestRecorderTest, AnApplyThatCreatesCountsAsAPatchAndACreateCheck) {
  Reply applied = Admin().Send(
      "PATCH", "/api/v1/namespaces/team-a/configmaps/settings?fieldManager=m",
      R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"settings"}})",
      "application/apply-patch+yaml");
  ASSERT_EQ(applied.status, 201) << applied.raw;
  std::vector<RequestCount> configmaps;
  for (const RequestCount& c : server_->requests().CountsOf("kubernetes-admin")) {
    if (c.resource == "configmaps") configmaps.push_back(c);
  }
  EXPECT_THAT(configmaps, ElementsAre(RequestCount{"create", "", "configmaps", "", 201, 1, true},
                                      RequestCount{"patch", "", "configmaps", "", 201, 1, false}));
}

}  // namespace request_recorder_test
}  // namespace testing
}  // namespace credledger::kubeapi
