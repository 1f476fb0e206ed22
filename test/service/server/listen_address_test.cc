// Plaintext listening only on loopback or unix sockets, any address with TLS, and the serve
// option checks.
#include "service/server/listen_address.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "service/server/serve_options.h"
#include "test/support/status_matchers.h"

namespace credledger::service {
namespace listen_address_test {

using ::testing::AllOf;
using ::testing::HasSubstr;
using testing::StatusIs;

TEST(ListenAddressTest, LoopbackAndUnixSocketsAreAccepted) {
  for (const char* address :
       {"127.0.0.1:7443", "127.0.0.1:0", "127.1.2.3:65535", "[::1]:7443", "localhost:7443",
        "unix:/run/credledger.sock", "unix:///run/credledger.sock", "unix-abstract:credledger"}) {
    SCOPED_TRACE(address);
    EXPECT_OK(CheckListenAddress("--listen", address, /*tls=*/false));
  }
}

TEST(ListenAddressTest, NetworkAddressesAreRefused) {
  for (const char* address : {"0.0.0.0:7443", "10.0.0.1:7443", "[::]:7443", "example.com:7443"}) {
    EXPECT_THAT(CheckListenAddress("--listen", address, /*tls=*/false),
                StatusIs(absl::StatusCode::kInvalidArgument,
                         AllOf(HasSubstr("not a loopback address"), HasSubstr("--tls-cert"))))
        << address;
  }
}

TEST(ListenAddressTest, WithTlsNetworkAddressesAreAccepted) {
  for (const char* address : {"0.0.0.0:7443", "10.0.0.1:7443", "[::]:7443", "example.com:7443",
                              "127.0.0.1:0", "unix:/run/credledger.sock"}) {
    SCOPED_TRACE(address);
    EXPECT_OK(CheckListenAddress("--listen", address, /*tls=*/true));
  }
  EXPECT_THAT(CheckListenAddress("--listen", "0.0.0.0:70000", /*tls=*/true),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("0-65535")));
}

TEST(ListenAddressTest, MalformedAddressesNameTheRule) {
  EXPECT_THAT(CheckListenAddress("--listen", "127.0.0.1", /*tls=*/false),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("has no port")));
  EXPECT_THAT(CheckListenAddress("--listen", "127.0.0.1:70000", /*tls=*/false),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("0-65535")));
  EXPECT_THAT(CheckListenAddress("--listen", "127.0.0.1:-1", /*tls=*/false),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("0-65535")));
  EXPECT_THAT(CheckListenAddress("--listen", "unix:", /*tls=*/false),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("no socket path")));
  for (bool tls : {false, true}) {
    EXPECT_THAT(CheckListenAddress("--listen", ":7443", tls),
                StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("names no host")));
  }
}

// Stricter than the hand-written split, which took the text before the last ':' for the
// host and checked it only without TLS: an IPv6 address needs its brackets and a host must be
// one libcurl reads, with TLS too.
TEST(ListenAddressTest, WithTlsAMalformedHostIsRefused) {
  EXPECT_THAT(CheckListenAddress("--listen", "::1:7443", /*tls=*/true),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("goes in brackets")));
  EXPECT_THAT(CheckListenAddress("--listen", "bad!host:7443", /*tls=*/true),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("has no valid host")));
  EXPECT_THAT(CheckListenAddress("--listen", "127.0.0.1:07443", /*tls=*/true),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("0-65535")));
}

// Looser: libcurl writes "127.1" as 127.0.0.1, the address the resolver gives gRPC for it.
TEST(ListenAddressTest, AShortIpv4LoopbackAddressIsLoopback) {
  EXPECT_OK(CheckListenAddress("--listen", "127.1:7443", /*tls=*/false));
}

TEST(ServeOptionsTest, TokenTtlBelowTenMinutesIsRefused) {
  ServeOptions options;
  options.credentials.agent_token_ttl = absl::Minutes(9);
  EXPECT_THAT(ValidateServeOptions(options),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       "--agent-token-ttl: 9m is below the minimum of 10m"));
  options.credentials.agent_token_ttl = absl::Minutes(10);
  EXPECT_OK(ValidateServeOptions(options));
  options.grpc.listen_address = "0.0.0.0:7443";
  EXPECT_THAT(ValidateServeOptions(options),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("--listen:")));
  options.grpc.tls.cert_file = "server.pem";
  options.grpc.tls.key_file = "server-key.pem";
  EXPECT_OK(ValidateServeOptions(options));
}

