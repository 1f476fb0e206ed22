// VerifyHelmRepository and VerifyOciRegistry against real local HTTPS servers with a private
// CA (docs/connections.md, "Sources" and "TLS").
#include "kubebridge/sources/http_source_check.h"

#include <memory>
#include <string>
#include <vector>

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "kubebridge/model/connection_errors.h"
#include "test/kubebridge/local_https_server.h"
#include "test/support/status_matchers.h"

namespace credledger::kubebridge {
namespace http_source_check_test {

using ::credledger::testing::StatusIs;
using ::testing::AllOf;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::Not;

constexpr char kUser[] = "chart-reader";
constexpr char kPassword[] = "pw-Hq83-secret";
constexpr char kToken[] = "bearer-Zk41-secret";

// Two charts, three versions; chart URLs relative or on the repository's own host.
std::string SameHostIndex(int port) {
  return absl::StrCat(R"(apiVersion: v1
entries:
  podinfo:
  - name: podinfo
    version: 6.5.0
    urls:
    - podinfo-6.5.0.tgz
  - name: podinfo
    version: 6.4.0
    urls:
    - charts/podinfo-6.4.0.tgz
  redis:
  - name: redis
    version: 1.0.0
    urls:
    - https://127.0.0.1:)",
                      port, R"(/redis-1.0.0.tgz
generated: "2024-01-01T00:00:00Z"
)");
}

// Chart URLs on three other hosts (one twice, one scheme-relative, one on another port of
// the repository's address) besides a relative one.
constexpr char kOtherHostIndex[] = R"(apiVersion: v1
entries:
  app:
  - name: app
    version: 1.0.0
    urls:
    - https://CDN.example.com/app-1.0.0.tgz
    - https://cdn.example.com:443/mirror/app-1.0.0.tgz
  - name: app
    version: 0.9.0
    urls:
    - //mirror.example/app-0.9.0.tgz
    - app-0.9.0.tgz
  tool:
  - name: tool
    version: 2.0.0
    urls:
    - https://127.0.0.1:8443/tool-2.0.0.tgz
)";

HttpSourceCredentials Basic(const std::string& user, const std::string& password) {
  HttpSourceCredentials c;
  c.kind = HttpSourceCredentials::Kind::kBasic;
  c.username = user;
  c.password = password;
  return c;
}

HttpSourceCredentials Bearer(const std::string& token) {
  HttpSourceCredentials c;
  c.kind = HttpSourceCredentials::Kind::kBearer;
  c.token = token;
  return c;
}

// The header value a client sends for basic auth (RFC 7617), computed here independently.
std::string BasicHeader(const std::string& user, const std::string& password) {
  return "Basic " + absl::Base64Escape(user + ":" + password);
}

class HttpSourceCheckTest : public ::testing::Test {
 protected:
  void SetUp() override {
    server_ = LocalHttpsServer::Start();
    ASSERT_NE(server_, nullptr);
    options_.ca_pem = server_->ca_pem();
    options_.timeout = absl::Seconds(20);
  }

  std::vector<std::string> Paths() const {
    std::vector<std::string> paths;
    for (const LocalHttpsServer::Seen& seen : server_->requests()) paths.push_back(seen.path);
    return paths;
  }

  absl::StatusOr<HttpSourceCheck> Helm(const std::string& path,
                                       const HttpSourceCredentials& credentials = {}) {
    return VerifyHelmRepository(server_->url() + path, credentials, options_);
  }

  absl::StatusOr<HttpSourceCheck> Oci(const HttpSourceCredentials& credentials = {}) {
    return VerifyOciRegistry(absl::StrCat("oci://127.0.0.1:", server_->port(), "/team/app"),
                             credentials, options_);
  }

