// OperationsHttpServer over real HTTP on 127.0.0.1 port 0: /metrics, /healthz and /readyz,
// 405 and 404, one-line readiness reasons, and the --http-listen address rules.
#include "service/server/operations_http_server.h"

#include <arpa/inet.h>
#include <httplib.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <memory>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "service/server/serve_options.h"
#include "test/support/status_matchers.h"

namespace credledger::service {
namespace operations_http_server_test {

using ::credledger::testing::StatusIs;
using ::testing::HasSubstr;
using ::testing::StartsWith;

// "<status> <body>" of a response, or why there is none.
std::string Answer(const httplib::Result& res) {
  if (!res) return "no response: " + httplib::to_string(res.error());
  return std::to_string(res->status) + " " + res->body;
}

TEST(HttpListenAddressTest, AcceptsHostAndPortWithBracketsForIpv6) {
  ASSERT_OK_AND_ASSIGN(HttpListenAddress a, ParseHttpListenAddress("0.0.0.0:9464"));
  EXPECT_EQ(a.host, "0.0.0.0");
  EXPECT_EQ(a.port, 9464);
  ASSERT_OK_AND_ASSIGN(HttpListenAddress b, ParseHttpListenAddress("[::1]:0"));
  EXPECT_EQ(b.host, "::1");
  EXPECT_EQ(b.port, 0);
  ASSERT_OK_AND_ASSIGN(HttpListenAddress c, ParseHttpListenAddress("localhost:65535"));
  EXPECT_EQ(c.host, "localhost");
  EXPECT_EQ(c.port, 65535);
}

TEST(HttpListenAddressTest, RefusesMissingPartsAndBadPortsNamingTheFlag) {
  for (const char* bad : {"", "9464", ":9464", "host:", "host:65536", "host:-1", "host:12a",
                          "host: 80", "::1:80", "[::1", "[::1]80", "[]:80", "host:000080"}) {
    EXPECT_THAT(ParseHttpListenAddress(bad),
                StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("--http-listen")))
        << bad;
  }
}

TEST(ServeOptionsHttpTest, HttpListenIsCheckedAndMayUseEveryInterface) {
  ServeOptions options;
  options.grpc.insecure_allow_all = true;
  options.http.listen_address = "0.0.0.0:9464";
  EXPECT_OK(ValidateServeOptions(options));
  options.http.listen_address = "9464";
  EXPECT_THAT(ValidateServeOptions(options),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("--http-listen")));
  options.http.listen_address.clear();
  options.http.port_file = "http-port";
  EXPECT_THAT(ValidateServeOptions(options), StatusIs(absl::StatusCode::kInvalidArgument,
                                                      "--http-port-file: requires --http-listen"));
}

class OperationsHttpServerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_OK_AND_ASSIGN(common::MetricFamily<common::Counter> * requests,
                         registry_.AddCounter("test_requests_total", "Requests.", {"code"}));
    requests->WithLabels({"200"}).Increment(2);
    readiness_.AddGate("grpc", "the gRPC API is not serving yet");
    ASSERT_OK_AND_ASSIGN(server_,
                         OperationsHttpServer::Start("127.0.0.1:0", &registry_, &readiness_));
    ASSERT_GT(server_->port(), 0);
    client_ = std::make_unique<httplib::Client>("127.0.0.1", server_->port());
    client_->set_read_timeout(20);
  }

  common::MetricsRegistry registry_;
  Readiness readiness_;
  std::unique_ptr<OperationsHttpServer> server_;
  std::unique_ptr<httplib::Client> client_;
};

TEST_F(OperationsHttpServerTest, MetricsServesTheRegistryInTheTextFormat) {
  httplib::Result res = client_->Get("/metrics");
  ASSERT_TRUE(res) << httplib::to_string(res.error());
  EXPECT_EQ(res->status, 200);
  EXPECT_EQ(res->get_header_value("Content-Type"), "text/plain; version=0.0.4; charset=utf-8");
  EXPECT_EQ(res->body,
            "# HELP test_requests_total Requests.\n"
            "# TYPE test_requests_total counter\n"
            "test_requests_total{code=\"200\"} 2\n");
}

TEST_F(OperationsHttpServerTest, MetricsAreGzippedWhenTheClientAsksForIt) {
  // As Prometheus asks; the client decompresses.
  httplib::Result res = client_->Get("/metrics", {{"Accept-Encoding", "gzip"}});
  ASSERT_TRUE(res);
  EXPECT_EQ(res->get_header_value("Content-Encoding"), "gzip");
  EXPECT_EQ(res->body, registry_.Render());
}

