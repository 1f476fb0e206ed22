#include "kubebridge/client/curl_transport.h"

#include <sys/socket.h>
#include <unistd.h>

#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/escaping.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "test/kubebridge/client/raw_http_server.h"
#include "test/kubebridge/test_files.h"
#include "test/support/status_matchers.h"
#include "test/support/temp_dir.h"

namespace credledger::kubebridge {
namespace curl_transport_test {

using ::credledger::testing::TempDir;

constexpr char kToken[] = "super-secret-bearer-token";

std::unique_ptr<CurlTransport> Transport(const std::string& server, ConnectionConfig config = {}) {
  config.server = server;
  if (config.token.empty() && config.token_file.empty()) config.token = kToken;
  absl::StatusOr<std::unique_ptr<CurlTransport>> transport = CurlTransport::New(config);
  EXPECT_TRUE(transport.ok()) << transport.status();
  return transport.ok() ? *std::move(transport) : nullptr;
}

HttpRequest Get(const std::string& path) {
  HttpRequest request;
  request.method = "GET";
  request.path = path;
  request.timeout = absl::Seconds(20);
  return request;
}

// Runs `request` on a thread; Join() returns its result.
class AsyncCall {
 public:
  AsyncCall(HttpTransport& transport, HttpRequest request, Cancellation& cancel,
            const LineHandler* on_line = nullptr)
      : thread_([this, &transport, request, &cancel, on_line] {
          result_ = transport.RoundTrip(request, cancel, on_line);
        }) {}
  absl::StatusOr<HttpResponse> Join() {
    thread_.join();
    return result_;
  }

 private:
  absl::StatusOr<HttpResponse> result_ = absl::UnknownError("not run");
  std::thread thread_;
};

// A raw loopback peer and a transport pointed at it.
class CurlTransportTest : public ::testing::Test {
 protected:
  // Sends `request` while the peer answers `code`, `body` and `extra_headers` (each header
  // line ending in CRLF); keeps the raw request in seen_.
  absl::StatusOr<HttpResponse> Exchange(const HttpRequest& request, int code,
                                        const std::string& body,
                                        const std::string& extra_headers = "",
                                        const LineHandler* on_line = nullptr) {
    AsyncCall call(*transport_, request, cancel_, on_line);
    seen_ = server_.AcceptRequest();
    server_.Respond(code, body, extra_headers);
    return call.Join();
  }

