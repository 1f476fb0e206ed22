// ConnectionHint (cli/client_connection.h): the hint a failed connection gets, by gRPC's
// message and the connection's TLS flags (docs/api.md, "Transport"). The messages are those
// gRPC 1.51 gives, as seen in test/integration/grpc_tls_test.cc.
#include "cli/client_connection.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace credledger::cli {
namespace client_connection_test {

using ::testing::HasSubstr;
using ::testing::IsEmpty;

constexpr char kClosed[] =
    "failed to connect to all addresses; last error: UNAVAILABLE: ipv4:127.0.0.1:7443: Socket "
    "closed";
constexpr char kRefused[] =
    "failed to connect to all addresses; last error: UNKNOWN: ipv4:127.0.0.1:7443: Failed to "
    "connect to remote host: Connection refused";
constexpr char kNotTls[] =
    "failed to connect to all addresses; last error: UNKNOWN: ipv4:127.0.0.1:7443: Ssl "
    "handshake failed: SSL_ERROR_SSL: error:0A00010B:SSL routines::wrong version number";
constexpr char kUnverified[] =
    "failed to connect to all addresses; last error: UNKNOWN: ipv4:127.0.0.1:7443: Ssl "
    "handshake failed: SSL_ERROR_SSL: error:0A000086:SSL routines::certificate verify failed";

TEST(ConnectionHintTest, AClosedConnectionPointsAtTheTlsFlagsTheCallLacks) {
  EXPECT_THAT(ConnectionHint(kClosed, /*tls=*/false, /*client_certificate=*/false),
              HasSubstr("if it serves TLS, pass --tls-ca"));
  EXPECT_THAT(ConnectionHint(kClosed, /*tls=*/true, /*client_certificate=*/false),
              HasSubstr("if it requires client certificates (mutual TLS), pass --tls-cert and "
                        "--tls-key"));
  EXPECT_THAT(ConnectionHint(kClosed, /*tls=*/true, /*client_certificate=*/true),
              HasSubstr("it may not accept this client certificate"));
  EXPECT_THAT(ConnectionHint("failed to connect to all addresses; last error: UNAVAILABLE: "
                             "ipv4:127.0.0.1:7443: Connection reset by peer",
                             false, false),
              HasSubstr("pass --tls-ca"));
}

TEST(ConnectionHintTest, RefusedNotTlsAndUnverifiedCertificatesAreNamed) {
  EXPECT_THAT(ConnectionHint(kRefused, false, false),
              HasSubstr("nothing accepts connections at that address"));
  EXPECT_THAT(ConnectionHint(kRefused, true, true),
              HasSubstr("nothing accepts connections at that address"));
  EXPECT_THAT(ConnectionHint(kNotTls, true, false),
              HasSubstr("the server does not speak TLS at that address"));
  EXPECT_THAT(ConnectionHint(kUnverified, true, false),
              HasSubstr("--tls-ca must hold the CA that signed it"));
  // BoringSSL spells the reason in capitals.
  EXPECT_THAT(ConnectionHint("failed to connect to all addresses; last error: UNKNOWN: "
                             "ipv4:127.0.0.1:7443: Ssl handshake failed: WRONG_VERSION_NUMBER",
                             true, false),
              HasSubstr("the server does not speak TLS at that address"));
}

TEST(ConnectionHintTest, ACallCutOffAfterItConnectedGetsNone) {
  // A server killed in the middle of a call (a long watch, say): the call did reach it.
  EXPECT_THAT(ConnectionHint("Socket closed", false, false), IsEmpty());
  EXPECT_THAT(ConnectionHint("ipv4:127.0.0.1:7443: Connection reset by peer", true, true),
              IsEmpty());
  EXPECT_THAT(ConnectionHint("the API server said: Connection refused", false, false), IsEmpty());
}

TEST(ConnectionHintTest, OtherMessagesAndTlsMessagesWithoutTlsGetNone) {
  EXPECT_THAT(ConnectionHint("the event log cannot be written now", false, false), IsEmpty());
  EXPECT_THAT(ConnectionHint("server shutting down", true, true), IsEmpty());
  EXPECT_THAT(ConnectionHint(kNotTls, /*tls=*/false, false), IsEmpty());
  EXPECT_THAT(ConnectionHint(kUnverified, /*tls=*/false, false), IsEmpty());
}

}  // namespace client_connection_test
}  // namespace credledger::cli