TEST_F(OperationsHttpServerTest, HealthzIsOkWhileReadyzWaitsForItsGates) {
  EXPECT_EQ(Answer(client_->Get("/healthz")), "200 ok\n");
  EXPECT_EQ(Answer(client_->Get("/readyz")),
            "503 not ready: grpc: the gRPC API is not serving yet\n");
  readiness_.OpenGate("grpc");
  EXPECT_EQ(Answer(client_->Get("/readyz")), "200 ok\n");
}

TEST_F(OperationsHttpServerTest, AReadyServiceListsItsNoticesAfterOk) {
  readiness_.OpenGate("grpc");
  readiness_.AddNotice("space", [] {
    return absl::ResourceExhaustedError("reports and heartbeats are refused\nforged");
  });
  EXPECT_EQ(Answer(client_->Get("/readyz")),
            "200 ok\nspace: reports and heartbeats are refused forged\n");
}

TEST_F(OperationsHttpServerTest, AReasonWithLineBreaksAndControlsIsServedOnOneLine) {
  readiness_.OpenGate("grpc");
  readiness_.AddCheck("projectors",
                      [] { return absl::DataLossError("event at seq 7\nforged: line\x1b[31m"); });
  EXPECT_EQ(Answer(client_->Get("/readyz")),
            "503 not ready: projectors: event at seq 7 forged: line\\x1b[31m\n");
}

TEST_F(OperationsHttpServerTest, OtherMethodsAre405AndOtherPaths404) {
  constexpr char kNotAllowed[] = "405 method not allowed\n";
  httplib::Result post = client_->Post("/metrics", "x", "text/plain");
  EXPECT_EQ(Answer(post), kNotAllowed);
  ASSERT_TRUE(post);
  EXPECT_EQ(post->get_header_value("Allow"), "GET, HEAD");
  EXPECT_EQ(Answer(client_->Delete("/readyz")), kNotAllowed);
  EXPECT_EQ(Answer(client_->Options("/healthz")), kNotAllowed);
  // Over the body limit: refused as a method before the body is read.
  EXPECT_EQ(Answer(client_->Put("/metrics", std::string(4096, 'x'), "text/plain")), kNotAllowed);
  EXPECT_THAT(Answer(client_->Get("/metrics/extra")), StartsWith("404 "));
  EXPECT_THAT(Answer(client_->Get("/")), StartsWith("404 "));
  EXPECT_THAT(Answer(client_->Post("/nope", "x", "text/plain")), StartsWith("404 "));
}

// The response to `head` (request line and headers, sent alone over a raw connection), read
// until the server closes or 3 s pass; "" when nothing came.
std::string AnswerToHead(int port, const std::string& head) {
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_port = htons(static_cast<uint16_t>(port));
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  std::string answer;
  if (connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof(address)) == 0 &&
      send(fd, head.data(), head.size(), 0) == static_cast<ssize_t>(head.size())) {
    timeval timeout{3, 0};
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof(timeout));
    char buffer[4096];
    for (ssize_t n; (n = recv(fd, buffer, sizeof(buffer), 0)) > 0;) answer.append(buffer, n);
  }
  close(fd);
  return answer;
}

// A request announcing a body is answered before the body is read: the 100 MB here never
// come, so a server reading them would wait for its 5 s read timeout instead of answering.
TEST_F(OperationsHttpServerTest, ARequestWithABodyIsRefusedBeforeTheBodyIsRead) {
  for (const char* framing : {"Content-Length: 100000000", "Transfer-Encoding: chunked"}) {
    SCOPED_TRACE(framing);
    const std::string answer = AnswerToHead(
        server_->port(),
        absl::StrCat("GET /healthz HTTP/1.1\r\nHost: localhost\r\n", framing, "\r\n\r\n"));
    EXPECT_THAT(answer, StartsWith("HTTP/1.1 413 "));
    EXPECT_THAT(answer, HasSubstr("request bodies are not accepted"));
  }
}

TEST_F(OperationsHttpServerTest, HeadAnswersLikeGetWithoutABody) {
  EXPECT_EQ(Answer(client_->Head("/healthz")), "200 ");
}

TEST_F(OperationsHttpServerTest, ATakenPortIsUnavailableAndStopIsIdempotent) {
  const std::string taken = "127.0.0.1:" + std::to_string(server_->port());
  EXPECT_THAT(OperationsHttpServer::Start(taken, &registry_, &readiness_),
              StatusIs(absl::StatusCode::kUnavailable, HasSubstr(taken)));
  client_.reset();
  server_->Stop();
  server_->Stop();
  httplib::Client late("127.0.0.1", server_->port());
  late.set_connection_timeout(5);
  EXPECT_FALSE(late.Get("/healthz"));
}

}  // namespace operations_http_server_test
}  // namespace credledger::service
