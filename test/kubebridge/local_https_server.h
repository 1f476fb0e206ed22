// LocalHttpsServer: a cpp-httplib HTTPS server on 127.0.0.1 (port 0) with a private CA
// from GenerateTlsMaterial, standing in for a Helm repository or an OCI registry in the
// source verification tests.
//
// It answers GETs from a table of fixed responses keyed by exact path (404 for any other
// path), records the path and Authorization header of every request, and, like a real
// repository, answers 401 when a required Authorization value is set and the request's
// differs from it.
//
// Thread-safety: the setters and requests() may be called while the server runs.
#pragma once

#include <httplib.h>

#include <map>
#include <memory>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/clock.h"
#include "gtest/gtest.h"
#include "test/kubeapi/tls_material.h"

namespace credledger::kubebridge {

class LocalHttpsServer {
 public:
  // What the server received.
  struct Seen {
    std::string path;
    std::string authorization;  // "" when the request had none
  };

  // Starts a server with a fresh CA; a certificate for localhost and 127.0.0.1. Adds a
  // test failure and returns null when it cannot start.
  static std::unique_ptr<LocalHttpsServer> Start() {
    absl::StatusOr<kubeapi::TlsMaterial> tls =
        kubeapi::GenerateTlsMaterial({"localhost"}, {"127.0.0.1"});
    if (!tls.ok()) {
      ADD_FAILURE() << tls.status();
      return nullptr;
    }
    std::unique_ptr<LocalHttpsServer> server(new LocalHttpsServer(*std::move(tls)));
    if (!server->Listen()) return nullptr;
    return server;
  }

  ~LocalHttpsServer() {
    server_.stop();
    if (thread_.joinable()) thread_.join();
  }
  LocalHttpsServer(const LocalHttpsServer&) = delete;
  LocalHttpsServer& operator=(const LocalHttpsServer&) = delete;

  // Answers GET `path` with `status` and `body`.
  void Respond(const std::string& path, int status, std::string body = "") {
    absl::MutexLock lock(&mu_);
    responses_[path] = {status, std::move(body)};
  }

  // Requests whose Authorization header is not exactly `value` get 401.
  void RequireAuthorization(std::string value) {
    absl::MutexLock lock(&mu_);
    required_authorization_ = std::move(value);
  }

  std::vector<Seen> requests() const {
    absl::MutexLock lock(&mu_);
    return seen_;
  }

  // "https://127.0.0.1:<port>".
  std::string url() const { return absl::StrCat("https://127.0.0.1:", port_); }
  int port() const { return port_; }
  // PEM of the CA that signed the server certificate.
  const std::string& ca_pem() const { return tls_.ca_cert_pem; }

 private:
  struct Answer {
    int status = 404;
    std::string body;
  };

  explicit LocalHttpsServer(kubeapi::TlsMaterial tls)
      : tls_(std::move(tls)), server_(tls_.server_cert.get(), tls_.server_key.get()) {}

  bool Listen() {
    if (!server_.is_valid()) {
      ADD_FAILURE() << "TLS server setup failed";
      return false;
    }
    server_.set_tcp_nodelay(true);
    server_.Get(".*", [this](const httplib::Request& req, httplib::Response& res) {
      Answer answer = Handle(req.path, req.get_header_value("Authorization"));
      res.status = answer.status;
      res.set_content(answer.body, "application/octet-stream");
    });
    port_ = server_.bind_to_any_port("127.0.0.1");
    if (port_ <= 0) {
      ADD_FAILURE() << "cannot bind 127.0.0.1";
      return false;
    }
    thread_ = std::thread([this] { server_.listen_after_bind(); });
    // Explicit wait with a deadline for the accept loop to start (stop() before that would
    // leave listen_after_bind running).
    absl::Time give_up = absl::Now() + absl::Seconds(10);
    while (!server_.is_running() && absl::Now() < give_up) absl::SleepFor(absl::Milliseconds(1));
    if (!server_.is_running()) {
      ADD_FAILURE() << "server did not start listening";
      return false;
    }
    return true;
  }

  Answer Handle(const std::string& path, const std::string& authorization) {
    absl::MutexLock lock(&mu_);
    seen_.push_back({path, authorization});
    if (!required_authorization_.empty() && authorization != required_authorization_) {
      return {401, "unauthorized"};
    }
    auto it = responses_.find(path);
    return it == responses_.end() ? Answer{404, "not found"} : it->second;
  }

  kubeapi::TlsMaterial tls_;
  httplib::SSLServer server_;
  int port_ = 0;
  std::thread thread_;
  mutable absl::Mutex mu_;
  std::map<std::string, Answer> responses_ ABSL_GUARDED_BY(mu_);
  std::string required_authorization_ ABSL_GUARDED_BY(mu_);
  std::vector<Seen> seen_ ABSL_GUARDED_BY(mu_);
};

}  // namespace credledger::kubebridge