  std::unique_ptr<LocalHttpsServer> server_;
  HttpSourceOptions options_;
};

TEST_F(HttpSourceCheckTest, HelmValidIndexPassesAndCountsCharts) {
  server_->Respond("/charts/index.yaml", 200, SameHostIndex(server_->port()));
  ASSERT_OK_AND_ASSIGN(HttpSourceCheck check, Helm("/charts", Basic(kUser, kPassword)));
  EXPECT_EQ(check.message, "index.yaml lists 2 charts (3 versions)");
  EXPECT_THAT(check.notes, IsEmpty());
  EXPECT_THAT(Paths(), ElementsAre("/charts/index.yaml"));
}

TEST_F(HttpSourceCheckTest, HelmTrailingSlashIsNotDoubled) {
  server_->Respond("/index.yaml", 200, "apiVersion: v1\nentries: {}\n");
  ASSERT_OK_AND_ASSIGN(HttpSourceCheck check, Helm("/"));
  EXPECT_EQ(check.message, "index.yaml lists 0 charts (0 versions)");
  ASSERT_EQ(server_->requests().size(), 1u);
  EXPECT_EQ(server_->requests()[0].path, "/index.yaml");

  server_->Respond("/charts/index.yaml", 200, "apiVersion: v1\nentries:\n");
  ASSERT_OK(Helm("/charts/"));
  EXPECT_THAT(Paths(), ElementsAre("/index.yaml", "/charts/index.yaml"));
}

TEST_F(HttpSourceCheckTest, ChartUrlsOnOtherHostsAreNotedWhenCredentialsAreSet) {
  server_->Respond("/index.yaml", 200, kOtherHostIndex);
  ASSERT_OK_AND_ASSIGN(HttpSourceCheck check, Helm("", Basic(kUser, kPassword)));
  EXPECT_THAT(check.notes,
              ElementsAre("chart URLs point to 127.0.0.1:8443, which would also receive the "
                          "credentials",
                          "chart URLs point to cdn.example.com, which would also receive the "
                          "credentials",
                          "chart URLs point to mirror.example, which would also receive the "
                          "credentials"));
}

TEST_F(HttpSourceCheckTest, ChartUrlsOnOtherHostsAreNotNotedWithoutCredentials) {
  server_->Respond("/index.yaml", 200, kOtherHostIndex);
  ASSERT_OK_AND_ASSIGN(HttpSourceCheck check, Helm(""));
  EXPECT_EQ(check.message, "index.yaml lists 2 charts (3 versions)");
  EXPECT_THAT(check.notes, IsEmpty());
}

TEST_F(HttpSourceCheckTest, BasicCredentialsReachTheServerAsSent) {
  server_->RequireAuthorization(BasicHeader(kUser, kPassword));
  server_->Respond("/index.yaml", 200, "apiVersion: v1\nentries: {}\n");
  ASSERT_OK(Helm("", Basic(kUser, kPassword)));
  ASSERT_EQ(server_->requests().size(), 1u);
  EXPECT_EQ(server_->requests()[0].authorization, BasicHeader(kUser, kPassword));
}

TEST_F(HttpSourceCheckTest, BearerTokenReachesTheServerAsSent) {
  server_->RequireAuthorization(absl::StrCat("Bearer ", kToken));
  server_->Respond("/index.yaml", 200, "apiVersion: v1\nentries: {}\n");
  ASSERT_OK(Helm("", Bearer(kToken)));
  server_->Respond("/v2/", 200, "{}");
  ASSERT_OK_AND_ASSIGN(HttpSourceCheck check, Oci(Bearer(kToken)));
  EXPECT_EQ(check.message, "registry answered 200");
}

TEST_F(HttpSourceCheckTest, RefusedCredentialsAreUnauthenticatedAndNeverEchoed) {
  server_->RequireAuthorization(BasicHeader(kUser, "the-right-one"));
  server_->Respond("/index.yaml", 200, "apiVersion: v1\nentries: {}\n");
  absl::Status refused = Helm("", Basic(kUser, kPassword)).status();
  EXPECT_THAT(refused, StatusIs(absl::StatusCode::kUnauthenticated,
                                HasSubstr("HTTP 401 (the server refused the credentials)")));
  EXPECT_THAT(std::string(refused.message()), Not(HasSubstr(kPassword)));
  EXPECT_THAT(std::string(refused.message()), Not(HasSubstr(kUser)));
  EXPECT_THAT(Helm("").status(), StatusIs(absl::StatusCode::kUnauthenticated,
                                          HasSubstr("(the server requires credentials)")));
}

TEST_F(HttpSourceCheckTest, HelmErrorStatusesMapToCodes) {
  server_->Respond("/forbidden/index.yaml", 403);
  server_->Respond("/broken/index.yaml", 500);
  server_->Respond("/busy/index.yaml", 429);
  server_->Respond("/moved/index.yaml", 302);
  std::string base = server_->url();
  EXPECT_THAT(Helm("/missing").status(),
              StatusIs(absl::StatusCode::kNotFound,
                       absl::StrCat("helm repository \"", base, "/missing\": GET ", base,
                                    "/missing/index.yaml: HTTP 404")));
  EXPECT_THAT(Helm("/forbidden").status(), StatusIs(absl::StatusCode::kPermissionDenied));
  EXPECT_THAT(Helm("/broken").status(),
              StatusIs(absl::StatusCode::kUnavailable, HasSubstr("HTTP 500")));
  EXPECT_THAT(Helm("/busy").status(), StatusIs(absl::StatusCode::kUnavailable));
  EXPECT_THAT(Helm("/moved").status(),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("HTTP 302 (redirects are not followed)")));
}

