// The client's --server check: the address forms the docs show are accepted, malformed ones
// are refused naming the flag and the rule before the CLI dials.
#include "service/wire/server_address.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "test/support/status_matchers.h"

namespace credledger::service {
namespace server_address_test {

using ::testing::AllOf;
using ::testing::HasSubstr;
using testing::StatusIs;

TEST(ServerAddressTest, DocumentedFormsAreAccepted) {
  for (const char* address :
       {"127.0.0.1:7443", "localhost:1", "credledger.example.com:65535", "[::1]:7443",
        "[fe80::1%eth0]:7443", "dns:///credledger.example.com:7443", "dns:localhost:7443",
        "dns://8.8.8.8/credledger.example.com:7443", "unix:/run/credledger.sock",
        "unix:credledger.sock", "unix:///run/credledger.sock", "unix-abstract:credledger"}) {
    SCOPED_TRACE(address);
    EXPECT_OK(CheckServerAddress("--server", address));
  }
}

TEST(ServerAddressTest, PortsOutsideOneTo65535OrNotDecimalAreRefused) {
  for (const char* address : {"localhost:99999", "localhost:0", "host:", "host:abc", "host:+80",
                              "[::1]:-1", "dns:///host:70000"}) {
    EXPECT_THAT(CheckServerAddress("--server", address),
                StatusIs(absl::StatusCode::kInvalidArgument,
                         AllOf(HasSubstr("--server: "), HasSubstr("a port is a number 1-65535"),
                               HasSubstr("expected <host>:<port>"))))
        << address;
  }
}

TEST(ServerAddressTest, AddressesWithoutPortAreRefused) {
  for (const char* address : {"nohost", "dns:///host", "[::1]"}) {
    EXPECT_THAT(CheckServerAddress("--server", address),
                StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("--server: ")))
        << address;
  }
  EXPECT_THAT(CheckServerAddress("--server", "nohost"),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("has no port")));
}

TEST(ServerAddressTest, EmptyOrMalformedHostsAreRefused) {
  EXPECT_THAT(CheckServerAddress("--server", ":7443"),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("has no valid host")));
  // gRPC would read "::1:7443" as the host "::1:7443" on port 443.
  EXPECT_THAT(CheckServerAddress("--server", "::1:7443"),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("[::1]:7443")));
  EXPECT_THAT(CheckServerAddress("--server", ":::"),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("--server: ")));
  EXPECT_THAT(CheckServerAddress("--server", "a b:7443"),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("has no valid host")));
  EXPECT_THAT(CheckServerAddress("--server", "[localhost]:7443"),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("no IPv6 address")));
  EXPECT_THAT(CheckServerAddress("--server", "ipv4:127.0.0.1:7443"),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("has no valid host")));
  EXPECT_THAT(CheckServerAddress("--server", "dns://8.8.8.8"),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("DNS authority")));
}

// Stricter than the hand-written split, which took any bytes but separators and spaces for
// a host and any decimal digits for a port: the host is one libcurl reads, and a port has one
// spelling.
TEST(ServerAddressTest, HostsLibcurlRefusesAndZeroPaddedPortsAreRefused) {
  for (const char* address : {"a$b:7443", "bad!host:7443", "dns:///a*b:7443"}) {
    EXPECT_THAT(CheckServerAddress("--server", address),
                StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("has no valid host")))
        << address;
  }
  EXPECT_THAT(
      CheckServerAddress("--server", "localhost:07443"),
      StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("a port is a number 1-65535")));
}

TEST(ServerAddressTest, UrlsAreRefusedAsUrlsNotAsBadIpv6Hosts) {
  for (const char* address :
       {"http://localhost:7443", "https://credledger.example.com:443", "grpc://127.0.0.1:7443"}) {
    EXPECT_THAT(CheckServerAddress("--server", address),
                StatusIs(absl::StatusCode::kInvalidArgument,
                         AllOf(HasSubstr("is a URL"), HasSubstr("without a scheme"),
                               ::testing::Not(HasSubstr("goes in brackets")))))
        << address;
  }
}

TEST(ServerAddressTest, ARefusedDnsAddressIsNamedWhole) {
  EXPECT_THAT(CheckServerAddress("--server", "dns:///localhost"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       AllOf(HasSubstr("has no port"), HasSubstr("(in \"dns:///localhost\")"))));
  // A plain host:port is quoted once.
  EXPECT_THAT(CheckServerAddress("--server", "nohost"),
              StatusIs(absl::StatusCode::kInvalidArgument, ::testing::Not(HasSubstr("(in "))));
}

TEST(ServerAddressTest, EmptyAddressesAndSocketPathsAreRefused) {
  EXPECT_THAT(CheckServerAddress("--server", ""),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       AllOf(HasSubstr("--server: required"), HasSubstr("unix:<path>"))));
  EXPECT_THAT(CheckServerAddress("--server", "unix:"),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("names no socket path")));
  EXPECT_THAT(CheckServerAddress("--server", "unix-abstract:"),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("names no socket")));
  // "unix://" starts an absolute path only; "unix://run/x.sock" names no file.
  EXPECT_THAT(CheckServerAddress("--server", "unix://run/credledger.sock"),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("no absolute path")));
}

}  // namespace server_address_test
}  // namespace credledger::service
