#include "service/server/bounded_http_server.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <string>

#include "absl/time/clock.h"

namespace credledger::service {
namespace {

constexpr char kRefusal[] =
    "HTTP/1.1 503 Service Unavailable\r\nContent-Type: text/plain; charset=utf-8\r\n"
    "Content-Length: 21\r\nConnection: close\r\n\r\ntoo many connections\n";

// Waits until `fd` has `events` (POLLIN, POLLOUT) or `deadline` passes; false then, or when
// the connection failed.
bool WaitFor(int fd, short events, absl::Time deadline) {
  for (;;) {
    const int64_t wait_ms = absl::ToInt64Milliseconds(
        absl::Ceil(std::max(deadline - absl::Now(), absl::ZeroDuration()), absl::Milliseconds(1)));
    pollfd ready{fd, events, 0};
    const int n = poll(&ready, 1, static_cast<int>(std::min<int64_t>(wait_ms, 60'000)));
    if (n > 0) return (ready.revents & (events | POLLHUP)) != 0;
    if (n < 0 && errno != EINTR) return false;
    if (n == 0 && absl::Now() >= deadline) return false;
  }
}

// "ip", port of an address from getpeername or getsockname.
void IpAndPort(const sockaddr_storage& address, std::string& ip, int& port) {
  char text[INET6_ADDRSTRLEN] = {};
  if (address.ss_family == AF_INET) {
    const auto& v4 = reinterpret_cast<const sockaddr_in&>(address);
    inet_ntop(AF_INET, &v4.sin_addr, text, sizeof(text));
    port = ntohs(v4.sin_port);
  } else if (address.ss_family == AF_INET6) {
    const auto& v6 = reinterpret_cast<const sockaddr_in6&>(address);
    inet_ntop(AF_INET6, &v6.sin6_addr, text, sizeof(text));
    port = ntohs(v6.sin6_port);
  }
  ip = text;
}

// A connection as httplib reads and writes it, with a deadline on reads that the server
// moves per request, and a timeout per write.
class DeadlineStream final : public httplib::Stream {
 public:
  DeadlineStream(int fd, absl::Duration write_timeout) : fd_(fd), write_timeout_(write_timeout) {}

  // Reads fail once `deadline` has passed.
  void set_read_deadline(absl::Time deadline) { read_deadline_ = deadline; }

  // Whether a byte can be read before `deadline`.
  bool WaitReadable(absl::Time deadline) const {
    return begin_ < end_ || WaitFor(fd_, POLLIN, deadline);
  }

  bool is_readable() const override { return WaitReadable(read_deadline_); }
  bool is_writable() const override { return WaitFor(fd_, POLLOUT, absl::Now() + write_timeout_); }

  ssize_t read(char* ptr, size_t size) override {
    if (begin_ == end_) {
      if (!WaitReadable(read_deadline_)) return -1;
      ssize_t n;
      do {
        n = recv(fd_, buffer_, sizeof(buffer_), 0);
      } while (n < 0 && errno == EINTR);
      if (n <= 0) return n;
      begin_ = 0;
      end_ = static_cast<size_t>(n);
    }
    const size_t count = std::min(size, end_ - begin_);
    std::memcpy(ptr, buffer_ + begin_, count);
    begin_ += count;
    return static_cast<ssize_t>(count);
  }

  ssize_t write(const char* ptr, size_t size) override {
    if (!is_writable()) return -1;
    ssize_t n;
    do {
      n = send(fd_, ptr, size, MSG_NOSIGNAL);
    } while (n < 0 && errno == EINTR);
    return n;
  }

  void get_remote_ip_and_port(std::string& ip, int& port) const override {
    sockaddr_storage address{};
    socklen_t length = sizeof(address);
    if (getpeername(fd_, reinterpret_cast<sockaddr*>(&address), &length) == 0) {
      IpAndPort(address, ip, port);
    }
  }
  void get_local_ip_and_port(std::string& ip, int& port) const override {
    sockaddr_storage address{};
    socklen_t length = sizeof(address);
    if (getsockname(fd_, reinterpret_cast<sockaddr*>(&address), &length) == 0) {
      IpAndPort(address, ip, port);
    }
  }
  socket_t socket() const override { return fd_; }

 private:
  const int fd_;
  const absl::Duration write_timeout_;
  absl::Time read_deadline_ = absl::InfinitePast();
  char buffer_[4096];
  size_t begin_ = 0;
  size_t end_ = 0;
};

}  // namespace

BoundedHttpServer::BoundedHttpServer(HttpLimits limits) : limits_(limits) {
  new_task_queue = [workers = limits.max_connections + kSpareWorkers] {
    return new httplib::ThreadPool(workers);
  };
}

bool BoundedHttpServer::process_and_close_socket(socket_t sock) {
  bool served = false;
  if (connections_.fetch_add(1) < limits_.max_connections) {
    DeadlineStream stream(sock, limits_.write_timeout);
    for (size_t n = 1; n <= limits_.max_requests_per_connection; ++n) {
      if (svr_sock_ == INVALID_SOCKET || !stream.WaitReadable(absl::Now() + limits_.idle_timeout))
        break;
      stream.set_read_deadline(absl::Now() + limits_.request_timeout);
      bool closed = false;
      served = process_request(stream, n == limits_.max_requests_per_connection, closed, nullptr);
      if (!served || closed) break;
    }
  } else {
    // Best effort: a client that does not take it at once gets the close alone.
    send(sock, kRefusal, sizeof(kRefusal) - 1, MSG_NOSIGNAL | MSG_DONTWAIT);
  }
  connections_.fetch_sub(1);
  shutdown(sock, SHUT_RDWR);
  close(sock);
  return served;
}

}  // namespace credledger::service
