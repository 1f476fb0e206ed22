#include "test/kubeapi/test_support.h"

#include <httplib.h>
#include <openssl/pem.h>

#include <fstream>
#include <regex>
#include <sstream>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"

namespace credledger::kubeapi::testing {
namespace {

// A client presenting `certificate` (PEM); one without it (and a test failure) when it
// does not parse.
std::unique_ptr<httplib::SSLClient> NewCertificateClient(const ApiServer& server,
                                                         const ClientCertificate& certificate) {
  auto read_bio = [](const std::string& pem) {
    return std::unique_ptr<BIO, decltype(&BIO_free)>(
        BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size())), &BIO_free);
  };
  auto cert_bio = read_bio(certificate.certificate_pem);
  auto key_bio = read_bio(certificate.key_pem);
  X509Ptr cert(PEM_read_bio_X509(cert_bio.get(), nullptr, nullptr, nullptr));
  EvpPkeyPtr key(PEM_read_bio_PrivateKey(key_bio.get(), nullptr, nullptr, nullptr));
  if (!cert || !key) {
    ADD_FAILURE() << "the client certificate or key is not PEM";
    return std::make_unique<httplib::SSLClient>("127.0.0.1", server.port());
  }
  // SSLClient takes its own references to the certificate and key.
  return std::make_unique<httplib::SSLClient>("127.0.0.1", server.port(), cert.get(), key.get());
}

void Configure(const ApiServer& server, httplib::SSLClient& client) {
  client.set_ca_cert_path(server.ca_path().string());
  client.enable_server_certificate_verification(true);
  client.set_connection_timeout(10);
  client.set_read_timeout(30);
  client.set_write_timeout(30);
}

std::unique_ptr<httplib::SSLClient> NewClient(const ApiServer& server) {
  auto client = std::make_unique<httplib::SSLClient>("127.0.0.1", server.port());
  Configure(server, *client);
  return client;
}

httplib::Headers AuthHeaders(const std::string& token) {
  httplib::Headers headers;
  if (!token.empty()) headers.emplace("Authorization", "Bearer " + token);
  return headers;
}

Reply ToReply(const httplib::Result& result) {
  Reply reply;
  if (!result) return reply;
  reply.status = result->status;
  reply.raw = result->body;
  reply.body = nlohmann::json::parse(result->body, nullptr, false);
  for (const auto& [k, v] : result->headers) reply.headers.emplace(k, v);
  return reply;
}

std::string Describe(const nlohmann::json& j) { return j.dump(); }

bool MatchPlaceholder(const std::string& pattern, const nlohmann::json& actual) {
  if (pattern == "{{any}}") return true;
  if (!actual.is_string()) return false;
  const std::string& s = actual.get_ref<const std::string&>();
  static const std::regex kUid("^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$");
  static const std::regex kRv("^[1-9][0-9]*$");
  static const std::regex kTime("^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}Z$");
  static const std::regex kJwt("^[A-Za-z0-9_-]+\\.[A-Za-z0-9_-]+\\.[A-Za-z0-9_-]+$");
  if (pattern == "{{uid}}") return std::regex_match(s, kUid);
  if (pattern == "{{rv}}") return std::regex_match(s, kRv);
  if (pattern == "{{time}}") return std::regex_match(s, kTime);
  if (pattern == "{{jwt}}") return std::regex_match(s, kJwt);
  return false;
}

bool IsPlaceholder(const nlohmann::json& v) {
  if (!v.is_string()) return false;
  const std::string& s = v.get_ref<const std::string&>();
  return s.size() > 4 && s.rfind("{{", 0) == 0 && s.substr(s.size() - 2) == "}}";
}

// Returns "" when equal, else the first difference found at `path`.
std::string Diff(const nlohmann::json& actual, const nlohmann::json& expected,
                 const std::string& path) {
  if (IsPlaceholder(expected)) {
    return MatchPlaceholder(expected.get<std::string>(), actual)
               ? ""
               : absl::StrCat(path, ": ", Describe(actual), " does not match ", Describe(expected));
  }
  if (expected.is_object()) {
    if (!actual.is_object()) return absl::StrCat(path, ": expected an object, got ", Describe(actual));
    for (const auto& [key, value] : expected.items()) {
      if (!actual.contains(key)) return absl::StrCat(path, ": missing key \"", key, "\"");
      std::string d = Diff(actual[key], value, absl::StrCat(path, ".", key));
      if (!d.empty()) return d;
    }
    for (const auto& [key, value] : actual.items()) {
      if (!expected.contains(key)) {
        return absl::StrCat(path, ": unexpected key \"", key, "\" = ", Describe(value));
      }
    }
    return "";
  }
  if (expected.is_array()) {
    if (!actual.is_array() || actual.size() != expected.size()) {
      return absl::StrCat(path, ": expected ", Describe(expected), ", got ", Describe(actual));
    }
    for (size_t i = 0; i < expected.size(); ++i) {
      std::string d = Diff(actual[i], expected[i], absl::StrCat(path, "[", i, "]"));
      if (!d.empty()) return d;
    }
    return "";
  }
  return actual == expected
             ? ""
             : absl::StrCat(path, ": expected ", Describe(expected), ", got ", Describe(actual));
}

