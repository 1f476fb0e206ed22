#include "test/kubeapi/api_server.h"

#include <arpa/inet.h>
#include <dirent.h>
#include <httplib.h>
#include <netinet/in.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>
#include <sys/socket.h>

#include <fstream>
#include <optional>
#include <vector>

#include "absl/strings/str_cat.h"
#include "common/status_macros.h"
#include "test/kubeapi/garbage_collector.h"
#include "test/kubeapi/http_types.h"
#include "test/kubeapi/kube_time.h"
#include "test/kubeapi/kubeconfig.h"
#include "test/kubeapi/random_ids.h"
#include "test/kubeapi/router.h"
#include "test/kubeapi/server_context.h"
#include "test/kubeapi/tls_material.h"

namespace credledger::kubeapi {
namespace {

constexpr size_t kMaxRequestBodyBytes = 8 << 20;
constexpr absl::Duration kStartTimeout = absl::Seconds(10);

absl::Status WriteFile(const std::filesystem::path& path, const std::string& content,
                       std::filesystem::perms perms) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << content;
  out.close();
  if (!out) return absl::InternalError(absl::StrCat("kubeapi: cannot write ", path.string()));
  std::error_code ec;
  std::filesystem::permissions(path, perms, ec);
  if (ec) return absl::InternalError(absl::StrCat("kubeapi: chmod ", path.string(), ": ", ec.message()));
  return absl::OkStatus();
}

bool IsIpAddress(const std::string& s) {
  unsigned char buf[16];
  return inet_pton(AF_INET, s.c_str(), buf) == 1 || inet_pton(AF_INET6, s.c_str(), buf) == 1;
}

// Accepts every client certificate during the handshake; the outcome of the check is read
// per request (PeerCertificateOf), so an untrusted certificate gets 401 as from
// kube-apiserver instead of a failed handshake.
int AcceptAnyClientCertificate(int /*preverify_ok*/, X509_STORE_CTX* /*ctx*/) { return 1; }

// Server certificate and key, TLS 1.2 or newer, and an optional client certificate checked
// against `client_ca`.
bool ConfigureTls(SSL_CTX& ctx, X509* cert, EVP_PKEY* key, X509* client_ca) {
  static constexpr unsigned char kSessionContext[] = "credledger-kubeapi";
  SSL_CTX_set_options(&ctx, SSL_OP_NO_COMPRESSION | SSL_OP_NO_SESSION_RESUMPTION_ON_RENEGOTIATION);
  if (SSL_CTX_set_min_proto_version(&ctx, TLS1_2_VERSION) != 1 ||
      SSL_CTX_use_certificate(&ctx, cert) != 1 || SSL_CTX_use_PrivateKey(&ctx, key) != 1 ||
      SSL_CTX_check_private_key(&ctx) != 1 ||
      X509_STORE_add_cert(SSL_CTX_get_cert_store(&ctx), client_ca) != 1 ||
      SSL_CTX_add_client_CA(&ctx, client_ca) != 1) {
    return false;
  }
  // Resumed sessions keep the peer certificate; OpenSSL refuses to resume without a
  // session id context once peers are verified.
  if (SSL_CTX_set_session_id_context(&ctx, kSessionContext, sizeof(kSessionContext) - 1) != 1) {
    return false;
  }
  SSL_CTX_set_verify(&ctx, SSL_VERIFY_PEER, AcceptAnyClientCertificate);
  return true;
}

// The subject text of every `nid` entry of `name`, in order.
std::vector<std::string> NameEntries(X509_NAME* name, int nid) {
  std::vector<std::string> values;
  for (int i = X509_NAME_get_index_by_NID(name, nid, -1); i >= 0;
       i = X509_NAME_get_index_by_NID(name, nid, i)) {
    unsigned char* utf8 = nullptr;
    int len = ASN1_STRING_to_UTF8(&utf8, X509_NAME_ENTRY_get_data(X509_NAME_get_entry(name, i)));
    if (len < 0) continue;
    values.emplace_back(reinterpret_cast<char*>(utf8), static_cast<size_t>(len));
    OPENSSL_free(utf8);
  }
  return values;
}

std::optional<PeerCertificate> PeerCertificateOf(const SSL* ssl) {
  X509* cert = ssl != nullptr ? SSL_get0_peer_certificate(ssl) : nullptr;
  if (cert == nullptr) return std::nullopt;
  PeerCertificate peer;
  peer.verified = SSL_get_verify_result(ssl) == X509_V_OK;
  std::vector<std::string> cns = NameEntries(X509_get_subject_name(cert), NID_commonName);
  if (!cns.empty()) peer.common_name = cns.back();  // the last CN wins, as in Go's pkix.Name
  peer.organizations = NameEntries(X509_get_subject_name(cert), NID_organizationName);
  return peer;
}

HttpRequest ToHttpRequest(const httplib::Request& req) {
  HttpRequest r;
  r.method = req.method;
  r.path = req.path;
  r.params = std::multimap<std::string, std::string>(req.params.begin(), req.params.end());
  r.authorization = req.get_header_value("Authorization");
  r.content_type = req.get_header_value("Content-Type");
  r.accept = req.get_header_value("Accept");
  r.user_agent = req.get_header_value("User-Agent");
  r.body = req.body;
  r.socket_fd = req.ssl != nullptr ? SSL_get_fd(req.ssl) : -1;
  r.peer_certificate = PeerCertificateOf(req.ssl);
  return r;
}

// Writes `out` into `res`, with the server's clock at `now` as its Date header, as
// kube-apiserver (Go's net/http) sends on every response.
void FillResponse(HttpResponse out, absl::Time now, httplib::Response& res) {
  res.status = out.status;
  res.set_header("Date", FormatHttpDate(now));
  for (const auto& [key, value] : out.headers) res.set_header(key, value);
  if (!out.stream) {
    res.set_content(out.body, out.content_type);
    return;
  }
  std::shared_ptr<StreamBody> stream = std::move(out.stream);
  res.set_chunked_content_provider(
      out.content_type, [stream](size_t /*offset*/, httplib::DataSink& sink) {
        StreamBody::Step step = stream->Pump([&sink](absl::string_view data) {
          return sink.write(data.data(), data.size());
        });
        switch (step) {
          case StreamBody::Step::kContinue: return true;
          case StreamBody::Step::kDone: sink.done(); return true;
          case StreamBody::Step::kClientGone:
          case StreamBody::Step::kCut: return false;  // no terminating chunk
        }
        return false;
      });
}

}  // namespace

