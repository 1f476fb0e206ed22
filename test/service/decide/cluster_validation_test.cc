// The URL rule of cluster specs (ValidateHttpsUrl: agentless.server and execPlugin.url) as
// libcurl reads URLs; where libcurl is stricter than the hand-written split it replaced, the
// test says so.
#include "service/decide/cluster_validation.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "test/support/status_matchers.h"

namespace credledger::service {
namespace cluster_validation_test {

using ::credledger::testing::StatusIs;
using ::testing::AllOf;
using ::testing::HasSubstr;
using ::testing::Not;

constexpr char kField[] = "spec.agentless.server";

TEST(ValidateHttpsUrlTest, HttpsUrlsWithAHostAreAccepted) {
  for (const char* url : {"https://edge-1.example:6443", "HTTPS://edge-1.example/k8s/",
                          "https://10.0.0.1", "https://[2001:db8::1]:6443"}) {
    SCOPED_TRACE(url);
    EXPECT_OK(ValidateHttpsUrl(kField, url));
  }
}

TEST(ValidateHttpsUrlTest, OtherSchemesAndTextsWithoutOneAreNotHttpsUrls) {
  for (const char* url : {"http://edge-1.example", "edge-1.example:6443", "ftp://edge-1.example"}) {
    EXPECT_THAT(
        ValidateHttpsUrl(kField, url),
        StatusIs(absl::StatusCode::kInvalidArgument, AllOf(HasSubstr("spec.agentless.server: \""),
                                                           HasSubstr("\" is not an https:// URL"))))
        << url;
  }
}

TEST(ValidateHttpsUrlTest, UserinfoIsRefusedWithoutQuotingIt) {
  for (const char* url : {"https://admin:pw-Kq71@edge-1.example", "https://pw-Kq71@edge-1.example",
                          "https://:pw-Kq71@edge-1.example", "https://a@pw-Kq71@edge-1.example"}) {
    EXPECT_THAT(ValidateHttpsUrl(kField, url),
                StatusIs(absl::StatusCode::kInvalidArgument,
                         AllOf(HasSubstr("must not contain userinfo"), Not(HasSubstr("pw-Kq71")))))
        << url;
  }
  // Without a scheme there is no URL to find a userinfo in; the quote stops at the last '@'.
  EXPECT_THAT(ValidateHttpsUrl(kField, "admin:pw-Kq71@edge-1.example:6443"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       AllOf(HasSubstr("\"...@edge-1.example:6443\" is not an https:// URL"),
                             Not(HasSubstr("pw-Kq71")))));
}

TEST(ValidateHttpsUrlTest, AMissingHostIsRefused) {
  for (const char* url : {"https://", "https://:6443", "https://:6443/k8s"}) {
    EXPECT_THAT(ValidateHttpsUrl(kField, url),
                StatusIs(absl::StatusCode::kInvalidArgument, "spec.agentless.server: has no host"))
        << url;
  }
}

// Looser than the hand-written split, which wanted "https://" and found no host in
// "https:///k8s": libcurl, like browsers, reads 1 to 3 slashes after the scheme, so both are
// https://k8s/ (and the connection goes there).
TEST(ValidateHttpsUrlTest, OneToThreeSlashesAfterTheSchemeAreReadAsLibcurlReadsThem) {
  EXPECT_OK(ValidateHttpsUrl(kField, "https:///k8s"));
  EXPECT_OK(ValidateHttpsUrl(kField, "https:/k8s"));
}

// Stricter than the hand-written split, which checked no port and no host characters: a URL
// libcurl cannot read is refused, unquoted (where its userinfo ends is unknown).
TEST(ValidateHttpsUrlTest, PortsOutsideOneTo65535AndMalformedHostsAreRefused) {
  for (const char* url : {"https://edge-1.example:0", "https://edge-1.example:99999",
                          "https://edge-1.example:6443x"}) {
    EXPECT_THAT(ValidateHttpsUrl(kField, url),
                StatusIs(absl::StatusCode::kInvalidArgument,
                         "spec.agentless.server: has an invalid port (a port is a number "
                         "1-65535)"))
        << url;
  }
  EXPECT_THAT(ValidateHttpsUrl(kField, "https://edge!1.example"),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("has no valid host")));
  EXPECT_THAT(ValidateHttpsUrl(kField, "https://[edge-1]:6443"),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("no IPv6 address")));
}

}  // namespace cluster_validation_test
}  // namespace credledger::service