TEST(ServeOptionsTest, TlsKeyOrClientCaWithoutCertificateIsRefused) {
  ServeOptions options;
  options.grpc.tls.key_file = "server-key.pem";
  EXPECT_THAT(ValidateServeOptions(options),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("--tls-cert:")));
  options.grpc.tls.key_file.clear();
  options.grpc.tls.client_ca_file = "clients.pem";
  EXPECT_THAT(ValidateServeOptions(options),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("--tls-cert:")));
  options.grpc.tls.cert_file = "server.pem";
  EXPECT_THAT(ValidateServeOptions(options),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("--tls-key:")));
}

TEST(ServeOptionsTest, TokenTtlAboveAYearResyncBelowASecondAndBadRateLimitsAreRefused) {
  ServeOptions options;
  options.credentials.agent_token_ttl = absl::Hours(24 * 366);
  EXPECT_THAT(ValidateServeOptions(options),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("above the maximum")));
  options = ServeOptions();
  options.kube.resync_period = absl::ZeroDuration();
  EXPECT_THAT(ValidateServeOptions(options),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("--resync-period:")));
  options = ServeOptions();
  options.kube.burst = 0;
  EXPECT_THAT(ValidateServeOptions(options),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("--kube-burst")));
  options = ServeOptions();
  options.kube.qps = 0;
  EXPECT_THAT(ValidateServeOptions(options),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("--kube-qps")));
}

TEST(ServeOptionsTest, ServiceConfigurationHashesTheCaFileAndNamesAnUnreadableOne) {
  ServeOptions options;
  options.credentials.agent_apiserver_url = "https://agents.example:6443";
  options.credentials.agent_ca_file = "/nonexistent/ca.pem";
  EXPECT_THAT(ServiceConfigurationFor(options),
              StatusIs(absl::StatusCode::kNotFound, HasSubstr("--agent-ca-file")));
  options.credentials.agent_ca_file.clear();
  ASSERT_OK_AND_ASSIGN(v1::ServiceConfigured config, ServiceConfigurationFor(options));
  EXPECT_TRUE(config.credentials_enabled());
  EXPECT_EQ(config.agent_token_ttl_seconds(), 86400);
  EXPECT_EQ(config.agent_ca_sha256(), "");
  EXPECT_EQ(config.connection_hash().size(), 10u);
  options.credentials.agent_apiserver_url.clear();
  ASSERT_OK_AND_ASSIGN(config, ServiceConfigurationFor(options));
  EXPECT_FALSE(config.credentials_enabled());
}

TEST(ServeOptionsTest, ReportPeriodsOutsideTheirBoundsAreRefused) {
  ServeOptions options;
  options.reports.liveness_flush_interval = absl::Milliseconds(50);
  EXPECT_THAT(ValidateServeOptions(options),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       "--liveness-flush-interval: 50ms is outside 100ms..1m"));
  options.reports.liveness_flush_interval = absl::Minutes(2);
  EXPECT_THAT(ValidateServeOptions(options),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("--liveness-flush-interval: 2m is outside")));
  options = ServeOptions();
  options.reports.stale_after = absl::Milliseconds(500);
  options.reports.liveness_flush_interval = absl::Milliseconds(100);
  EXPECT_THAT(ValidateServeOptions(options),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       "--report-stale-after: 500ms is below the minimum of 1s"));
  options = ServeOptions();
  options.reports.stale_after = absl::Seconds(2);
  EXPECT_THAT(ValidateServeOptions(options),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       "--report-stale-after: 2s is shorter than --liveness-flush-interval (5s)"));
  options.reports.liveness_flush_interval = absl::Seconds(2);
  options.reports.limits.min_interval = absl::Seconds(1);
  EXPECT_OK(ValidateServeOptions(options));
}

TEST(ServeOptionsTest, ReportLimitsOutsideTheirBoundsAreRefused) {
  ServeOptions options;
  options.reports.limits.max_report_bytes = 1023;
  EXPECT_THAT(ValidateServeOptions(options),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       "--report-max-bytes: 1023 is outside 1024..1572864"));
  options.reports.limits.max_report_bytes = kMaxReportBytes + 1;
  EXPECT_THAT(ValidateServeOptions(options),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("--report-max-bytes")));
  options = ServeOptions();
  options.reports.limits.min_interval = absl::Hours(2);
  EXPECT_THAT(ValidateServeOptions(options),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       "--report-min-interval: 2h is above the maximum of 1h"));
  options.reports.limits.min_interval = absl::Minutes(10);
  EXPECT_THAT(ValidateServeOptions(options),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("--report-min-interval: 10m is not shorter than "
                                 "--report-stale-after (10m)")));
  options = ServeOptions();
  options.reports.space_reserve_bytes = -1;
  EXPECT_THAT(ValidateServeOptions(options),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("--space-reserve: -1")));
  options.reports.space_reserve_bytes = 0;
  options.reports.limits.min_interval = absl::ZeroDuration();
  EXPECT_OK(ValidateServeOptions(options));
}

}  // namespace listen_address_test
}  // namespace credledger::service