TEST_F(HttpSourceCheckTest, InvalidIndexIsInvalidArgument) {
  server_->Respond("/yaml/index.yaml", 200, "apiVersion: v1\nentries: [unclosed\n");
  server_->Respond("/other/index.yaml", 200, "hello: world\n");
  server_->Respond("/list/index.yaml", 200, "- apiVersion\n- entries\n");
  server_->Respond("/shape/index.yaml", 200, "apiVersion: v1\nentries:\n  app: 3\n");
  server_->Respond("/deep/index.yaml", 200,
                   "apiVersion: v1\nentries: " + std::string(600, '[') + std::string(600, ']'));
  EXPECT_THAT(Helm("/yaml").status(),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("index.yaml: not valid YAML at line 3")));
  EXPECT_THAT(Helm("/other").status(),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("not a Helm repository index (a mapping with apiVersion and "
                                 "entries)")));
  EXPECT_THAT(Helm("/list").status(), StatusIs(absl::StatusCode::kInvalidArgument));
  EXPECT_THAT(Helm("/shape").status(),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("entries.\"app\" is not a list of chart versions")));
  EXPECT_THAT(Helm("/deep").status(),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("index.yaml: nested deeper than the limit of 499 levels")));
}

TEST_F(HttpSourceCheckTest, IndexLargerThanTheLimitIsRefused) {
  options_.max_index_bytes = 1024;
  server_->Respond("/index.yaml", 200,
                   "apiVersion: v1\nentries: {}\n# " + std::string(4096, 'x') + "\n");
  EXPECT_THAT(Helm("").status(),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("larger than 1024 bytes")));
}

TEST_F(HttpSourceCheckTest, PrivateCaIsTrustedOnlyWhenGiven) {
  server_->Respond("/index.yaml", 200, "apiVersion: v1\nentries: {}\n");
  server_->Respond("/v2/", 200, "{}");
  options_.ca_pem.clear();
  EXPECT_THAT(Helm("").status(), StatusIs(absl::StatusCode::kFailedPrecondition));
  EXPECT_THAT(Oci().status(), StatusIs(absl::StatusCode::kFailedPrecondition));

  std::unique_ptr<LocalHttpsServer> other = LocalHttpsServer::Start();
  ASSERT_NE(other, nullptr);
  options_.ca_pem = other->ca_pem();
  EXPECT_THAT(Helm("").status(), StatusIs(absl::StatusCode::kFailedPrecondition));

  options_.ca_pem.clear();
  options_.insecure_skip_tls_verify = true;
  EXPECT_OK(Helm(""));
  EXPECT_OK(Oci());
  EXPECT_THAT(Paths(), ElementsAre("/index.yaml", "/v2/"));
}