nlohmann::json Substitute(const nlohmann::json& j, const std::map<std::string, std::string>& vars) {
  if (j.is_string()) {
    std::string s = j.get<std::string>();
    for (const auto& [name, value] : vars) s = absl::StrReplaceAll(s, {{"${" + name + "}", value}});
    return s;
  }
  if (j.is_object()) {
    nlohmann::json out = nlohmann::json::object();
    for (const auto& [key, value] : j.items()) out[key] = Substitute(value, vars);
    return out;
  }
  if (j.is_array()) {
    nlohmann::json out = nlohmann::json::array();
    for (const auto& v : j) out.push_back(Substitute(v, vars));
    return out;
  }
  return j;
}

}  // namespace

Client::Client(const ApiServer& server, std::string token)
    : client_(NewClient(server)), token_(std::move(token)) {}
Client::Client(const ApiServer& server, const ClientCertificate& certificate)
    : client_(NewCertificateClient(server, certificate)) {
  Configure(server, *client_);
}
Client::~Client() = default;
Client::Client(Client&&) noexcept = default;

Reply Client::Get(const std::string& path) { return ToReply(client_->Get(path, AuthHeaders(token_))); }

Reply Client::Post(const std::string& path, const nlohmann::json& body) {
  return Send("POST", path, body.dump(), "application/json");
}

Reply Client::Put(const std::string& path, const nlohmann::json& body) {
  return Send("PUT", path, body.dump(), "application/json");
}

Reply Client::Patch(const std::string& path, const nlohmann::json& body,
                    const std::string& content_type) {
  return Send("PATCH", path, body.dump(), content_type);
}

Reply Client::Delete(const std::string& path, const nlohmann::json& body) {
  if (body.is_null()) return ToReply(client_->Delete(path, AuthHeaders(token_)));
  return Send("DELETE", path, body.dump(), "application/json");
}

void Client::SetReadTimeout(absl::Duration timeout) {
  client_->set_read_timeout(std::chrono::microseconds(absl::ToInt64Microseconds(timeout)));
}

void Client::SetUserAgent(const std::string& user_agent) {
  client_->set_default_headers({{"User-Agent", user_agent}});
}

Reply Client::Send(const std::string& method, const std::string& path, const std::string& body,
                   const std::string& content_type) {
  httplib::Headers headers = AuthHeaders(token_);
  if (method == "POST") return ToReply(client_->Post(path, headers, body, content_type));
  if (method == "PUT") return ToReply(client_->Put(path, headers, body, content_type));
  if (method == "PATCH") return ToReply(client_->Patch(path, headers, body, content_type));
  if (method == "DELETE") return ToReply(client_->Delete(path, headers, body, content_type));
  return ToReply(client_->Get(path, headers));
}

WatchReader::WatchReader(const ApiServer& server, const std::string& token,
                         std::string path_and_query)
    : client_(NewClient(server)) {
  client_->set_read_timeout(300);
  thread_ = std::thread([this, token, path = std::move(path_and_query)] {
    auto on_response = [this](const httplib::Response& response) {
      absl::MutexLock lock(&mu_);
      status_ = response.status;
      return true;
    };
    auto on_data = [this](const char* data, size_t length) {
      absl::MutexLock lock(&mu_);
      buffer_.append(data, length);
      size_t newline;
      while ((newline = buffer_.find('\n')) != std::string::npos) {
        events_.push_back(nlohmann::json::parse(buffer_.substr(0, newline), nullptr, false));
        buffer_.erase(0, newline + 1);
      }
      return true;
    };
    httplib::Result result = client_->Get(path, AuthHeaders(token), on_response, on_data);
    absl::MutexLock lock(&mu_);
    ended_ = true;
    complete_ = static_cast<bool>(result);
  });
}

WatchReader::~WatchReader() {
  client_->stop();
  thread_.join();
}

std::vector<nlohmann::json> WatchReader::WaitForEvents(size_t count, absl::Duration timeout) {
  absl::MutexLock lock(&mu_);
  auto enough = [&]() ABSL_SHARED_LOCKS_REQUIRED(mu_) { return events_.size() >= count || ended_; };
  mu_.AwaitWithTimeout(absl::Condition(&enough), timeout);
  return events_;
}

