// Server: `credledger serve` as a reusable component (docs/design.md, "Everything is an event";
// docs/api.md, "Server subcommands"): it opens the event log, records the service configuration
// (ServiceConfigured), starts the credential, status, identity and cluster projectors, the
// command buses, the report scheduler (heartbeat batches, staleness), the kube bridge
// (credentials, credential mirrors and the TargetReport watch), the checkpoint writer, and
// serves the gRPC API (TargetService, ReportService, IdentityService, ClusterService,
// SourceService, AuditService) under the authorization policy, with standard health checking
// and server reflection. Before anything is appended it verifies the tail of the log and
// refuses to start on a mismatch (docs/audit.md, "Start-up check"), unless told to serve
// read-only. Without TLS, Start refuses any listening address that is not loopback or a unix
// socket (docs/api.md, "Transport"). Refused calls are recorded as CallsDenied events, one per
// caller identity and minute. Every gRPC call leaves one JSON access-log line on stderr, tied
// to the client by its x-request-id (access_log_interceptor.h), unless ServeOptions::access_log
// is off.
//
// With --http-listen it also serves Prometheus metrics, /healthz and /readyz over plain
// HTTP (docs/operations.md, "Metrics and health"), from the very start of Wire.
//
// Components are built in dependency order by one function (Server::Wire) and torn down in
// reverse order by Shutdown: first the HTTP endpoint, then the gRPC server (watches are
// told to end, in-flight calls finish), then the kube bridge and the report watch (running
// Kubernetes calls are cancelled), the report scheduler (which records the heartbeats still
// waiting), the projectors, the buses and the store.
//
// Thread-safety: Shutdown and Wait may be called from any thread; accessors are valid
// between a successful Start and Shutdown.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "absl/base/thread_annotations.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "audit/signing_key.h"
#include "common/clock.h"
#include "common/metrics_registry.h"
#include "credledger/v1/events.pb.h"
#include "kubebridge/client/kube_client.h"
#include "kubebridge/client/lease_fence.h"
#include "kubebridge/credentials/credential_bridge.h"
#include "kubebridge/mirrors/mirror_bridge.h"
#include "kubebridge/reports/report_watcher.h"
#include "projections/credential_projector.h"
#include "projections/identity_projector.h"
#include "projections/status_projector.h"
#include "service/api/authorization_policy.h"
#include "service/api/checkpoint_writer.h"
#include "service/api/identity_api.h"
#include "service/api/liveness_buffer.h"
#include "service/api/report_api.h"
#include "service/api/report_ingest.h"
#include "service/api/report_scheduler.h"
#include "service/api/target_api.h"
#include "service/bridge/bridge_mirror_sink.h"
#include "service/bridge/bridge_outcome_sink.h"
#include "service/bridge/bridge_report_sink.h"
#include "service/bus/command_bus.h"
#include "service/bus/identity_command_bus.h"
#include "service/bus/report_command_bus.h"
#include "service/grpc/auth/call_authorizer.h"
#include "service/grpc/auth/denial_ledger.h"
#include "service/grpc/auth/denial_recorder.h"
#include "service/offline/audit_api.h"
#include "service/server/connection_services.h"
#include "service/server/operations_http_server.h"
#include "service/server/readiness.h"
#include "service/server/tls_file_guard.h"
#include "service/wire/grpc_tls.h"
#include "store/sqlite_event_store.h"

namespace grpc {
class Server;
}  // namespace grpc

