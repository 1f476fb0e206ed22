// ApiServer: a Kubernetes API server for tests (docs/testing.md, "The test API server"),
// serving HTTPS on loopback with generic JSON object storage, watches,
// TokenRequest/TokenReview, RBAC for service-account tokens, discovery for kubectl, fault
// injection and an injectable clock.
//
// Start() generates, in memory, a CA and a server certificate (SANs DNS:localhost and
// IP:127.0.0.1, plus the bind address when it is another IP), a client CA, a random admin
// bearer token (a superuser) and an ES256 key for service-account tokens, then writes into
// `state_dir`: ca.crt, server.crt, server.key, admin-token, sa.pub (the token verification
// key) and kubeconfig (server URL, certificate-authority-data, the admin token, one
// context set as current). Namespaces default, kube-system, kube-public and
// kube-node-lease exist from the start. All state is in memory and lost on Stop.
//
// Clients authenticate with a bearer token or a client certificate: the server asks for an
// optional client certificate and accepts one the client CA signed (IssueClientCertificate;
// user = CN, groups = O values, authenticator.h); an untrusted one is answered 401.
//
// The request semantics are documented per module: router.h (pipeline), resource_handlers.h
// (verbs), object_rules.h (validation and server-set fields), watch_stream.h (watches),
// token_request.h, reviews.h, rbac.h, authenticator.h, discovery.h, fault_injector.h.
//
// requests() counts every authenticated user's requests by verb, resource and status.
//
// Garbage collection (garbage_collector.h): objects whose owners are all gone are deleted
// every `garbage_collection_period`, and on demand by CollectGarbage().
//
// Thread-safety: all methods are safe to call concurrently; Stop() may be called more
// than once. Each watch occupies one worker thread until it ends.
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "common/clock.h"
#include "test/kubeapi/fault_injector.h"
#include "test/kubeapi/tls_material.h"

namespace httplib {
class SSLServer;
}

namespace credledger::kubeapi {

struct ServerContext;
class GarbageCollector;
class RequestRecorder;

struct ApiServerOptions {
  std::string bind_address = "127.0.0.1";
  int port = 0;                     // 0 = pick a free port
  std::filesystem::path state_dir;  // REQUIRED: ca.crt, server cert/key, kubeconfig, admin token
  // TokenRequest expirationSeconds above this are clamped to it.
  absl::Duration max_token_expiration = absl::Hours(48);
  // Events kept for watch resume: the newest `watch_history`, and every one younger than
  // `watch_history_window` (real time; kube-apiserver's watch cache keeps at least 75 s). A
  // watch from an older resourceVersion gets 410 Expired. Must not be negative.
  int64_t watch_history = 1000;
  absl::Duration watch_history_window = absl::Seconds(75);
  // Injectable clock for token iat/nbf/exp and validation, creationTimestamp,
  // deletionTimestamp, the Date header of every response and continue tokens' life. Watch timeouts and bookmarks
  // use real time. Must outlive the server.
  common::Clock* clock = common::RealClock::Default();
  int worker_threads = 64;  // HTTP worker pool; each open watch holds one

  // Further settings:
  // Real time between periodic BOOKMARK events (ForceBookmarks() sends one at once).
  absl::Duration bookmark_interval = absl::Seconds(10);
  // A watch without timeoutSeconds ends after this (real time).
  absl::Duration default_watch_timeout = absl::Minutes(30);
  // Time on `clock` a paged list's continue token stays good (list_pages.h); later it is
  // answered 410 Expired, as kube-apiserver answers one whose revision etcd compacted. Must
  // be positive.
  absl::Duration list_continue_ttl = absl::Minutes(5);
  // Time on `clock` between background garbage collection sweeps (docs/testing.md,
  // "Garbage collection"); zero, the default here, turns them off, so that an in-process
  // server collects only when its test asks. Must not be negative.
  absl::Duration garbage_collection_period = absl::ZeroDuration();
  // Namespaced creates need an existing Namespace (404 `namespaces "x" not found`), as
  // kube-apiserver's NamespaceLifecycle admission requires.
  bool require_namespace = true;
  // Namespaces created at start besides default, kube-system, kube-public, kube-node-lease.
  std::vector<std::string> namespaces;
  // JWT issuer, and the audiences the server accepts by default (also the default
  // audiences of TokenRequests that name none).
  std::string issuer = "https://kubernetes.default.svc.cluster.local";
  std::vector<std::string> api_audiences = {"https://kubernetes.default.svc.cluster.local"};
};

class ApiServer {
 public:
  // Generates TLS material and keys, writes the state files, binds and starts serving.
  // Returns once the server accepts connections.
  // Errors: kInvalidArgument (empty state_dir, bad bind address, worker_threads < 1,
  // negative garbage_collection_period or watch history, list_continue_ttl not positive),
  // kUnavailable (the port cannot be bound), kInternal (OpenSSL or file writes failed).
  static absl::StatusOr<std::unique_ptr<ApiServer>> Start(ApiServerOptions options);

  ~ApiServer();  // stops and joins
  ApiServer(const ApiServer&) = delete;
  ApiServer& operator=(const ApiServer&) = delete;

  // Ends every watch and connection promptly and joins the server thread. Idempotent.
  void Stop();

  int port() const { return port_; }
  // "https://127.0.0.1:<port>" (the bind address when it is a specific non-loopback IP).
  std::string url() const;
  const std::string& ca_pem() const { return ca_pem_; }
  const std::string& admin_token() const { return admin_token_; }
  // kubeconfig with server, certificate-authority-data and the admin token.
  std::filesystem::path kubeconfig_path() const;
  std::filesystem::path ca_path() const;
  // The public key verifying service-account tokens (PEM), also written to sa.pub.
  const std::string& signing_public_key_pem() const;
  // A client certificate from the client CA for `user` (CN) in `groups` (O values).
  // Errors: kInternal when OpenSSL fails.
  absl::StatusOr<ClientCertificate> IssueClientCertificate(
      const std::string& user, const std::vector<std::string>& groups = {}) const;

  // Fault injection seam (see fault_injector.h).
  FaultInjector& faults();
  // The requests each authenticated user made (see request_recorder.h).
  const RequestRecorder& requests() const;
  // Makes every open watch that allowed bookmarks send a BOOKMARK now.
  void ForceBookmarks();
  // The resourceVersion of the newest write.
  int64_t resource_version() const;
  // Runs one garbage collection sweep now, whatever the period; returns the number of
  // objects it deleted (see GarbageCollector::CollectGarbage).
  int CollectGarbage();

 private:
  explicit ApiServer(ApiServerOptions options);
  absl::Status Init();
  absl::Status WriteStateFiles(const TlsMaterial& tls);
  absl::Status CreateDefaultNamespaces();
  void InstallHandlers();
  // Shuts down every accepted connection of this server (sockets whose local port is ours).
  void ShutdownConnections() const;

  const ApiServerOptions options_;
  std::string ca_pem_;
  EvpPkeyPtr client_ca_key_;
  X509Ptr client_ca_cert_;
  std::string admin_token_;
  std::string advertised_host_;
  int port_ = 0;
  std::unique_ptr<ServerContext> ctx_;
  std::unique_ptr<GarbageCollector> gc_;  // uses ctx_
  std::unique_ptr<httplib::SSLServer> server_;
  std::thread thread_;
  absl::Mutex stop_mu_;
  bool stopped_ ABSL_GUARDED_BY(stop_mu_) = false;
};

}  // namespace credledger::kubeapi
