// URLs and host:port pairs as libcurl reads them, and scp-like Git addresses beside them;
// where curl is stricter or looser than a hand-written split, the test says so.
#include "common/url.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace credledger::common {
namespace url_test {

using ::testing::HasSubstr;
using ::testing::Not;
using ::testing::Optional;

// A text a function refuses, the fault it names and a part of its rule.
struct Refusal {
  const char* text;
  UrlFault fault;
  const char* rule;
};

// Checks that `status`, the answer to `refusal.text`, is that refusal.
void ExpectRefusal(const absl::Status& status, const Refusal& refusal) {
  EXPECT_EQ(UrlFaultOf(status), refusal.fault) << refusal.text << ": " << status;
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument) << refusal.text;
  EXPECT_THAT(status.message(), HasSubstr(refusal.rule)) << refusal.text;
}

TEST(ParseUrlTest, EveryPartIsSplitAsWritten) {
  const absl::StatusOr<Url> url =
      ParseUrl("HTTPS://alice:s3cret@Git.Example:8443/a/../b%20c?x=1#top");
  ASSERT_TRUE(url.ok()) << url.status();
  EXPECT_EQ(url->scheme, "https");
  EXPECT_THAT(url->user, Optional(std::string("alice")));
  EXPECT_THAT(url->password, Optional(std::string("s3cret")));
  EXPECT_EQ(url->host, "Git.Example");
  EXPECT_THAT(url->port, Optional(8443));
  EXPECT_EQ(url->path, "/a/../b%20c");
  EXPECT_THAT(url->query, Optional(std::string("x=1")));
  EXPECT_THAT(url->fragment, Optional(std::string("top")));
  EXPECT_EQ(url->without_password, "https://alice@Git.Example:8443/a/../b%20c?x=1#top");
  EXPECT_EQ(url->without_userinfo, "https://Git.Example:8443/a/../b%20c?x=1#top");
  EXPECT_EQ(url->Authority(), "Git.Example:8443");
}

TEST(ParseUrlTest, AnyUrlWithoutPartsHasNoneOfThem) {
  const absl::StatusOr<Url> url = ParseUrl("oci://registry.example");
  ASSERT_TRUE(url.ok()) << url.status();
  EXPECT_EQ(url->scheme, "oci");
  EXPECT_EQ(url->user, std::nullopt);
  EXPECT_EQ(url->password, std::nullopt);
  EXPECT_EQ(url->port, std::nullopt);
  EXPECT_EQ(url->query, std::nullopt);
  EXPECT_EQ(url->fragment, std::nullopt);
  // curl writes a bare host back with "/" as its path.
  EXPECT_EQ(url->path, "/");
  EXPECT_EQ(url->without_userinfo, "oci://registry.example/");
}

TEST(ParseUrlTest, AnEmptyUserPasswordOrQueryIsStillThere) {
  ASSERT_TRUE(ParseUrl("https://u:@h").ok());
  EXPECT_THAT(ParseUrl("https://u:@h")->password, Optional(std::string("")));
  EXPECT_THAT(ParseUrl("https://:p@h")->user, Optional(std::string("")));
  EXPECT_THAT(ParseUrl("https://@h")->user, Optional(std::string("")));
  EXPECT_THAT(ParseUrl("https://h/x?")->query, Optional(std::string("")));
}

// Looser than a check for '#': curl drops an empty fragment, so "x#" is the URL "x".
TEST(ParseUrlTest, AnEmptyFragmentIsDropped) {
  ASSERT_TRUE(ParseUrl("https://h/x#").ok());
  EXPECT_EQ(ParseUrl("https://h/x#")->fragment, std::nullopt);
}

TEST(ParseUrlTest, AnIpv6HostLosesItsBracketsAndKeepsItsZone) {
  EXPECT_EQ(ParseUrl("https://[::1]:6443/x")->host, "::1");
  EXPECT_EQ(ParseUrl("https://[::1]:6443/x")->Authority(), "[::1]:6443");
  EXPECT_EQ(ParseUrl("https://[fe80::1%25eth0]/")->host, "fe80::1%eth0");
  EXPECT_EQ(ParseUrl("https://[::1]/")->Authority(), "[::1]");
}

TEST(ParseUrlTest, TextsWithoutASchemeAreNoUrls) {
  for (const char* text : {"git@git.example:org/repo.git", "git.example:repo.git", "/srv/r.git",
                           "repo.git", "[::1]:7443", "127.0.0.1:7443", "git@host:a://b"}) {
    const absl::Status status = ParseUrl(text).status();
    EXPECT_EQ(UrlFaultOf(status), UrlFault::kNoScheme) << text << ": " << status;
    EXPECT_FALSE(HasUrlScheme(text)) << text;
  }
  for (const char* text : {"https://h", "oci://h/app", "file:///srv/r.git", "https://:1/"}) {
    EXPECT_TRUE(HasUrlScheme(text)) << text;
  }
}