TEST_F(HttpSourceCheckTest, UnsupportedSchemesAreUnsupported) {
  for (const std::string& url :
       {absl::StrCat("http://127.0.0.1:", server_->port(), "/charts"),
        absl::StrCat("oci://127.0.0.1:", server_->port(), "/charts"), std::string("charts")}) {
    absl::Status status = VerifyHelmRepository(url, {}, options_).status();
    EXPECT_TRUE(IsUnsupported(status)) << url << ": " << status;
  }
  absl::Status oci =
      VerifyOciRegistry(absl::StrCat("http://127.0.0.1:", server_->port()), {}, options_)
          .status();
  EXPECT_TRUE(IsUnsupported(oci)) << oci;
  EXPECT_THAT(server_->requests(), IsEmpty());
}

TEST(HttpSourceUrlTest, TheUrlChecksDecideWithoutARequest) {
  for (const char* url : {"http://charts.example/x", "oci://charts.example/x", "charts",
                          "https://charts.example/x?y", "https://:443/x",
                          "https://charts.example:0/x"}) {
    EXPECT_TRUE(IsUnsupported(CheckHelmRepositoryUrl(url))) << url;
  }
  EXPECT_OK(CheckHelmRepositoryUrl("https://charts.example/stable/"));
  for (const char* url : {"http://registry.example", "git://registry.example/app",
                          "oci://registry.example:99999/app"}) {
    EXPECT_TRUE(IsUnsupported(CheckOciRegistryUrl(url))) << url;
  }
  EXPECT_OK(CheckOciRegistryUrl("oci://registry.example/team/app"));
  EXPECT_OK(CheckOciRegistryUrl("https://registry.example"));
}

// The URL in messages is the one libcurl writes back without its userinfo: a bare host gets
// "/" as its path, and the scheme is lowercased.
TEST(HttpSourceUrlTest, MessagesNameTheUrlAsLibcurlWritesIt) {
  EXPECT_THAT(CheckOciRegistryUrl("HTTP://robot@corp@registry.example"),
              StatusIs(absl::StatusCode::kFailedPrecondition,
                       "oci registry \"http://registry.example/\": only oci:// and https:// URLs "
                       "are supported"));
}

// A URL libcurl cannot read is named without what precedes its last '@'.
TEST(HttpSourceUrlTest, AMalformedUrlIsUnsupportedWithoutEchoingTheUserinfo) {
  const absl::Status status = CheckHelmRepositoryUrl("https://robot:pw-Kq71@charts.example:0/x");
  EXPECT_TRUE(IsUnsupported(status)) << status;
  EXPECT_THAT(status.message(),
              AllOf(HasSubstr("URL \"...@charts.example:0/x\" has an invalid port"),
                    Not(HasSubstr("pw-Kq71")), Not(HasSubstr("robot"))));
}

// Looser than refusing every '#': libcurl drops an empty fragment, which is never sent.
TEST(HttpSourceUrlTest, AnEmptyFragmentIsDropped) {
  EXPECT_OK(CheckHelmRepositoryUrl("https://charts.example/stable#"));
  EXPECT_TRUE(IsUnsupported(CheckHelmRepositoryUrl("https://charts.example/stable#x")));
}

TEST_F(HttpSourceCheckTest, UserinfoIsNeverSentNorEchoed) {
  std::string url = absl::StrCat("https://someone:userinfo-pw@127.0.0.1:", server_->port(), "/x");
  absl::Status status = VerifyHelmRepository(url, {}, options_).status();
  EXPECT_THAT(status, StatusIs(absl::StatusCode::kNotFound,
                               HasSubstr(absl::StrCat("\"https://127.0.0.1:", server_->port()))));
  EXPECT_THAT(std::string(status.message()), Not(HasSubstr("userinfo-pw")));
  EXPECT_THAT(std::string(status.message()), Not(HasSubstr("someone")));
  ASSERT_EQ(server_->requests().size(), 1u);
  EXPECT_EQ(server_->requests()[0].authorization, "");
}

TEST_F(HttpSourceCheckTest, BearerTokenWithALineBreakIsRefusedBeforeSending) {
  EXPECT_THAT(Helm("", Bearer("abc\r\nX-Injected: 1")).status(),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("control character")));
  EXPECT_THAT(server_->requests(), IsEmpty());
}

