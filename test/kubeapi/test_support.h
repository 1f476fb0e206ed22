// Test support for the test API server's contract tests: a fixture that starts an
// ApiServer on port 0 in a fresh temporary folder with a FakeClock, a plain HTTPS client
// (cpp-httplib SSLClient trusting the server's CA), a watch reader that collects events on
// a background thread, and fixture matching against hand-written JSON files in
// test/testdata/kubeapi/.
//
// Fixture files are the expected JSON. A string value may be a placeholder that matches a
// class of values: "{{uid}}" (RFC 4122 v4, lowercase), "{{rv}}" (decimal resourceVersion),
// "{{time}}" (RFC 3339 seconds with Z), "{{jwt}}" (three base64url segments), "{{any}}"
// (any value). "${NAME}" inside a string is replaced by the caller's variable NAME before
// comparing. Objects must have exactly the fixture's keys.
#pragma once

#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "common/clock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "test/kubeapi/api_server.h"

namespace httplib {
class SSLClient;
}

namespace credledger::kubeapi::testing {

// One HTTP exchange.
struct Reply {
  int status = 0;            // 0 when the request failed before a response
  nlohmann::json body;       // parsed JSON body (discarded value when not JSON)
  std::string raw;           // the raw body
  std::multimap<std::string, std::string> headers;
};

// A plain HTTPS client for one server, authenticating with `token` ("" = anonymous) or a
// client certificate.
// Not thread-safe; use one per thread.
class Client {
 public:
  Client(const ApiServer& server, std::string token);
  // A client that authenticates with `certificate` (and no token).
  Client(const ApiServer& server, const ClientCertificate& certificate);
  ~Client();
  Client(Client&&) noexcept;

  Reply Get(const std::string& path);
  Reply Post(const std::string& path, const nlohmann::json& body);
  Reply Put(const std::string& path, const nlohmann::json& body);
  Reply Patch(const std::string& path, const nlohmann::json& body,
              const std::string& content_type = "application/merge-patch+json");
  Reply Delete(const std::string& path, const nlohmann::json& body = nullptr);
  // Any method with a raw body and content type.
  Reply Send(const std::string& method, const std::string& path, const std::string& body,
             const std::string& content_type);
  // How long a request waits for the answer (default 30 s); a request that gets none in
  // time ends with Reply::status 0.
  void SetReadTimeout(absl::Duration timeout);
  // Sends `user_agent` as the User-Agent of every later request (default: none).
  void SetUserAgent(const std::string& user_agent);

 private:
  std::unique_ptr<httplib::SSLClient> client_;
  std::string token_;
};

// Runs one watch request on a background thread and collects its events.
class WatchReader {
 public:
  // Starts GET `path_and_query` (which should include watch=true) with `token`.
  WatchReader(const ApiServer& server, const std::string& token, std::string path_and_query);
  ~WatchReader();  // cancels the request and joins

  // Waits until at least `count` events arrived or `timeout` (real time) passed; returns
  // the events received so far.
  std::vector<nlohmann::json> WaitForEvents(size_t count,
                                            absl::Duration timeout = absl::Seconds(10));
  // Waits until the response ended; true when it did within `timeout`.
  bool WaitForEnd(absl::Duration timeout = absl::Seconds(10));
  std::vector<nlohmann::json> events() const;
  int status() const;  // the HTTP status once headers arrived, else 0
  // True once the response ended with the end of its chunked body (the server ended the
  // watch); false while it runs, and when the connection was cut or the request failed.
  bool complete() const;

 private:
  void Run(const ApiServer* server, std::string token, std::string path);

  std::unique_ptr<httplib::SSLClient> client_;
  mutable absl::Mutex mu_;
  std::string buffer_ ABSL_GUARDED_BY(mu_);
  std::vector<nlohmann::json> events_ ABSL_GUARDED_BY(mu_);
  int status_ ABSL_GUARDED_BY(mu_) = 0;
  bool ended_ ABSL_GUARDED_BY(mu_) = false;
  bool complete_ ABSL_GUARDED_BY(mu_) = false;
  std::thread thread_;
};

// Loads test/testdata/kubeapi/<name>; fails the test when it is missing or not JSON.
nlohmann::json LoadFixture(const std::string& name);

// Compares `actual` with fixture `name` after substituting `vars` (see above).
::testing::AssertionResult MatchesFixture(const nlohmann::json& actual, const std::string& name,
                                          const std::map<std::string, std::string>& vars = {});

// Compares `actual` with an expected JSON value using the same placeholder rules.
::testing::AssertionResult MatchesJson(const nlohmann::json& actual,
                                       const nlohmann::json& expected);

// Base fixture: starts a server before each test (Options() may be overridden) and offers
// helpers that set up objects as the admin.
class ApiServerTest : public ::testing::Test {
 protected:
  void SetUp() override;
  void TearDown() override;
  // The options the server starts with: temp state dir, clock_, defaults otherwise.
  virtual ApiServerOptions Options();

  Client Admin() { return Client(*server_, server_->admin_token()); }
  Client As(const std::string& token) { return Client(*server_, token); }

  // Creates objects as the admin and asserts success (status 201); returns the object.
  nlohmann::json CreateNamespace(const std::string& name);
  nlohmann::json CreateSecret(const std::string& ns, const std::string& name,
                              const nlohmann::json& labels = nlohmann::json::object());
  nlohmann::json CreateServiceAccount(const std::string& ns, const std::string& name);
  // POSTs `object` to `collection_path` as the admin and asserts 201.
  nlohmann::json CreateObject(const std::string& collection_path, const nlohmann::json& object);
  // Issues a token for ServiceAccount ns/sa, bound to Secret `secret` unless empty.
  std::string IssueToken(const std::string& ns, const std::string& sa,
                         const std::string& secret = "", int64_t expiration_seconds = 3600);

  common::FakeClock clock_;
  std::filesystem::path dir_;
  std::unique_ptr<ApiServer> server_;
};

}  // namespace credledger::kubeapi::testing