TEST(ParseUrlTest, EachRefusalNamesItsFaultAndRule) {
  const Refusal refusals[] = {
      {"https://:443/x", UrlFault::kNoHost, "has no host"},
      {"https://", UrlFault::kNoHost, "has no host"},
      {"https://bad!host/", UrlFault::kBadHost, "has no valid host"},
      {"https://[::1/r.git", UrlFault::kBadIpv6, "has no IPv6 address in its brackets"},
      {"https://[localhost]/", UrlFault::kBadIpv6, "has no IPv6 address in its brackets"},
      {"https://h:99999/", UrlFault::kBadPort, "has an invalid port (a port is a number 1-65535)"},
      {"https://h:+80/", UrlFault::kBadPort, "has an invalid port"},
      {"https://h/a b", UrlFault::kMalformed, "has a malformed path"},
      {"https://h/x?a b", UrlFault::kMalformed, "has a malformed query"},
  };
  for (const Refusal& refusal : refusals) {
    ExpectRefusal(ParseUrl(refusal.text).status(), refusal);
  }
  EXPECT_EQ(UrlFaultOf(absl::InvalidArgumentError("other")), UrlFault::kNone);
  EXPECT_EQ(UrlFaultOf(absl::OkStatus()), UrlFault::kNone);
}

// curl takes ports 0-65535; a URL's port is 1-65535.
TEST(ParseUrlTest, PortZeroIsRefused) {
  EXPECT_EQ(UrlFaultOf(ParseUrl("https://h:0/x").status()), UrlFault::kBadPort);
  EXPECT_THAT(ParseUrl("https://h:0443/x")->port, Optional(443));
}

// As browsers read it, and as the hand-written splits did: the userinfo ends at the
// authority's last '@' (curl alone would end it at the first and find no valid host).
TEST(ParseUrlTest, TheUserinfoEndsAtTheAuthoritysLastAtSign) {
  const absl::StatusOr<Url> url = ParseUrl("https://me@corp.example:pw@git.example/a@b");
  ASSERT_TRUE(url.ok()) << url.status();
  EXPECT_THAT(url->user, Optional(std::string("me%40corp.example")));
  EXPECT_THAT(url->password, Optional(std::string("pw")));
  EXPECT_EQ(url->host, "git.example");
  EXPECT_EQ(url->path, "/a@b");
  EXPECT_EQ(url->without_userinfo, "https://git.example/a@b");
}

TEST(ParseUrlTest, ARefusalNeverQuotesTheUrl) {
  const absl::Status status = ParseUrl("https://tok3n-Zp02@h:99999/x").status();
  EXPECT_THAT(status.message(), Not(HasSubstr("tok3n")));
  EXPECT_EQ(RedactUnparsedUrl("https://tok3n-Zp02@h:99999/x"), "...@h:99999/x");
  EXPECT_EQ(RedactUnparsedUrl("https://h:99999/x"), "https://h:99999/x");
}

TEST(ParseUrlTest, ANulByteIsRefusedRatherThanEndingTheUrl) {
  const std::string text("https://good.example\0@evil.example/", 36);
  EXPECT_EQ(UrlFaultOf(ParseUrl(text).status()), UrlFault::kMalformed);
}

TEST(ResolveUrlTest, ReferencesAreReadAgainstTheBase) {
  const char* base = "https://charts.example:8443/stable/";
  EXPECT_EQ(ResolveUrl(base, "app-1.0.0.tgz")->without_userinfo,
            "https://charts.example:8443/stable/app-1.0.0.tgz");
  EXPECT_EQ(ResolveUrl(base, "/x.tgz")->without_userinfo, "https://charts.example:8443/x.tgz");
  EXPECT_EQ(ResolveUrl(base, "//cdn.example/x.tgz")->without_userinfo, "https://cdn.example/x.tgz");
  EXPECT_EQ(ResolveUrl(base, "http://cdn.example/x.tgz")->scheme, "http");
  EXPECT_EQ(UrlFaultOf(ResolveUrl(base, "https://h:99999/x").status()), UrlFault::kBadPort);
}

TEST(SplitHostPortTest, HostsAndBracketedIpv6AddressesAreSplit) {
  absl::StatusOr<HostPort> split = SplitHostPort("credledger.example:7443", 1);
  ASSERT_TRUE(split.ok()) << split.status();
  EXPECT_EQ(split->host, "credledger.example");
  EXPECT_EQ(split->port, 7443);
  EXPECT_FALSE(split->bracketed);
  split = SplitHostPort("[::1]:0", 0);
  ASSERT_TRUE(split.ok()) << split.status();
  EXPECT_EQ(split->host, "::1");
  EXPECT_EQ(split->port, 0);
  EXPECT_TRUE(split->bracketed);
  EXPECT_EQ(SplitHostPort("[fe80::1%eth0]:7443", 1)->host, "fe80::1%eth0");
}

