// The limits of the operations endpoint over real sockets on 127.0.0.1 port 0: connections
// that send their request head slowly, or nothing, must not keep /healthz from answering
// (docs/operations.md, "Limits of the HTTP endpoint").
#include <arpa/inet.h>
#include <httplib.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <memory>
#include <string>
#include <vector>

#include "absl/time/clock.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "service/server/operations_http_server.h"
#include "service/server/serve_options.h"
#include "test/support/status_matchers.h"

namespace credledger::service {
namespace operations_http_limits_test {

using ::credledger::testing::StatusIs;

// A raw loopback connection to `port` that the test writes to by hand.
class RawConnection {
 public:
  explicit RawConnection(int port) : fd_(socket(AF_INET, SOCK_STREAM, 0)) {
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_port = htons(static_cast<uint16_t>(port));
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    connected_ = connect(fd_, reinterpret_cast<sockaddr*>(&address), sizeof(address)) == 0;
  }
  ~RawConnection() { close(fd_); }
  RawConnection(const RawConnection&) = delete;
  RawConnection& operator=(const RawConnection&) = delete;

  bool connected() const { return connected_; }

  // Sends `bytes`; false when the server has closed the connection.
  bool Send(const std::string& bytes) {
    return send(fd_, bytes.data(), bytes.size(), MSG_NOSIGNAL) ==
           static_cast<ssize_t>(bytes.size());
  }

  // What the server sends until it closes the connection or `deadline` passes.
  std::string ReadUntilClosed(absl::Time deadline) {
    std::string answer;
    char buffer[1024];
    for (;;) {
      const int wait_ms = static_cast<int>(absl::ToInt64Milliseconds(deadline - absl::Now()));
      pollfd readable{fd_, POLLIN, 0};
      if (wait_ms <= 0 || poll(&readable, 1, wait_ms) != 1) return answer;
      const ssize_t n = recv(fd_, buffer, sizeof(buffer), 0);
      if (n <= 0) {
        closed_ = true;
        return answer;
      }
      answer.append(buffer, static_cast<size_t>(n));
    }
  }

  // Whether ReadUntilClosed saw the server close the connection.
  bool closed() const { return closed_; }

 private:
  int fd_;
  bool connected_ = false;
  bool closed_ = false;
};

// "<status>" of a GET of `path` that must answer within `timeout`, or why none came.
std::string ProbeStatus(int port, const std::string& path, absl::Duration timeout) {
  httplib::Client client("127.0.0.1", port);
  client.set_connection_timeout(absl::ToChronoSeconds(timeout));
  client.set_read_timeout(absl::ToChronoMicroseconds(timeout));
  client.set_write_timeout(absl::ToChronoMicroseconds(timeout));
  httplib::Result res = client.Get(path);
  if (!res) return "no answer: " + httplib::to_string(res.error());
  return std::to_string(res->status);
}

// Regression: the endpoint served requests on a fixed pool of 4 threads, and a connection
// held its thread for as long as it kept sending its request head (each byte restarted the
// read timeout). Six connections that send a byte of a request head now and then kept every
// probe waiting for seconds. Here each round sends one more byte on every connection, then
// asks /healthz, which must answer within kProbeTimeout: more than kubelet's default probe
// timeout (1 s), so that a loaded test host does not fail it, and less than the 5 s a probe
// waited for a slow connection's thread.
constexpr absl::Duration kProbeTimeout = absl::Seconds(3);

TEST(OperationsHttpLimitsTest, SlowRequestHeadsDoNotKeepHealthzFromAnswering) {
  common::MetricsRegistry registry;
  Readiness readiness;
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<OperationsHttpServer> server,
                       OperationsHttpServer::Start("127.0.0.1:0", &registry, &readiness));
  const std::string head = "GET /healthz HTTP/1.1\r\nHost: localhost\r\nX-Slow: ";
  std::vector<std::unique_ptr<RawConnection>> slow;
  for (int i = 0; i < 8; ++i) {
    slow.push_back(std::make_unique<RawConnection>(server->port()));
    ASSERT_TRUE(slow.back()->connected());
  }
  for (size_t round = 0; round < 6; ++round) {
    for (auto& connection : slow) connection->Send(head.substr(round, 1));
    EXPECT_EQ(ProbeStatus(server->port(), "/healthz", kProbeTimeout), "200")
        << "round " << round;
  }
}

TEST(OperationsHttpLimitsTest, ConnectionsOverTheLimitAreRefusedAtOnce) {
  common::MetricsRegistry registry;
  Readiness readiness;
  HttpLimits limits;
  limits.max_connections = 2;
  limits.idle_timeout = absl::Seconds(1);
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<OperationsHttpServer> server,
                       OperationsHttpServer::Start("127.0.0.1:0", &registry, &readiness, limits));
  std::vector<std::unique_ptr<RawConnection>> idle;
  for (int i = 0; i < 5; ++i) {
    idle.push_back(std::make_unique<RawConnection>(server->port()));
    ASSERT_TRUE(idle.back()->connected());
  }
  // Two are served (and closed without an answer after the idle timeout), three refused.
  int refused = 0;
  for (auto& connection : idle) {
    const std::string answer = connection->ReadUntilClosed(absl::Now() + absl::Seconds(20));
    EXPECT_TRUE(connection->closed());
    if (answer.rfind("HTTP/1.1 503 ", 0) == 0) {
      EXPECT_NE(answer.find("too many connections"), std::string::npos) << answer;
      ++refused;
    } else {
      EXPECT_EQ(answer, "");
    }
  }
  EXPECT_EQ(refused, 3);
  // Closed connections free their places.
  EXPECT_EQ(ProbeStatus(server->port(), "/healthz", absl::Seconds(5)), "200");
}

// A byte now and then does not extend the time a request head may take.
TEST(OperationsHttpLimitsTest, ARequestHeadMustArriveWithinTheRequestTimeout) {
  common::MetricsRegistry registry;
  Readiness readiness;
  HttpLimits limits;
  limits.request_timeout = absl::Seconds(1);
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<OperationsHttpServer> server,
                       OperationsHttpServer::Start("127.0.0.1:0", &registry, &readiness, limits));
  RawConnection slow(server->port());
  ASSERT_TRUE(slow.connected());
  const std::string head = "GET /healthz HTTP/1.1\r\nHost: localhost\r\nX-Slow: aaaaaaaaaaaaaaa";
  const absl::Time start = absl::Now();
  // One byte every 100 ms (waiting for the server to close in between), up to 10 s.
  for (size_t i = 0; !slow.closed() && absl::Now() < start + absl::Seconds(10); ++i) {
    slow.Send(head.substr(i % head.size(), 1));
    slow.ReadUntilClosed(absl::Now() + absl::Milliseconds(100));
  }
  EXPECT_TRUE(slow.closed());
  EXPECT_LT(absl::Now() - start, absl::Seconds(5));
}

TEST(OperationsHttpLimitsTest, MaxConnectionsIsCheckedAsAServeFlag) {
  ServeOptions options;
  options.http.listen_address = "127.0.0.1:0";
  for (size_t bad : {size_t{0}, kMaxHttpConnections + 1}) {
    options.http.limits.max_connections = bad;
    EXPECT_THAT(ValidateServeOptions(options),
                StatusIs(absl::StatusCode::kInvalidArgument,
                         ::testing::HasSubstr("--http-max-connections")));
  }
  options.http.limits.max_connections = kMaxHttpConnections;
  EXPECT_OK(ValidateServeOptions(options));
}

}  // namespace operations_http_limits_test
}  // namespace credledger::service