namespace credledger::service {

class AuditGrpcService;
class IdentityGrpcService;
class ReportGrpcService;
class TargetGrpcService;

// Shortest agent token lifetime accepted: rotation starts at 80% of the lifetime, and
// shorter tokens would churn Secrets faster than agents re-render.
inline constexpr absl::Duration kMinAgentTokenTtl = absl::Minutes(10);
// Longest agent token lifetime accepted (one year); API servers clamp far below it anyway.
inline constexpr absl::Duration kMaxAgentTokenTtl = absl::Hours(24 * 365);

// What `credledger serve` is told by its flags.
struct ServeOptions {
  // The event log; its parent directory is created when missing.
  std::filesystem::path db_path = "./var/credledger.db";
  // gRPC listening address; port 0 lets the kernel choose. Without TLS only loopback or a
  // unix socket (listen_address.h); with TLS any "host:port".
  std::string listen_address = "127.0.0.1:7443";
  // TLS for the gRPC API (grpc_tls.h); empty cert_file and key_file: plaintext. A client CA
  // file makes it mutual TLS, and the client certificate names the caller.
  ServerTlsFiles tls;
  // When set, the bound port is written there (decimal, newline) once the server listens.
  std::filesystem::path port_file;
  // Plain-HTTP address of /metrics, /healthz and /readyz ("host:port", "[v6]:port"; port 0
  // lets the kernel choose); empty: no HTTP endpoint (docs/operations.md,
  // "Metrics and health").
  std::string http_listen;
  // When set, the bound HTTP port is written there (decimal, newline) once it listens.
  std::filesystem::path http_port_file;
  // Agent API server URL; empty disables credentials (AgentCredentialReady=False/Disabled).
  std::string agent_apiserver_url;
  // CA bundle agents use for that server; hashed into ServiceConfigured. Empty: none.
  std::filesystem::path agent_ca_file;
  // Lifetime requested for agent tokens (>= kMinAgentTokenTtl).
  absl::Duration agent_token_ttl = absl::Hours(24);
  // kubeconfig of the cluster the kube bridge writes to. Empty: the in-cluster service
  // account when KUBERNETES_SERVICE_HOST is set, else no cluster: the API runs without the
  // bridge (a warning when credentials are enabled) and mint intents wait in the log.
  std::filesystem::path kubeconfig;
  // Client-side rate limit of Kubernetes API calls (requests/s and burst).
  double kube_qps = 5;
  int kube_burst = 10;
  // Every Target is reconciled at least this often.
  absl::Duration resync_period = absl::Minutes(10);
  // Every registered cluster is probed at least this often (>= 1s).
  absl::Duration cluster_probe_period = absl::Minutes(5);
  // An unchanged probe outcome is recorded again after this long (>= the probe period).
  absl::Duration cluster_probe_record_interval = absl::Hours(1);
  // PRAGMA synchronous of the log.
  store::SqliteEventStoreOptions::Synchronous synchronous =
      store::SqliteEventStoreOptions::Synchronous::kFull;
  // Events between projection snapshots (>= 0; 0 disables them).
  int64_t snapshot_every = 1000;
  // Source of "now" for commands and recorded times. Not owned.
  common::Clock* clock = common::RealClock::Default();
  // Read-your-writes timeout and watch queue bound.
  TargetApi::Options api;
  // The same for ReportService.
  ReportApi::Options report_api;
  // Reporting=False/Stale after this long without a report or heartbeat (>= 1s and at least
  // liveness_flush_interval).
  absl::Duration report_stale_after = absl::Minutes(10);
  // How often heartbeats are recorded (one LivenessObserved) and staleness is checked
  // (100ms to 1m).
  absl::Duration liveness_flush_interval = absl::Seconds(5);
  // Authorization policy file (authorization_policy.h). Empty: every caller may call every
  // RPC (a warning at start-up).
  std::filesystem::path authorization_policy;
  // Ed25519 private key (PEM, `credledger keygen`) that signs checkpoints and export
  // trailers. Empty: nothing is signed (a warning at start-up) and exports do not verify.
  std::filesystem::path signing_key;
  // The Lease fence (kubebridge/client/lease_fence.h; docs/operations.md, "The Lease fence"):
  // with a name, serve takes the coordination.k8s.io/v1 Lease before it opens the log, writes
  // only while it holds it, and releases it at shutdown. Needs a cluster connection; ignored
  // when read_only. Empty: no Lease (one process by construction, e.g. a local run).
  std::string lease_name;
  // Its namespace; empty: the cluster connection's namespace (the pod's), else "default".
  std::string lease_namespace;
  // This replica's holderIdentity; empty: "<hostname>_<8 random hex digits>".
  std::string lease_identity;
  // leaseDurationSeconds (whole seconds, 2s..1h: kubebridge::ValidateLeaseDuration);
  // renewals every 2/15 of it, writes stop 2/3 of it after the last successful renewal.
  absl::Duration lease_duration = absl::Seconds(15);
  // Runs once, on the renewing thread, when a held Lease is lost (serve then stops itself);
  // writes have already stopped. Empty: only the writes stop.
  std::function<void()> on_lease_lost;
  // Fired to give up waiting for the Lease at start (serve's SIGINT/SIGTERM). Not owned; may
  // be null.
  kubebridge::Cancellation* start_cancel = nullptr;
  // How often refused calls of ended minutes are recorded (CallsDenied); the rest are
  // recorded at shutdown.
  absl::Duration denial_record_interval = absl::Seconds(10);
  // When checkpoints are signed (with a signing key).
  CheckpointPolicy checkpoints;
  // Events at the tail of the log whose hashes are checked at start-up (>= 1); a mismatch
  // refuses the start unless read_only.
  int64_t startup_verify_events = 10000;
  // Write one JSON access-log line per gRPC call to stderr and answer every call with its
  // x-request-id (access_log_interceptor.h; docs/operations.md, "Logs"). Off: neither.
  bool access_log = true;
  // Serve an existing log read-only for investigation: no ServiceConfigured, no kube bridge,
  // no scheduler, no checkpoints; mutating RPCs fail with FAILED_PRECONDITION. Starts even
  // when the tail does not verify (with an error in the log).
  bool read_only = false;
};

// Checks option values that no component checks itself.
// Errors: kInvalidArgument naming the flag (--agent-token-ttl below 10m or above a year,
// --resync-period below 1s, --cluster-probe-period below 1s or
// --cluster-probe-record-interval below it, --kube-qps not positive or --kube-burst below 1,
// --listen malformed or, without TLS, not loopback or a unix socket, --tls-key or
// --tls-client-ca without --tls-cert, --snapshot-every negative, --db empty,
// --liveness-flush-interval outside 100ms..1m, --report-stale-after below 1s or below the
// flush interval, --checkpoint-every below 1, --checkpoint-interval below 10ms,
// --startup-verify-events below 1, --http-listen malformed, --http-port-file without
// --http-listen).
absl::Status ValidateServeOptions(const ServeOptions& options);

// The ServiceConfigured the options describe: URL, lowercase hex SHA-256 of the CA file
// (empty without one), TTL in seconds, enabled = URL non-empty, and the connection hash over
// URL and CA bytes (projections::ConnectionHash).
// Errors: kNotFound / kFailedPrecondition when the CA file cannot be read.
absl::StatusOr<v1::ServiceConfigured> ServiceConfigurationFor(const ServeOptions& options);

// The warning OpenEventLog logs (with field `db`, the path) when it created a new log.
inline constexpr char kNewEventLogMessage[] =
    "created a new, empty event log: there was no database at --db (no file, or an empty one); "
    "expected at the first start only, otherwise check --db and the volume mounted there";

// Creates the parent directory of `db_path` when missing, then opens (creating and
// migrating) the event log there; with `read_only`, opens an existing log for reading only.
// Logs kNewEventLogMessage when there was no file (or an empty one) at `db_path` and the log
// was created.
// Errors: kFailedPrecondition when the directory cannot be created; SqliteEventStore::Open's.
absl::StatusOr<std::unique_ptr<store::SqliteEventStore>> OpenEventLog(
    const std::filesystem::path& db_path, store::SqliteEventStoreOptions::Synchronous synchronous,
    common::Clock* clock, bool read_only = false,
    std::function<absl::Status()> write_fence = {});

class Server {
 public:
  // Validates `options`, builds every component and starts serving.
  // Errors: ValidateServeOptions's; store open errors (kFailedPrecondition for a newer
  // schema, kDataLoss for a corrupt file, kUnavailable when locked); kUnavailable when the
  // address cannot be bound; kInternal when the port file cannot be written.
  static absl::StatusOr<std::unique_ptr<Server>> Start(ServeOptions options);
  // Shuts down (see Shutdown).
  ~Server();
  Server(const Server&) = delete;
  Server& operator=(const Server&) = delete;