bool WatchReader::WaitForEnd(absl::Duration timeout) {
  absl::MutexLock lock(&mu_);
  return mu_.AwaitWithTimeout(absl::Condition(&ended_), timeout);
}

std::vector<nlohmann::json> WatchReader::events() const {
  absl::MutexLock lock(&mu_);
  return events_;
}

int WatchReader::status() const {
  absl::MutexLock lock(&mu_);
  return status_;
}

bool WatchReader::complete() const {
  absl::MutexLock lock(&mu_);
  return complete_;
}

nlohmann::json LoadFixture(const std::string& name) {
  std::filesystem::path path = std::filesystem::path(CREDLEDGER_KUBEAPI_TESTDATA) / name;
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  nlohmann::json j = nlohmann::json::parse(text.str(), nullptr, false);
  EXPECT_FALSE(j.is_discarded()) << "fixture " << path << " is missing or not JSON";
  return j;
}

::testing::AssertionResult MatchesJson(const nlohmann::json& actual,
                                       const nlohmann::json& expected) {
  std::string diff = Diff(actual, expected, "$");
  if (diff.empty()) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << diff << "\nactual: " << actual.dump();
}

::testing::AssertionResult MatchesFixture(const nlohmann::json& actual, const std::string& name,
                                          const std::map<std::string, std::string>& vars) {
  return MatchesJson(actual, Substitute(LoadFixture(name), vars)) << "\nfixture: " << name;
}

void ApiServerTest::SetUp() {
  const ::testing::TestInfo* info = ::testing::UnitTest::GetInstance()->current_test_info();
  dir_ = std::filesystem::path(::testing::TempDir()) /
         absl::StrCat("kubeapi-", info->test_suite_name(), "-", info->name(), "-", getpid());
  std::filesystem::remove_all(dir_);
  auto server = ApiServer::Start(Options());
  ASSERT_TRUE(server.ok()) << server.status();
  server_ = *std::move(server);
}

void ApiServerTest::TearDown() {
  if (server_ != nullptr) server_->Stop();
  server_.reset();
  std::error_code ec;
  std::filesystem::remove_all(dir_, ec);
}

ApiServerOptions ApiServerTest::Options() {
  ApiServerOptions options;
  options.state_dir = dir_ / "state";
  options.clock = &clock_;
  options.worker_threads = 32;
  return options;
}

nlohmann::json ApiServerTest::CreateObject(const std::string& collection_path,
                                           const nlohmann::json& object) {
  Reply reply = Admin().Post(collection_path, object);
  EXPECT_EQ(reply.status, 201) << collection_path << ": " << reply.raw;
  return reply.body;
}

nlohmann::json ApiServerTest::CreateNamespace(const std::string& name) {
  return CreateObject("/api/v1/namespaces",
                      {{"apiVersion", "v1"}, {"kind", "Namespace"}, {"metadata", {{"name", name}}}});
}

nlohmann::json ApiServerTest::CreateSecret(const std::string& ns, const std::string& name,
                                           const nlohmann::json& labels) {
  return CreateObject(absl::StrCat("/api/v1/namespaces/", ns, "/secrets"),
                      {{"apiVersion", "v1"},
                       {"kind", "Secret"},
                       {"metadata", {{"name", name}, {"labels", labels}}}});
}

nlohmann::json ApiServerTest::CreateServiceAccount(const std::string& ns, const std::string& name) {
  return CreateObject(absl::StrCat("/api/v1/namespaces/", ns, "/serviceaccounts"),
                      {{"apiVersion", "v1"}, {"kind", "ServiceAccount"}, {"metadata", {{"name", name}}}});
}

std::string ApiServerTest::IssueToken(const std::string& ns, const std::string& sa,
                                      const std::string& secret, int64_t expiration_seconds) {
  nlohmann::json spec = {{"expirationSeconds", expiration_seconds}};
  if (!secret.empty()) {
    spec["boundObjectRef"] = {{"kind", "Secret"}, {"apiVersion", "v1"}, {"name", secret}};
  }
  Reply reply = Admin().Post(
      absl::StrCat("/api/v1/namespaces/", ns, "/serviceaccounts/", sa, "/token"),
      {{"apiVersion", "authentication.k8s.io/v1"}, {"kind", "TokenRequest"}, {"spec", spec}});
  EXPECT_EQ(reply.status, 201) << reply.raw;
  if (reply.status != 201) return "";
  return reply.body["status"]["token"].get<std::string>();
}

}  // namespace credledger::kubeapi::testing
