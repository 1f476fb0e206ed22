// gRPC core's messages in the service log (service/wire/grpc_log.h): passed on at their level
// with their source, failed TLS handshakes written once per interval and summed up.
#include "service/wire/grpc_log.h"

#include <grpc/support/log.h>

#include "gtest/gtest.h"
#include "test/support/captured_log.h"

namespace credledger::service {
namespace {

using ::credledger::testing::CapturedLog;

constexpr char kNoCertificate[] =
    "Handshake failed with fatal error SSL_ERROR_SSL: error:0A0000C7:SSL "
    "routines::peer did not return a certificate.";

TEST(GrpcLogTest, AMessageIsPassedOnAtItsLevelWithItsSource) {
  CapturedLog log;
  common::FakeClock clock;
  common::RepeatLog handshakes({.summary_message = kHandshakeFailedSummary}, &clock);
  RouteGrpcLog(GPR_LOG_SEVERITY_ERROR, "/build/grpc/src/core/ext/chttp2_server.cc", 123,
               "accept failed", handshakes);
  RouteGrpcLog(GPR_LOG_SEVERITY_INFO, "server.cc", 7, "starting", handshakes);
  const std::vector<nlohmann::json> lines = log.Lines(kGrpcLogMessage);
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_EQ(lines[0]["level"], "error");
  EXPECT_EQ(lines[0]["message"], "accept failed");
  EXPECT_EQ(lines[0]["source"], "chttp2_server.cc:123");
  EXPECT_EQ(lines[1]["level"], "info");
}

// Regression: gRPC wrote one stderr line per failed handshake (6,408 lines in 10 s from
// clients without a certificate). Now one line per interval and a summary.
TEST(GrpcLogTest, FailedHandshakesAreWrittenOncePerIntervalAndSummedUp) {
  CapturedLog log;
  common::FakeClock clock;
  common::RepeatLog handshakes({.summary_message = kHandshakeFailedSummary}, &clock);
  for (int i = 0; i < 6408; ++i) {
    RouteGrpcLog(GPR_LOG_SEVERITY_ERROR, "/src/core/tsi/ssl_transport_security.cc", 1501,
                 kNoCertificate, handshakes);
  }
  handshakes.Stop();
  const std::vector<nlohmann::json> failed = log.Lines(kHandshakeFailedMessage);
  ASSERT_EQ(failed.size(), 1u);
  EXPECT_EQ(failed[0]["level"], "warning");
  EXPECT_EQ(failed[0]["error"], kNoCertificate);
  const std::vector<nlohmann::json> summaries = log.Lines(kHandshakeFailedSummary);
  ASSERT_EQ(summaries.size(), 1u);
  EXPECT_EQ(summaries[0]["count"], "6407");
  EXPECT_EQ(summaries[0]["peer"], kGrpcUnnamedPeer);
  EXPECT_TRUE(log.Lines(kGrpcLogMessage).empty());
}

}  // namespace
}  // namespace credledger::service