  // The address clients dial: "<host>:<bound port>", or the unix socket address as given.
  const std::string& address() const { return address_; }
  // The bound TCP port; 0 for a unix socket.
  int port() const { return port_; }
  // The bound port of the HTTP endpoint (--http-listen); 0 without one.
  int http_port() const { return http_server_ == nullptr ? 0 : http_server_->port(); }
  // The running components, for tests and for wiring more components beside the API.
  store::EventStore* event_store() const { return store_.get(); }
  projections::CredentialProjector* projector() const { return projector_.get(); }
  TargetCommandBus* command_bus() const { return bus_.get(); }
  projections::StatusProjector* status_projector() const { return status_projector_.get(); }
  projections::IdentityProjector* identity_projector() const {
    return identity_projector_.get();
  }
  // The credential bridge; null without a cluster connection or when read-only.
  kubebridge::CredentialBridge* credential_bridge() const { return bridge_.get(); }
  // The mirror bridge; null without a cluster connection or when read-only.
  kubebridge::MirrorBridge* mirror_bridge() const { return mirror_bridge_.get(); }
  // Registered clusters and source verification.
  ConnectionServices* connections() const { return connections_.get(); }
  // The guard of the TLS files; null without TLS.
  const TlsFileGuard* tls_files() const { return tls_files_.get(); }

  // Blocks until Shutdown has completed.
  void Wait();
  // Stops serving: watches end with UNAVAILABLE, in-flight calls get up to 5 seconds, then
  // every component stops in reverse order. Idempotent; returns once everything stopped.
  void Shutdown();