ApiServer::ApiServer(ApiServerOptions options) : options_(std::move(options)) {}

ApiServer::~ApiServer() { Stop(); }

absl::StatusOr<std::unique_ptr<ApiServer>> ApiServer::Start(ApiServerOptions options) {
  if (options.state_dir.empty()) {
    return absl::InvalidArgumentError("kubeapi: options.state_dir is required");
  }
  if (options.worker_threads < 1) {
    return absl::InvalidArgumentError("kubeapi: options.worker_threads must be at least 1");
  }
  if (options.clock == nullptr) return absl::InvalidArgumentError("kubeapi: options.clock is null");
  if (options.watch_history < 0 || options.watch_history_window < absl::ZeroDuration()) {
    return absl::InvalidArgumentError("kubeapi: the watch history must not be negative");
  }
  if (options.list_continue_ttl <= absl::ZeroDuration()) {
    return absl::InvalidArgumentError("kubeapi: options.list_continue_ttl must be positive");
  }
  if (options.garbage_collection_period < absl::ZeroDuration()) {
    return absl::InvalidArgumentError(
        absl::StrCat("kubeapi: garbage collection period ",
                     absl::FormatDuration(options.garbage_collection_period),
                     " is negative; 0 turns garbage collection off"));
  }
  std::unique_ptr<ApiServer> server(new ApiServer(std::move(options)));
  RETURN_IF_ERROR(server->Init());
  return server;
}

