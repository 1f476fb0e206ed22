#include "kubebridge/client/curl_transport.h"

#include <curl/curl.h>

#include <chrono>
#include <mutex>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "common/status_macros.h"
#include "kubebridge/client/status_mapping.h"

namespace credledger::kubebridge {

// One multi handle with its easy handle; the multi handle owns the connection cache.
struct CurlTransport::Handles {
  CURLM* multi = nullptr;
  CURL* easy = nullptr;
  ~Handles() {
    if (easy != nullptr) curl_easy_cleanup(easy);
    if (multi != nullptr) curl_multi_cleanup(multi);
  }
};

namespace {

// State of one transfer, shared with the libcurl callbacks.
struct Transfer {
  CURL* easy = nullptr;
  Cancellation* cancel = nullptr;
  const LineHandler* on_line = nullptr;
  size_t max_body_bytes = 0;
  size_t max_line_bytes = 0;
  std::string label;
  bool mode_decided = false;
  bool line_mode = false;  // a 2xx response fed to on_line
  std::string body;        // whole body (not line mode) or the unfinished line (line mode)
  absl::Status callback_status;
};

// Feeds every complete line in t.body to the handler and keeps the unfinished rest.
bool DeliverLines(Transfer& t) {
  size_t start = 0;
  while (true) {
    size_t end = t.body.find('\n', start);
    if (end == std::string::npos) break;
    absl::string_view line(t.body.data() + start, end - start);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    start = end + 1;
    if (line.empty()) continue;
    absl::Status status = (*t.on_line)(line);
    if (!status.ok()) {
      t.callback_status = std::move(status);
      return false;
    }
  }
  t.body.erase(0, start);
  return true;
}

size_t WriteCallback(char* data, size_t size, size_t count, void* user) {
  Transfer& t = *static_cast<Transfer*>(user);
  size_t n = size * count;
  if (!t.mode_decided) {
    long code = 0;
    curl_easy_getinfo(t.easy, CURLINFO_RESPONSE_CODE, &code);
    t.line_mode = t.on_line != nullptr && code >= 200 && code < 300;
    t.mode_decided = true;
  }
  size_t limit = t.line_mode ? t.max_line_bytes : t.max_body_bytes;
  t.body.append(data, n);
  if (t.line_mode && !DeliverLines(t)) return 0;
  if (t.body.size() > limit) {
    t.callback_status = absl::ResourceExhaustedError(
        absl::StrCat(t.label, t.line_mode ? ": a streamed line" : ": the response body",
                     " is larger than ", limit, " bytes"));
    return 0;
  }
  return n;
}

int ProgressCallback(void* user, curl_off_t, curl_off_t, curl_off_t, curl_off_t) {
  const Transfer& t = *static_cast<const Transfer*>(user);
  return t.cancel->cancelled() ? 1 : 0;
}

void GlobalInit() {
  static std::once_flag once;
  std::call_once(once, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
}

// Accumulates the first curl_easy_setopt failure.
class Options {
 public:
  explicit Options(CURL* easy) : easy_(easy) {}
  template <typename T>
  void Set(CURLoption option, T value) {
    if (result_ == CURLE_OK) result_ = curl_easy_setopt(easy_, option, value);
  }
  CURLcode result() const { return result_; }

 private:
  CURL* easy_;
  CURLcode result_ = CURLE_OK;
};

long Millis(absl::Duration d) { return static_cast<long>(absl::ToInt64Milliseconds(d)); }

}  // namespace

CurlTransport::CurlTransport(ConnectionConfig config, CurlTransportOptions options)
    : config_(std::move(config)),
      options_(std::move(options)),
      token_source_(config_.token, config_.token_file) {}

CurlTransport::~CurlTransport() = default;

absl::StatusOr<std::unique_ptr<CurlTransport>> CurlTransport::New(ConnectionConfig config,
                                                                  CurlTransportOptions options) {
  if (config.server.empty()) {
    return absl::InvalidArgumentError("kube transport: the connection has no server URL");
  }
  GlobalInit();
  auto transport =
      std::unique_ptr<CurlTransport>(new CurlTransport(std::move(config), std::move(options)));
  std::unique_ptr<Handles> probe = transport->AcquireHandles();
  if (probe == nullptr) {
    return absl::FailedPreconditionError("kube transport: libcurl handles cannot be created");
  }
  transport->ReleaseHandles(std::move(probe));
  return transport;
}

std::unique_ptr<CurlTransport::Handles> CurlTransport::AcquireHandles() {
  {
    absl::MutexLock lock(&pool_mu_);
    if (!idle_.empty()) {
      std::unique_ptr<Handles> handles = std::move(idle_.back());
      idle_.pop_back();
      return handles;
    }
  }
  auto handles = std::make_unique<Handles>();
  handles->multi = curl_multi_init();
  handles->easy = curl_easy_init();
  if (handles->multi == nullptr || handles->easy == nullptr) return nullptr;
  return handles;
}

void CurlTransport::ReleaseHandles(std::unique_ptr<Handles> handles) {
  absl::MutexLock lock(&pool_mu_);
  if (static_cast<int>(idle_.size()) < options_.max_idle_handles) {
    idle_.push_back(std::move(handles));
  }
}

absl::StatusOr<HttpResponse> CurlTransport::RoundTrip(const HttpRequest& request,
                                                      Cancellation& cancel,
                                                      const LineHandler* on_line) {
  std::string label = RequestLabel(request);
  if (cancel.cancelled()) return absl::CancelledError(absl::StrCat(label, ": cancelled"));
  absl::StatusOr<std::string> token = token_source_.Token();
  if (!token.ok()) {
    return absl::Status(token.status().code(), absl::StrCat(label, ": ", token.status().message()));
  }
  std::unique_ptr<Handles> handles = AcquireHandles();
  if (handles == nullptr) {
    return absl::ResourceExhaustedError(absl::StrCat(label, ": cannot create libcurl handles"));
  }
  CURL* easy = handles->easy;
  curl_easy_reset(easy);

  Transfer t;
  t.easy = easy;
  t.cancel = &cancel;
  t.on_line = on_line;
  t.max_body_bytes = options_.max_body_bytes;
  t.max_line_bytes = options_.max_line_bytes;
  t.label = label;
  char error_text[CURL_ERROR_SIZE] = {0};

  curl_slist* headers = nullptr;
  headers = curl_slist_append(headers, "Accept: application/json");
  headers = curl_slist_append(headers, "Expect:");
  if (!request.body.empty()) {
    const std::string content_type = absl::StrCat("Content-Type: ", request.content_type);
    headers = curl_slist_append(headers, content_type.c_str());
  }
  if (!token->empty()) {
    std::string authorization = absl::StrCat("Authorization: Bearer ", *token);
    headers = curl_slist_append(headers, authorization.c_str());
  }

  std::string url = absl::StrCat(config_.server, request.path);
  Options o(easy);
  o.Set(CURLOPT_URL, url.c_str());
  o.Set(CURLOPT_PROTOCOLS_STR, "http,https");
  o.Set(CURLOPT_FOLLOWLOCATION, 0L);
  o.Set(CURLOPT_NOSIGNAL, 1L);
  o.Set(CURLOPT_HTTP_VERSION, static_cast<long>(CURL_HTTP_VERSION_1_1));
  o.Set(CURLOPT_USERAGENT, options_.user_agent.c_str());
  o.Set(CURLOPT_HTTPHEADER, headers);
  o.Set(CURLOPT_ERRORBUFFER, error_text);
  o.Set(CURLOPT_CONNECTTIMEOUT_MS, Millis(options_.connect_timeout));
  o.Set(CURLOPT_TIMEOUT_MS,
        request.stream || request.timeout <= absl::ZeroDuration() ? 0L : Millis(request.timeout));
  o.Set(CURLOPT_TCP_KEEPALIVE, 1L);
  if (request.method == "GET") {
    o.Set(CURLOPT_HTTPGET, 1L);
  } else {
    o.Set(CURLOPT_CUSTOMREQUEST, request.method.c_str());
  }
  if (!request.body.empty() || request.method == "POST" || request.method == "PUT") {
    o.Set(CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(request.body.size()));
    o.Set(CURLOPT_POSTFIELDS, request.body.c_str());
  }
  curl_blob ca_blob{const_cast<char*>(config_.ca_pem.data()), config_.ca_pem.size(),
                    CURL_BLOB_COPY};
  if (!config_.ca_pem.empty()) {
    // Trust exactly the cluster CA, not the system store.
    o.Set(CURLOPT_CAINFO, static_cast<const char*>(nullptr));
    o.Set(CURLOPT_CAPATH, static_cast<const char*>(nullptr));
    o.Set(CURLOPT_CAINFO_BLOB, &ca_blob);
  }
  o.Set(CURLOPT_SSL_VERIFYPEER, config_.insecure_skip_tls_verify ? 0L : 1L);
  o.Set(CURLOPT_SSL_VERIFYHOST, config_.insecure_skip_tls_verify ? 0L : 2L);
  curl_blob cert_blob{const_cast<char*>(config_.client_certificate_pem.data()),
                      config_.client_certificate_pem.size(), CURL_BLOB_COPY};
  curl_blob key_blob{const_cast<char*>(config_.client_key_pem.data()),
                     config_.client_key_pem.size(), CURL_BLOB_COPY};
  if (!config_.client_certificate_pem.empty()) {
    o.Set(CURLOPT_SSLCERT_BLOB, &cert_blob);
    o.Set(CURLOPT_SSLCERTTYPE, "PEM");
    o.Set(CURLOPT_SSLKEY_BLOB, &key_blob);
    o.Set(CURLOPT_SSLKEYTYPE, "PEM");
  }
  if (!config_.basic_username.empty() || !config_.basic_password.empty()) {
    // Basic only, so libcurl sends it with the first request.
    o.Set(CURLOPT_HTTPAUTH, static_cast<long>(CURLAUTH_BASIC));
    o.Set(CURLOPT_USERNAME, config_.basic_username.c_str());
    o.Set(CURLOPT_PASSWORD, config_.basic_password.c_str());
  }
  o.Set(CURLOPT_WRITEFUNCTION, &WriteCallback);
  o.Set(CURLOPT_WRITEDATA, &t);
  o.Set(CURLOPT_NOPROGRESS, 0L);
  o.Set(CURLOPT_XFERINFOFUNCTION, &ProgressCallback);
  o.Set(CURLOPT_XFERINFODATA, &t);
  if (o.result() != CURLE_OK) {
    curl_slist_free_all(headers);
    ReleaseHandles(std::move(handles));
    return absl::FailedPreconditionError(
        absl::StrCat(label, ": libcurl option rejected: ", curl_easy_strerror(o.result())));
  }

  CURLM* multi = handles->multi;
  curl_multi_add_handle(multi, easy);
  uint64_t listener = cancel.AddListener([multi] { curl_multi_wakeup(multi); });
  using SteadyClock = std::chrono::steady_clock;
  bool has_deadline = request.stream && request.timeout > absl::ZeroDuration();
  SteadyClock::time_point deadline =
      SteadyClock::now() + absl::ToChronoMilliseconds(request.timeout);
  bool finished = false;
  bool deadline_passed = false;
  CURLcode result = CURLE_OK;
  CURLMcode multi_result = CURLM_OK;
  while (!cancel.cancelled()) {
    int running = 0;
    multi_result = curl_multi_perform(multi, &running);
    if (multi_result != CURLM_OK) break;
    int queued = 0;
    while (CURLMsg* message = curl_multi_info_read(multi, &queued)) {
      if (message->msg == CURLMSG_DONE) {
        result = message->data.result;
        finished = true;
      }
    }
    if (finished) break;
    if (has_deadline && SteadyClock::now() >= deadline) {
      deadline_passed = true;
      break;
    }
    multi_result = curl_multi_poll(multi, nullptr, 0, 1000, nullptr);
    if (multi_result != CURLM_OK) break;
  }
  cancel.RemoveListener(listener);
  curl_multi_remove_handle(multi, easy);
  curl_slist_free_all(headers);

  HttpResponse response;
  long code = 0;
  curl_easy_getinfo(easy, CURLINFO_RESPONSE_CODE, &code);
  curl_off_t retry_after = 0;
  if (curl_easy_getinfo(easy, CURLINFO_RETRY_AFTER, &retry_after) == CURLE_OK && retry_after > 0) {
    response.retry_after = absl::Seconds(retry_after);
  }
  curl_header* date = nullptr;
  if (curl_easy_header(easy, "Date", 0, CURLH_HEADER, -1, &date) == CURLHE_OK) {
    const time_t seconds = curl_getdate(date->value, nullptr);
    if (seconds != -1) response.date = absl::FromTimeT(seconds);
  }
  std::string error_detail(error_text);
  curl_easy_reset(easy);  // drops the pointers into this stack frame
  ReleaseHandles(std::move(handles));

  if (!t.callback_status.ok()) return t.callback_status;
  if (cancel.cancelled()) return absl::CancelledError(absl::StrCat(label, ": cancelled"));
  if (multi_result != CURLM_OK) {
    return absl::UnknownError(
        absl::StrCat(label, ": libcurl multi error: ", curl_multi_strerror(multi_result)));
  }
  if (deadline_passed) {
    return absl::UnavailableError(
        absl::StrCat(label, ": stream still open after ", absl::FormatDuration(request.timeout)));
  }
  if (result != CURLE_OK) return StatusFromCurlCode(label, result, error_detail);
  response.status_code = static_cast<int>(code);
  if (t.line_mode) {
    // A last line without a terminator.
    t.body.push_back('\n');
    if (!DeliverLines(t)) return t.callback_status;
  } else {
    response.body = std::move(t.body);
  }
  return response;
}

}  // namespace credledger::kubebridge