 private:
  explicit Server(ServeOptions options);
  absl::Status Wire();
  absl::Status StartGrpc();
  absl::Status StartReports();
  absl::Status StartBridge(const v1::ServiceConfigured& config);
  // Loads the home cluster connection and its client (server_lease.cc).
  absl::Status ConnectCluster(const v1::ServiceConfigured& config);
  // Takes the Lease when asked to (server_lease.cc); blocks until held.
  absl::Status AcquireLease();
  // Gives the Lease up at shutdown, after the log is closed (server_lease.cc).
  void ReleaseLease();
  absl::Status LoadSigningKey();
  // Metrics and readiness (server_operations.cc): StartOperations runs first (closed
  // readiness gates, the Kubernetes request counter, the HTTP endpoint); WireOperations
  // last (the components' metrics and checks; opens the gRPC gate).
  absl::Status StartOperations();
  absl::Status WireOperations();
  absl::Status VerifyTail();

  const ServeOptions options_;
  std::string address_;
  int port_ = 0;

  // Before every component, so that they outlive all of them.
  common::MetricsRegistry metrics_;
  Readiness readiness_;
  // Counts every Kubernetes API request into metrics_.
  kubebridge::KubeRequestObserver kube_requests_;
  std::unique_ptr<OperationsHttpServer> http_server_;

  std::unique_ptr<store::SqliteEventStore> store_;
  std::unique_ptr<projections::CredentialProjector> projector_;
  std::unique_ptr<TargetCommandBus> bus_;
  // The home cluster connection (ConnectCluster); unset without one.
  std::optional<kubebridge::ConnectionConfig> home_connection_;
  std::unique_ptr<kubebridge::KubeClient> kube_client_;
  // The Lease's own client (no rate limit shared with the bridge) and the fence.
  std::unique_ptr<kubebridge::KubeClient> lease_client_;
  std::unique_ptr<kubebridge::LeaseFence> lease_;
  std::unique_ptr<BridgeOutcomeSink> sink_;
  std::unique_ptr<kubebridge::CredentialBridge> bridge_;
  std::unique_ptr<TargetApi> api_;
  std::unique_ptr<TargetGrpcService> grpc_service_;
  // The checked copies of --tls-* that gRPC watches; unset without TLS. Declared before the
  // credentials, so that it outlives gRPC's file watcher.
  std::unique_ptr<TlsFileGuard> tls_files_;
  // Made from --tls-* before anything is opened, so that bad TLS files change nothing.
  std::shared_ptr<grpc::ServerCredentials> grpc_credentials_;
  std::unique_ptr<grpc::Server> grpc_server_;

  AuthorizationPolicy policy_ = AuthorizationPolicy::AllowAll();
  DenialLedger denials_;
  std::unique_ptr<CallAuthorizer> authorizer_;
  std::unique_ptr<DenialRecorder> denial_recorder_;
  std::unique_ptr<projections::StatusProjector> status_projector_;
  std::unique_ptr<ReportCommandBus> report_bus_;
  std::unique_ptr<LivenessBuffer> liveness_;
  std::unique_ptr<ReportIngest> report_ingest_;
  std::unique_ptr<ReportScheduler> report_scheduler_;
  std::unique_ptr<BridgeReportSink> report_sink_;
  std::unique_ptr<kubebridge::ReportWatcher> report_watcher_;
  std::unique_ptr<ReportApi> report_api_;
  std::unique_ptr<ReportGrpcService> report_grpc_service_;

  std::unique_ptr<projections::IdentityProjector> identity_projector_;
  std::unique_ptr<IdentityCommandBus> identity_bus_;
  std::unique_ptr<BridgeMirrorSink> mirror_sink_;
  std::unique_ptr<kubebridge::MirrorBridge> mirror_bridge_;
  std::unique_ptr<SecretAccessReviewer> access_reviewer_;
  std::unique_ptr<IdentityApi> identity_api_;
  std::unique_ptr<IdentityGrpcService> identity_grpc_service_;

  std::unique_ptr<ConnectionServices> connections_;

  std::optional<audit::SigningKey> signing_key_;
  std::unique_ptr<CheckpointWriter> checkpoint_writer_;
  std::unique_ptr<AuditApi> audit_api_;
  std::unique_ptr<AuditGrpcService> audit_grpc_service_;

  absl::Mutex mu_;
  bool shutting_down_ ABSL_GUARDED_BY(mu_) = false;
  bool stopped_ ABSL_GUARDED_BY(mu_) = false;
};

}  // namespace credledger::service