absl::Status ApiServer::Init() {
  std::error_code ec;
  std::filesystem::create_directories(options_.state_dir, ec);
  if (ec) {
    return absl::InternalError(
        absl::StrCat("kubeapi: cannot create ", options_.state_dir.string(), ": ", ec.message()));
  }
  std::vector<std::string> ips = {"127.0.0.1"};
  bool specific_ip = IsIpAddress(options_.bind_address) && options_.bind_address != "0.0.0.0" &&
                     options_.bind_address != "::" && options_.bind_address != "127.0.0.1";
  if (specific_ip) ips.push_back(options_.bind_address);
  advertised_host_ = specific_ip ? options_.bind_address : "127.0.0.1";
  if (advertised_host_.find(':') != std::string::npos) advertised_host_ = "[" + advertised_host_ + "]";
  ASSIGN_OR_RETURN(TlsMaterial tls, GenerateTlsMaterial({"localhost"}, ips));
  ASSIGN_OR_RETURN(JwtSigner signer, JwtSigner::Generate());
  ca_pem_ = tls.ca_cert_pem;
  admin_token_ = NewBearerToken();

  server_ = std::make_unique<httplib::SSLServer>([&tls](SSL_CTX& ctx) {
    return ConfigureTls(ctx, tls.server_cert.get(), tls.server_key.get(), tls.client_ca_cert.get());
  });
  if (!server_->is_valid()) return absl::InternalError("kubeapi: TLS server setup failed");
  int threads = options_.worker_threads;
  server_->new_task_queue = [threads] { return new httplib::ThreadPool(static_cast<size_t>(threads)); };
  server_->set_keep_alive_max_count(1000);
  server_->set_payload_max_length(kMaxRequestBodyBytes);
  server_->set_read_timeout(30);
  server_->set_write_timeout(30);
  // kube-apiserver (Go) disables Nagle; without it, a response written as headers and body
  // waits for the client's delayed ACK (about 40 ms per request).
  server_->set_tcp_nodelay(true);
  if (options_.port == 0) {
    port_ = server_->bind_to_any_port(options_.bind_address);
  } else {
    port_ = server_->bind_to_port(options_.bind_address, options_.port) ? options_.port : -1;
  }
  if (port_ <= 0) {
    return absl::UnavailableError(absl::StrCat("kubeapi: cannot bind ", options_.bind_address,
                                               ":", options_.port));
  }

  ServerConfig config;
  config.clock = options_.clock;
  config.max_token_expiration = options_.max_token_expiration;
  config.bookmark_interval = options_.bookmark_interval;
  config.default_watch_timeout = options_.default_watch_timeout;
  config.list_continue_ttl = options_.list_continue_ttl;
  config.require_namespace = options_.require_namespace;
  config.issuer = options_.issuer;
  config.api_audiences = options_.api_audiences;
  config.server_address = absl::StrCat(advertised_host_, ":", port_);
  config.admin_token = admin_token_;
  ctx_ = std::make_unique<ServerContext>(std::move(config), std::move(signer),
                                         options_.watch_history, options_.watch_history_window);
  RETURN_IF_ERROR(CreateDefaultNamespaces());
  gc_ = std::make_unique<GarbageCollector>(ctx_.get());
  if (options_.garbage_collection_period > absl::ZeroDuration()) {
    gc_->Start(options_.garbage_collection_period);
  }
  RETURN_IF_ERROR(WriteStateFiles(tls));
  client_ca_key_ = std::move(tls.client_ca_key);
  client_ca_cert_ = std::move(tls.client_ca_cert);
  InstallHandlers();

  thread_ = std::thread([this] { server_->listen_after_bind(); });
  absl::Time give_up = absl::Now() + kStartTimeout;
  while (!server_->is_running() && absl::Now() < give_up) absl::SleepFor(absl::Milliseconds(1));
  if (!server_->is_running()) {
    Stop();
    return absl::InternalError("kubeapi: server did not start listening");
  }
  return absl::OkStatus();
}

absl::Status ApiServer::WriteStateFiles(const TlsMaterial& tls) {
  const auto private_perms = std::filesystem::perms::owner_read | std::filesystem::perms::owner_write;
  const auto public_perms = private_perms | std::filesystem::perms::group_read |
                            std::filesystem::perms::others_read;
  KubeconfigSpec spec;
  spec.server = url();
  spec.ca_pem = ca_pem_;
  spec.token = admin_token_;
  RETURN_IF_ERROR(WriteFile(ca_path(), ca_pem_, public_perms));
  RETURN_IF_ERROR(WriteFile(options_.state_dir / "server.crt", tls.server_cert_pem, public_perms));
  RETURN_IF_ERROR(WriteFile(options_.state_dir / "server.key", tls.server_key_pem, private_perms));
  RETURN_IF_ERROR(WriteFile(options_.state_dir / "sa.pub", ctx_->signer.public_key_pem(), public_perms));
  RETURN_IF_ERROR(WriteFile(options_.state_dir / "admin-token", admin_token_ + "\n", private_perms));
  return WriteFile(kubeconfig_path(), RenderKubeconfig(spec), private_perms);
}