// A URL that can never work is Unsupported (no retry), not a retryable failure.
TEST_F(HttpSourceCheckTest, UnusableUrlsAreUnsupported) {
  const absl::Status port = VerifyHelmRepository("https://127.0.0.1:99999/x", {}, options_).status();
  EXPECT_TRUE(IsUnsupported(port)) << port;
  EXPECT_THAT(port.message(), HasSubstr("invalid port"));
  const absl::Status host = VerifyOciRegistry("oci://:5000/x", {}, options_).status();
  EXPECT_TRUE(IsUnsupported(host)) << host;
  EXPECT_THAT(host.message(), HasSubstr("has no host"));
  const absl::Status query =
      VerifyHelmRepository(server_->url() + "/charts?x=1#f", {}, options_).status();
  EXPECT_TRUE(IsUnsupported(query)) << query;
  EXPECT_THAT(query.message(), HasSubstr("no query or fragment"));
  EXPECT_THAT(server_->requests(), IsEmpty());
}

TEST_F(HttpSourceCheckTest, ClosedPortIsUnavailable) {
  // Port 1 on loopback: nothing listens there (a privileged port no test server binds).
  EXPECT_THAT(VerifyOciRegistry("oci://127.0.0.1:1/app", {}, options_).status(),
              StatusIs(absl::StatusCode::kUnavailable, HasSubstr("GET https://127.0.0.1:1/v2/")));
}

TEST_F(HttpSourceCheckTest, CancelledCheckIsCancelled) {
  server_->Respond("/index.yaml", 200, "apiVersion: v1\nentries: {}\n");
  Cancellation cancel;
  cancel.Cancel();
  EXPECT_THAT(VerifyHelmRepository(server_->url(), {}, options_, &cancel).status(),
              StatusIs(absl::StatusCode::kCancelled));
}

TEST_F(HttpSourceCheckTest, OciRegistryAnswering200Passes) {
  server_->Respond("/v2/", 200, "{}");
  ASSERT_OK_AND_ASSIGN(HttpSourceCheck check, Oci());
  EXPECT_EQ(check.message, "registry answered 200");
  EXPECT_THAT(check.notes, IsEmpty());
  EXPECT_THAT(Paths(), ElementsAre("/v2/"));
  ASSERT_OK(VerifyOciRegistry(server_->url() + "/team/app", {}, options_));
  EXPECT_THAT(Paths(), ElementsAre("/v2/", "/v2/"));
  // With credentials, a 200 did not check them either (docs/connections.md, "Sources": the
  // credentials are only checked at the first pull).
  ASSERT_OK_AND_ASSIGN(HttpSourceCheck with_credentials, Oci(Basic(kUser, kPassword)));
  EXPECT_THAT(with_credentials.notes,
              ElementsAre("the credentials are only checked at the first pull"));
}

TEST_F(HttpSourceCheckTest, OciRegistryAnswering401PassesWithANote) {
  server_->RequireAuthorization(BasicHeader(kUser, "the-right-one"));
  ASSERT_OK_AND_ASSIGN(HttpSourceCheck check, Oci(Basic(kUser, kPassword)));
  EXPECT_EQ(check.message, "registry answered 401");
  EXPECT_THAT(check.notes, ElementsAre("the credentials are only checked at the first pull"));
  ASSERT_EQ(server_->requests().size(), 1u);
  EXPECT_EQ(server_->requests()[0].authorization, BasicHeader(kUser, kPassword));
}

TEST_F(HttpSourceCheckTest, OciErrorStatusesMapToCodes) {
  std::string what = absl::StrCat("GET https://127.0.0.1:", server_->port(), "/v2/: HTTP ");
  EXPECT_THAT(Oci().status(), StatusIs(absl::StatusCode::kNotFound, HasSubstr(what + "404")));
  server_->Respond("/v2/", 500);
  EXPECT_THAT(Oci().status(), StatusIs(absl::StatusCode::kUnavailable, HasSubstr(what + "500")));
  server_->Respond("/v2/", 403);
  EXPECT_THAT(Oci().status(),
              StatusIs(absl::StatusCode::kPermissionDenied, HasSubstr(what + "403")));
}

}  // namespace http_source_check_test
}  // namespace credledger::kubebridge