  RawHttpServer server_;
  std::unique_ptr<CurlTransport> transport_ = Transport(server_.url());
  Cancellation cancel_;
  std::string seen_;
};

TEST_F(CurlTransportTest, SendsBearerTokenJsonHeadersAndBody) {
  HttpRequest request = Get("/api/v1/namespaces/a/secrets");
  request.method = "POST";
  request.body = R"({"kind":"Secret"})";
  ASSERT_OK_AND_ASSIGN(HttpResponse response, Exchange(request, 201, R"({"ok":true})"));
  EXPECT_EQ(response.status_code, 201);
  EXPECT_EQ(response.body, R"({"ok":true})");
  EXPECT_TRUE(absl::StartsWith(seen_, "POST /api/v1/namespaces/a/secrets HTTP/1.1\r\n")) << seen_;
  EXPECT_TRUE(absl::StrContains(seen_, std::string("Authorization: Bearer ") + kToken)) << seen_;
  EXPECT_TRUE(absl::StrContains(seen_, "Accept: application/json")) << seen_;
  EXPECT_TRUE(absl::StrContains(seen_, "Content-Type: application/json")) << seen_;
  EXPECT_TRUE(absl::EndsWith(seen_, R"({"kind":"Secret"})")) << seen_;
}

TEST_F(CurlTransportTest, RotatedTokenFileIsUsedOnTheNextRequest) {
  TempDir dir;
  ConnectionConfig config;
  config.token_file = WriteTestFile(dir.path() / "token", "token-one");
  transport_ = Transport(server_.url(), config);
  ASSERT_OK(Exchange(Get("/version"), 200, "{}"));
  std::string first = seen_;
  WriteTestFile(dir.path() / "token", "token-number-two");
  ASSERT_OK(Exchange(Get("/version"), 200, "{}"));
  EXPECT_TRUE(absl::StrContains(first, "Authorization: Bearer token-one\r\n")) << first;
  EXPECT_TRUE(absl::StrContains(seen_, "Authorization: Bearer token-number-two\r\n")) << seen_;
}

TEST_F(CurlTransportTest, BasicCredentialsAreSentWithTheFirstRequest) {
  ConnectionConfig config;
  config.server = server_.url();
  config.basic_username = "chart-reader";
  config.basic_password = "pw:with-colon";
  ASSERT_OK_AND_ASSIGN(transport_, CurlTransport::New(config));
  ASSERT_OK(Exchange(Get("/index.yaml"), 200, "{}"));
  std::string expected = absl::StrCat(
      "Authorization: Basic ", absl::Base64Escape("chart-reader:pw:with-colon"), "\r\n");
  EXPECT_TRUE(absl::StrContains(seen_, expected)) << seen_;
}

TEST_F(CurlTransportTest, StreamedLinesAreReassembledAcrossWrites) {
  std::vector<std::string> lines;
  LineHandler on_line = [&](absl::string_view line) {
    lines.emplace_back(line);
    return absl::OkStatus();
  };
  HttpRequest request = Get("/api/v1/secrets?watch=true");
  request.stream = true;
  AsyncCall call(*transport_, request, cancel_, &on_line);
  server_.AcceptRequest();
  server_.Write("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nConnection: close\r\n\r\n");
  server_.Write("{\"a\":1}\n{\"b\"");
  server_.Write(":2}\r\n\n{\"c\":3}");  // CRLF, an empty line, and a last line without newline
  server_.CloseConnection();
  ASSERT_OK_AND_ASSIGN(HttpResponse response, call.Join());
  EXPECT_EQ(response.status_code, 200);
  EXPECT_TRUE(response.body.empty());
  EXPECT_EQ(lines, (std::vector<std::string>{R"({"a":1})", R"({"b":2})", R"({"c":3})"}));
}

TEST_F(CurlTransportTest, ErrorResponseOfAStreamIsReturnedWhole) {
  LineHandler on_line = [](absl::string_view) { return absl::InternalError("no lines expected"); };
  HttpRequest request = Get("/api/v1/secrets?watch=true");
  request.stream = true;
  ASSERT_OK_AND_ASSIGN(HttpResponse response,
                       Exchange(request, 410, "{\"kind\":\"Status\"}\n{}\n", "", &on_line));
  EXPECT_EQ(response.status_code, 410);
  EXPECT_EQ(response.body, "{\"kind\":\"Status\"}\n{}\n");
}

TEST_F(CurlTransportTest, RetryAfterHeaderIsParsed) {
  ASSERT_OK_AND_ASSIGN(HttpResponse response,
                       Exchange(Get("/api"), 429, "{}", "Retry-After: 7\r\n"));
  EXPECT_EQ(response.status_code, 429);
  EXPECT_EQ(response.retry_after, absl::Seconds(7));
}

TEST_F(CurlTransportTest, RedirectsAreNotFollowed) {
  ASSERT_OK_AND_ASSIGN(HttpResponse response,
                       Exchange(Get("/api"), 302, "", "Location: http://127.0.0.1:1/steal\r\n"));
  EXPECT_EQ(response.status_code, 302);
}

TEST_F(CurlTransportTest, CancelInterruptsATransferBlockedOnTheServerPromptly) {
  HttpRequest request = Get("/api/v1/secrets?watch=true");
  request.stream = true;
  request.timeout = absl::Hours(1);
  LineHandler on_line = [](absl::string_view) { return absl::OkStatus(); };
  AsyncCall call(*transport_, request, cancel_, &on_line);
  ASSERT_FALSE(server_.AcceptRequest().empty());  // the client now waits for a response
  absl::Time start = absl::Now();
  cancel_.Cancel();
  absl::StatusOr<HttpResponse> response = call.Join();
  absl::Duration took = absl::Now() - start;
  EXPECT_EQ(response.status().code(), absl::StatusCode::kCancelled);
  EXPECT_LT(took, absl::Milliseconds(500));
}

TEST_F(CurlTransportTest, ConnectionRefusedIsUnavailableAndNeverShowsTheToken) {
  int port = 0;
  {
    RawHttpServer closed;  // bound, then closed: nothing listens on the port afterwards
    port = closed.port();
  }
  std::unique_ptr<CurlTransport> transport = Transport("http://127.0.0.1:" + std::to_string(port));
  absl::StatusOr<HttpResponse> response = transport->RoundTrip(Get("/api?x=1"), cancel_, nullptr);
  EXPECT_EQ(response.status().code(), absl::StatusCode::kUnavailable);
  EXPECT_TRUE(absl::StartsWith(response.status().message(), "GET /api: ")) << response.status();
  EXPECT_FALSE(absl::StrContains(response.status().message(), kToken));
}

TEST_F(CurlTransportTest, OversizedBodyIsResourceExhausted) {
  ConnectionConfig config;
  config.server = server_.url();
  CurlTransportOptions options;
  options.max_body_bytes = 10;
  ASSERT_OK_AND_ASSIGN(transport_, CurlTransport::New(config, options));
  absl::StatusOr<HttpResponse> response = Exchange(Get("/api"), 200, std::string(100, 'x'));
  EXPECT_EQ(response.status().code(), absl::StatusCode::kResourceExhausted);
}

TEST_F(CurlTransportTest, TransportWithoutServerIsRejected) {
  EXPECT_EQ(CurlTransport::New(ConnectionConfig{}).status().code(),
            absl::StatusCode::kInvalidArgument);
}

}  // namespace curl_transport_test
}  // namespace credledger::kubebridge