absl::Status ApiServer::CreateDefaultNamespaces() {
  std::vector<std::string> names = {"default", "kube-system", "kube-public", "kube-node-lease"};
  names.insert(names.end(), options_.namespaces.begin(), options_.namespaces.end());
  for (const std::string& name : names) {
    HttpRequest request;
    request.method = "POST";
    request.path = "/api/v1/namespaces";
    request.authorization = absl::StrCat("Bearer ", admin_token_);
    request.body = nlohmann::json({{"apiVersion", "v1"},
                                   {"kind", "Namespace"},
                                   {"metadata", {{"name", name}}}})
                       .dump();
    HttpResponse response = HandleRequest(*ctx_, request);
    if (response.status != 201) {
      return absl::InternalError(absl::StrCat("kubeapi: creating namespace ", name, ": ", response.body));
    }
  }
  return absl::OkStatus();
}

void ApiServer::InstallHandlers() {
  ServerContext* ctx = ctx_.get();
  auto handler = [ctx](const httplib::Request& req, httplib::Response& res) {
    FillResponse(HandleRequest(*ctx, ToHttpRequest(req)), ctx->config.clock->Now(), res);
  };
  server_->Get(".*", handler);
  server_->Post(".*", handler);
  server_->Put(".*", handler);
  server_->Patch(".*", handler);
  server_->Delete(".*", handler);
  server_->set_exception_handler(
      [ctx](const httplib::Request&, httplib::Response& res, std::exception_ptr) {
        FillResponse(ErrorResponse(absl::InternalError("unexpected exception")),
                     ctx->config.clock->Now(), res);
      });
}

void ApiServer::ShutdownConnections() const {
  DIR* dir = opendir("/proc/self/fd");
  if (dir == nullptr) return;
  while (dirent* entry = readdir(dir)) {
    int fd = atoi(entry->d_name);
    if (fd <= 2 || fd == dirfd(dir)) continue;
    sockaddr_storage local{};
    sockaddr_storage peer{};
    socklen_t local_len = sizeof(local);
    socklen_t peer_len = sizeof(peer);
    if (getsockname(fd, reinterpret_cast<sockaddr*>(&local), &local_len) != 0 ||
        getpeername(fd, reinterpret_cast<sockaddr*>(&peer), &peer_len) != 0) {
      continue;
    }
    int local_port = 0;
    if (local.ss_family == AF_INET) {
      local_port = ntohs(reinterpret_cast<sockaddr_in*>(&local)->sin_port);
    } else if (local.ss_family == AF_INET6) {
      local_port = ntohs(reinterpret_cast<sockaddr_in6*>(&local)->sin6_port);
    }
    if (local_port == port_) shutdown(fd, SHUT_RDWR);
  }
  closedir(dir);
}

void ApiServer::Stop() {
  absl::MutexLock lock(&stop_mu_);
  if (stopped_) return;
  stopped_ = true;
  if (gc_ != nullptr) gc_->Stop();
  if (ctx_ != nullptr) ctx_->store.Shutdown();
  if (server_ != nullptr) server_->stop();
  if (thread_.joinable()) {
    // The listener is closed: every socket with our local port is an accepted connection.
    ShutdownConnections();
    thread_.join();
  }
}

std::string ApiServer::url() const { return absl::StrCat("https://", advertised_host_, ":", port_); }

std::filesystem::path ApiServer::kubeconfig_path() const { return options_.state_dir / "kubeconfig"; }

std::filesystem::path ApiServer::ca_path() const { return options_.state_dir / "ca.crt"; }

const std::string& ApiServer::signing_public_key_pem() const { return ctx_->signer.public_key_pem(); }

absl::StatusOr<ClientCertificate> ApiServer::IssueClientCertificate(
    const std::string& user, const std::vector<std::string>& groups) const {
  return kubeapi::IssueClientCertificate(client_ca_cert_.get(), client_ca_key_.get(), user, groups);
}

FaultInjector& ApiServer::faults() { return ctx_->faults; }

const RequestRecorder& ApiServer::requests() const { return ctx_->requests; }

void ApiServer::ForceBookmarks() { ctx_->store.RequestBookmarks(); }

int64_t ApiServer::resource_version() const { return ctx_->store.CurrentResourceVersion(); }

int ApiServer::CollectGarbage() { return gc_->CollectGarbage(); }

}  // namespace credledger::kubeapi
