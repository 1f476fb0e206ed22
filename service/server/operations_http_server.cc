#include "service/server/operations_http_server.h"

#include <httplib.h>
#include <sys/socket.h>

#include <algorithm>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "absl/time/clock.h"
#include "common/metric_text.h"
#include "common/terminal_text.h"
#include "common/url.h"
#include "service/server/bounded_http_server.h"

namespace credledger::service {
namespace {

constexpr char kFlag[] = "--http-listen";
constexpr char kPlainText[] = "text/plain; charset=utf-8";
// Paths this server answers; other methods than GET and HEAD on them are 405.
constexpr absl::string_view kPaths[] = {"/metrics", "/healthz", "/readyz"};
constexpr size_t kMaxBodyBytes = 1024;
constexpr absl::Duration kStartTimeout = absl::Seconds(10);

// `text` on one printable line: terminal controls escaped, line breaks as spaces.
std::string OneLine(absl::string_view text) {
  return absl::StrReplaceAll(common::TerminalSafe(text), {{"\n", " "}, {"\r", " "}});
}

absl::Status BadAddress(absl::string_view address, absl::string_view rule) {
  return absl::InvalidArgumentError(absl::StrCat(kFlag, ": \"", OneLine(address), "\" ", rule));
}

}  // namespace

absl::StatusOr<HttpListenAddress> ParseHttpListenAddress(absl::string_view address) {
  absl::StatusOr<common::HostPort> split = common::SplitHostPort(address, /*min_port=*/0);
  if (!split.ok()) {
    return BadAddress(address, absl::StrCat(split.status().message(),
                                            "; e.g. 0.0.0.0:9464 or [::]:9464, port 0 lets "
                                            "the kernel choose"));
  }
  return HttpListenAddress{std::move(split->host), split->port};
}

OperationsHttpServer::OperationsHttpServer(const common::MetricsRegistry* registry,
                                           const Readiness* readiness, const HttpLimits& limits)
    : registry_(registry),
      readiness_(readiness),
      server_(std::make_unique<BoundedHttpServer>(limits)) {}

absl::StatusOr<std::unique_ptr<OperationsHttpServer>> OperationsHttpServer::Start(
    absl::string_view address, const common::MetricsRegistry* registry, const Readiness* readiness,
    const HttpLimits& limits) {
  absl::StatusOr<HttpListenAddress> listen = ParseHttpListenAddress(address);
  if (!listen.ok()) return listen.status();
  auto server =
      std::unique_ptr<OperationsHttpServer>(new OperationsHttpServer(registry, readiness, limits));
  httplib::Server& http = *server->server_;
  http.set_payload_max_length(kMaxBodyBytes);
  // Without it, a response written as headers and then body waits for the client's delayed
  // ACK (about 40 ms; docs/performance.md).
  http.set_tcp_nodelay(true);
  // SO_REUSEADDR only, so that a restart binds at once: httplib's default SO_REUSEPORT would
  // let a second process bind the same port and take part of the requests.
  http.set_socket_options([](socket_t sock) {
    int yes = 1;
    setsockopt(sock, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof(yes));
  });
  server->InstallHandlers();
  server->port_ = listen->port == 0
                      ? http.bind_to_any_port(listen->host)
                      : (http.bind_to_port(listen->host, listen->port) ? listen->port : -1);
  if (server->port_ <= 0) {
    return absl::UnavailableError(
        absl::StrCat(kFlag, ": cannot listen on \"", OneLine(address), "\""));
  }
  server->thread_ = std::thread([&http] { http.listen_after_bind(); });
  // Stop before the accept loop runs would not end it: wait until it does. The socket
  // already listens, so no client is refused meanwhile.
  const absl::Time give_up = absl::Now() + kStartTimeout;
  while (!http.is_running() && absl::Now() < give_up) absl::SleepFor(absl::Milliseconds(1));
  if (!http.is_running()) {
    return absl::InternalError(
        absl::StrCat(kFlag, ": the HTTP server on \"", OneLine(address), "\" did not start"));
  }
  return server;
}

OperationsHttpServer::~OperationsHttpServer() { Stop(); }

void OperationsHttpServer::Stop() {
  if (!thread_.joinable()) return;
  server_->stop();
  thread_.join();
}

void OperationsHttpServer::InstallHandlers() {
  server_->Get("/metrics", [this](const httplib::Request&, httplib::Response& res) {
    res.set_content(registry_->Render(), common::kExpositionContentType);
  });
  server_->Get("/healthz", [](const httplib::Request&, httplib::Response& res) {
    res.set_content("ok\n", kPlainText);
  });
  server_->Get("/readyz", [this](const httplib::Request&, httplib::Response& res) {
    const absl::Status ready = readiness_->Evaluate();
    if (ready.ok()) {
      std::string body = "ok\n";
      for (const std::string& notice : readiness_->Notices()) {
        absl::StrAppend(&body, OneLine(notice), "\n");
      }
      res.set_content(body, kPlainText);
      return;
    }
    res.status = 503;
    res.set_content(absl::StrCat("not ready: ", OneLine(ready.message()), "\n"), kPlainText);
  });
  // Before any body is read, so that a POST without Content-Length is a 405 too, and a
  // request that announces a body (none of these paths takes one) is refused before a byte
  // of it is read: a GET with a huge or endless chunked body must not fill the memory.
  server_->set_pre_routing_handler([](const httplib::Request& req, httplib::Response& res) {
    const bool known =
        std::find(std::begin(kPaths), std::end(kPaths), req.path) != std::end(kPaths);
    if (known && req.method != "GET" && req.method != "HEAD") {
      res.status = 405;
      res.set_header("Allow", "GET, HEAD");
      res.set_content("method not allowed\n", kPlainText);
      return httplib::Server::HandlerResponse::Handled;
    }
    const std::string length = req.get_header_value("Content-Length");
    if (req.has_header("Transfer-Encoding") || (!length.empty() && length != "0")) {
      res.status = known ? 413 : 404;
      res.set_header("Connection", "close");
      res.set_content(known ? "request bodies are not accepted\n" : "not found\n", kPlainText);
      return httplib::Server::HandlerResponse::Handled;
    }
    return httplib::Server::HandlerResponse::Unhandled;
  });
}

}  // namespace credledger::service
