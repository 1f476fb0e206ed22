// CredentialProvider: a credential provider service for execPlugin tests
// (docs/connections.md, "execPlugin"): a cpp-httplib HTTPS server on 127.0.0.1 with a CA of
// its own, which records every request and answers with what the test configured.
#pragma once

#include <httplib.h>

#include <memory>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/clock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "test/kubeapi/tls_material.h"

namespace credledger::kubebridge {

// An ExecCredential answer with `status`.
inline std::string ExecCredentialAnswer(const nlohmann::json& status) {
  return nlohmann::json{{"apiVersion", "client.authentication.k8s.io/v1"},
                        {"kind", "ExecCredential"},
                        {"status", status}}
      .dump();
}

// One request the provider received.
struct ProviderRequest {
  std::string authorization;
  std::string content_type;
  std::string path;
  std::string audience;  // the `audience` query parameter
  nlohmann::json body;
};

// A credential provider over HTTPS on 127.0.0.1 with a CA of its own. A request without
// "Authorization: Bearer <expected token>" gets 401 with a body that echoes what was sent;
// every other request gets the configured answer.
class CredentialProvider {
 public:
  // Expects "Authorization: Bearer <expected_token>".
  explicit CredentialProvider(std::string expected_token)
      : expected_token_(std::move(expected_token)) {
    absl::StatusOr<kubeapi::TlsMaterial> tls =
        kubeapi::GenerateTlsMaterial({"localhost"}, {"127.0.0.1"});
    EXPECT_TRUE(tls.ok()) << tls.status();
    tls_ = *std::move(tls);
    server_ = std::make_unique<httplib::SSLServer>(tls_.server_cert.get(), tls_.server_key.get());
    server_->set_tcp_nodelay(true);
    server_->set_keep_alive_max_count(1);
    server_->Post(
        ".*", [this](const httplib::Request& req, httplib::Response& res) { Handle(req, res); });
    port_ = server_->bind_to_any_port("127.0.0.1");
    thread_ = std::thread([this] { server_->listen_after_bind(); });
    const absl::Time give_up = absl::Now() + absl::Seconds(20);
    while (!server_->is_running() && absl::Now() < give_up) std::this_thread::yield();
    EXPECT_TRUE(server_->is_running());
  }
  ~CredentialProvider() {
    server_->stop();
    thread_.join();
  }

  const std::string& ca_pem() const { return tls_.ca_cert_pem; }
  // The provider's URL with `path_and_query`.
  std::string Url(const std::string& path_and_query) const {
    return absl::StrCat("https://127.0.0.1:", port_, path_and_query);
  }
  void ExpectToken(std::string token) {
    absl::MutexLock lock(&mu_);
    expected_token_ = std::move(token);
  }
  // What every authorized request gets from now on.
  void Respond(int status, std::string body, std::string location = "") {
    absl::MutexLock lock(&mu_);
    status_ = status;
    body_ = std::move(body);
    location_ = std::move(location);
  }
  std::vector<ProviderRequest> requests() const {
    absl::MutexLock lock(&mu_);
    return requests_;
  }
  // While held, each request is recorded, and answered (with the answer configured when it
  // arrived) only once Hold(false) is called.
  void Hold(bool held) {
    absl::MutexLock lock(&mu_);
    held_ = held;
  }
  // True once at least `n` requests were received, false when `timeout` passes first.
  bool WaitForRequests(size_t n, absl::Duration timeout) const {
    absl::MutexLock lock(&mu_);
    const auto received = [this, n]() { return requests_.size() >= n; };
    return mu_.AwaitWithTimeout(absl::Condition(&received), timeout);
  }

 private:
  void Handle(const httplib::Request& req, httplib::Response& res) {
    absl::MutexLock lock(&mu_);
    ProviderRequest seen;
    seen.authorization = req.get_header_value("Authorization");
    seen.content_type = req.get_header_value("Content-Type");
    seen.path = req.path;
    seen.audience = req.get_param_value("audience");
    seen.body = nlohmann::json::parse(req.body, nullptr, /*allow_exceptions=*/false);
    requests_.push_back(seen);
    // The answer configured when the request arrived, even when it is held.
    if (seen.authorization != absl::StrCat("Bearer ", expected_token_)) {
      res.status = 401;
      res.set_content(absl::StrCat(R"({"error":"unknown token: )", seen.authorization, R"("})"),
                      "application/json");
    } else {
      res.status = status_;
      if (!location_.empty()) res.set_header("Location", location_);
      res.set_content(body_, "application/json");
    }
    const auto released = [this]() { return !held_; };
    mu_.Await(absl::Condition(&released));
  }

  kubeapi::TlsMaterial tls_;
  std::unique_ptr<httplib::SSLServer> server_;
  int port_ = 0;
  std::thread thread_;
  mutable absl::Mutex mu_;
  std::string expected_token_ ABSL_GUARDED_BY(mu_);
  int status_ ABSL_GUARDED_BY(mu_) = 500;
  std::string body_ ABSL_GUARDED_BY(mu_);
  std::string location_ ABSL_GUARDED_BY(mu_);
  std::vector<ProviderRequest> requests_ ABSL_GUARDED_BY(mu_);
  bool held_ ABSL_GUARDED_BY(mu_) = false;
};

}  // namespace credledger::kubebridge