// curl writes an IPv4 address as four decimal numbers: "127.1" is 127.0.0.1, as the
// resolvers read it.
TEST(SplitHostPortTest, AnIpv4AddressIsWrittenAsFourNumbers) {
  EXPECT_EQ(SplitHostPort("127.1:7443", 1)->host, "127.0.0.1");
}

TEST(SplitHostPortTest, EachRefusalNamesItsFaultAndRule) {
  const Refusal refusals[] = {
      {":7443", UrlFault::kNoHost, "has no host"},
      {"", UrlFault::kNoHost, "has no host"},
      {"a b:7443", UrlFault::kBadHost, "has no valid host"},
      {"::1:7443", UrlFault::kBadHost, "an IPv6 address goes in brackets"},
      {"ipv4:127.0.0.1:7443", UrlFault::kBadHost, "has no valid host"},
      {"user@host:7443", UrlFault::kBadHost, "has no valid host"},
      {"host:7443/x", UrlFault::kBadHost, "has no valid host"},
      {"[localhost]:7443", UrlFault::kBadIpv6, "has no IPv6 address in its brackets"},
      {"[::1:7443", UrlFault::kBadIpv6, "has no IPv6 address in its brackets"},
      {"host", UrlFault::kNoPort, "has no port (<host>:<port>)"},
      {"[::1]", UrlFault::kNoPort, "has no port"},
      {"host:", UrlFault::kBadPort, "has an invalid port (a port is a number 1-65535)"},
      {":::", UrlFault::kBadPort, "a port is a number 1-65535"},
      {"host:0", UrlFault::kBadPort, "a port is a number 1-65535"},
      {"host:65536", UrlFault::kBadPort, "a port is a number 1-65535"},
      {"host:+80", UrlFault::kBadPort, "a port is a number 1-65535"},
      {"[::1]80", UrlFault::kBadPort, "a port is a number 1-65535"},
  };
  for (const Refusal& refusal : refusals) {
    ExpectRefusal(SplitHostPort(refusal.text, 1).status(), refusal);
  }
}

// Stricter than a decimal parse: curl reads "07443" as 7443, and one port has one spelling.
TEST(SplitHostPortTest, APortWithLeadingZerosIsRefused) {
  EXPECT_EQ(UrlFaultOf(SplitHostPort("host:07443", 1).status()), UrlFault::kBadPort);
  EXPECT_EQ(UrlFaultOf(SplitHostPort("host:000080", 0).status()), UrlFault::kBadPort);
}

TEST(JoinHostPortTest, AnIpv6HostGoesInBrackets) {
  EXPECT_EQ(JoinHostPort("::1", 7443), "[::1]:7443");
  EXPECT_EQ(JoinHostPort("fe80::1%eth0", 1), "[fe80::1%eth0]:1");
  EXPECT_EQ(JoinHostPort("127.0.0.1", 0), "127.0.0.1:0");
  EXPECT_EQ(BracketedHost("git.example"), "git.example");
}

TEST(SplitScpAddressTest, AnScpLikeAddressIsSplitAtItsFirstColon) {
  ScpAddress split = SplitScpAddress("git@git.example:org/repo.git");
  EXPECT_FALSE(split.local_path);
  EXPECT_THAT(split.user, Optional(std::string("git")));
  EXPECT_EQ(split.password, std::nullopt);
  EXPECT_EQ(split.host, "git.example");
  EXPECT_EQ(split.path, "org/repo.git");
  EXPECT_EQ(split.without_password, "git@git.example:org/repo.git");

  split = SplitScpAddress("alice:pw-Kq71@git.example:r.git");
  EXPECT_THAT(split.user, Optional(std::string("alice")));
  EXPECT_THAT(split.password, Optional(std::string("pw-Kq71")));
  EXPECT_EQ(split.without_password, "alice@git.example:r.git");

  split = SplitScpAddress("git.example:a://b");
  EXPECT_EQ(split.user, std::nullopt);
  EXPECT_EQ(split.host, "git.example");
  EXPECT_EQ(split.path, "a://b");
}

TEST(SplitScpAddressTest, ABracketedHostKeepsTheColonsOfItsIpv6Address) {
  const ScpAddress split = SplitScpAddress("git@[::1]:org/repo.git");
  EXPECT_FALSE(split.local_path);
  EXPECT_EQ(split.host, "::1");
  EXPECT_EQ(split.path, "org/repo.git");
}

TEST(SplitScpAddressTest, TextsWithASlashBeforeTheColonAreLocalPaths) {
  for (const char* text : {"/srv/repo.git", "./a:b", "repo.git", "a/b@host:x"}) {
    const ScpAddress split = SplitScpAddress(text);
    EXPECT_TRUE(split.local_path) << text;
    EXPECT_EQ(split.host, "") << text;
  }
  // The userinfo rule holds for local paths too, so that a password is always found.
  EXPECT_THAT(SplitScpAddress("alice:pw@host/x:y").password, Optional(std::string("pw")));
  EXPECT_TRUE(SplitScpAddress("alice:pw@host/x:y").local_path);
}

}  // namespace url_test
}  // namespace credledger::common
