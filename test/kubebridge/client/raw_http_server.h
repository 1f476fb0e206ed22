// RawHttpServer: a one-connection-at-a-time plain-HTTP peer on 127.0.0.1:<port 0> for
// CurlTransport tests. The test thread plays the server: it accepts a connection, reads
// the request, then writes whatever bytes the test wants (including partial or no
// responses). Every blocking call has a deadline so a broken test fails instead of hanging.
#pragma once

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <string>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"

namespace credledger::kubebridge {

class RawHttpServer {
 public:
  RawHttpServer() {
    listen_fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    addr.sin_port = 0;
    ::bind(listen_fd_, reinterpret_cast<sockaddr*>(&addr), sizeof(addr));
    ::listen(listen_fd_, 16);
    socklen_t len = sizeof(addr);
    ::getsockname(listen_fd_, reinterpret_cast<sockaddr*>(&addr), &len);
    port_ = ntohs(addr.sin_port);
  }
  ~RawHttpServer() {
    CloseConnection();
    if (listen_fd_ >= 0) ::close(listen_fd_);
  }
  RawHttpServer(const RawHttpServer&) = delete;
  RawHttpServer& operator=(const RawHttpServer&) = delete;

  int port() const { return port_; }
  std::string url() const { return "http://127.0.0.1:" + std::to_string(port_); }

  // Accepts the next connection and reads one request (headers and Content-Length body).
  // Returns the raw request text, or "" when nothing arrived within `limit`.
  std::string AcceptRequest(absl::Duration limit = absl::Seconds(20)) {
    CloseConnection();
    if (!WaitReadable(listen_fd_, limit)) return "";
    conn_fd_ = ::accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC);
    std::string request;
    absl::Time deadline = absl::Now() + limit;
    while (true) {
      size_t header_end = request.find("\r\n\r\n");
      if (header_end != std::string::npos &&
          request.size() >= header_end + 4 + ContentLength(request)) {
        return request;
      }
      if (!WaitReadable(conn_fd_, deadline - absl::Now())) return request;
      char buffer[4096];
      ssize_t n = ::read(conn_fd_, buffer, sizeof(buffer));
      if (n <= 0) return request;
      request.append(buffer, static_cast<size_t>(n));
    }
  }

  // Writes raw bytes to the current connection.
  void Write(const std::string& bytes) {
    size_t done = 0;
    while (done < bytes.size()) {
      ssize_t n = ::send(conn_fd_, bytes.data() + done, bytes.size() - done, MSG_NOSIGNAL);
      if (n <= 0) return;
      done += static_cast<size_t>(n);
    }
  }

  // Writes a complete response that closes the connection afterwards.
  void Respond(int code, const std::string& body, const std::string& extra_headers = "") {
    Write("HTTP/1.1 " + std::to_string(code) + " X\r\nContent-Type: application/json\r\n" +
          "Content-Length: " + std::to_string(body.size()) + "\r\nConnection: close\r\n" +
          extra_headers + "\r\n" + body);
    CloseConnection();
  }

  void CloseConnection() {
    if (conn_fd_ >= 0) ::close(conn_fd_);
    conn_fd_ = -1;
  }

 private:
  static bool WaitReadable(int fd, absl::Duration limit) {
    pollfd p{fd, POLLIN, 0};
    int ms = static_cast<int>(std::max<int64_t>(0, absl::ToInt64Milliseconds(limit)));
    return ::poll(&p, 1, ms) == 1;
  }

  static size_t ContentLength(const std::string& request) {
    std::string lower = absl::AsciiStrToLower(request);
    size_t at = lower.find("\r\ncontent-length:");
    if (at == std::string::npos) return 0;
    size_t start = at + 17;
    size_t end = lower.find("\r\n", start);
    size_t length = 0;
    if (!absl::SimpleAtoi(absl::StripAsciiWhitespace(lower.substr(start, end - start)), &length)) {
      return 0;
    }
    return length;
  }

  int listen_fd_ = -1;
  int conn_fd_ = -1;
  int port_ = 0;
};

}  // namespace credledger::kubebridge
