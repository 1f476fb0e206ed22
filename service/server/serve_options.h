// ServeOptions: what `credledger serve` is told by its flags (docs/api.md, "Server
// subcommands"), grouped by the component each group configures: the event log, the gRPC
// API, the HTTP operations endpoint, agent credentials, the Kubernetes connection, reports,
// audit and the Lease. Also the checks no component makes itself (ValidateServeOptions) and
// the service configuration the options describe (ServiceConfigurationFor).
//
// Building options needs only this header; running them needs the Server (server.h).
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "common/clock.h"
#include "credledger/v1/events.pb.h"
#include "kubebridge/client/cancellation.h"
#include "service/api/checkpoint_writer.h"
#include "service/api/report_api.h"
#include "service/api/report_ingest.h"
#include "service/api/target_api.h"
#include "service/grpc/open_streams.h"
#include "service/server/http_limits.h"
#include "service/wire/grpc_tls.h"
#include "store/open/log_location.h"
#include "store/sqlite_event_store.h"

namespace credledger::service {

// Shortest agent token lifetime accepted: rotation starts at 80% of the lifetime, and
// shorter tokens would churn Secrets faster than agents re-render.
inline constexpr absl::Duration kMinAgentTokenTtl = absl::Minutes(10);
// Longest agent token lifetime accepted (one year); API servers clamp far below it anyway.
inline constexpr absl::Duration kMaxAgentTokenTtl = absl::Hours(24 * 365);
// Bounds of --report-max-bytes: 1 KiB, and etcd's 1.5 MiB request limit, beyond which no
// TargetReport can be stored in a cluster.
inline constexpr int64_t kMinReportBytes = 1024;
inline constexpr int64_t kMaxReportBytes = 1536 * 1024;
// Longest --report-min-interval accepted.
inline constexpr absl::Duration kMaxReportMinInterval = absl::Hours(1);

// Upper bounds of the gRPC limits' flags (docs/api.md, "Threads and streams").
inline constexpr size_t kMaxStreams = 100000;
inline constexpr size_t kMaxWatchQueueBytes = size_t{1} << 30;
inline constexpr int kMaxCallThreads = 256;
inline constexpr size_t kQueuedCallsPerThread = 64;
// Longest --token-audience.
inline constexpr size_t kMaxTokenAudienceBytes = 256;

// Most connections --http-max-connections accepts (each may hold a thread).
inline constexpr size_t kMaxHttpConnections = 1024;

// What `credledger serve` is told by its flags. The defaults are the flags' defaults.
struct ServeOptions {
  // Source of "now" for commands and recorded times. Not owned.
  common::Clock* clock = common::RealClock::Default();

  // The event log and its projections (server_log.cc).
  struct Log {
    // --db: the event log; its parent directory is created when missing.
    std::filesystem::path db_path = "./var/credledger.db";
    // --store: the event log on PostgreSQL instead (a libpq connection string without a
    // password; docs/postgres.md); empty: SQLite at db_path.
    std::string store_conninfo;
    // --store-password-file's first line; empty: libpq's own sources. Never logged.
    std::string store_password;
    // Where the log is, from the fields above.
    store::LogLocation location() const;
    // Called once with the reason when a PostgreSQL log stops accepting this replica's writes
    // for good (another replica took over, docs/postgres.md "The fence"; or the database lost
    // acknowledged events): serve shuts down. Empty: the log only refuses writes.
    std::function<void(const absl::Status&)> on_stopped;
    // --synchronous: PRAGMA synchronous of the log.
    store::SqliteEventStoreOptions::Synchronous synchronous =
        store::SqliteEventStoreOptions::Synchronous::kFull;
    // --snapshot-every: events between projection snapshots (>= 0; 0 disables them).
    int64_t snapshot_every = 1000;
    // --startup-verify-events: events at the tail of the log whose hashes are checked at
    // start-up (>= 1); a mismatch refuses the start unless read_only.
    int64_t startup_verify_events = 10000;
    // --read-only: serve an existing log read-only for investigation: no ServiceConfigured,
    // no kube bridge, no scheduler, no checkpoints; mutating RPCs fail with
    // FAILED_PRECONDITION. Starts even when the tail does not verify (with an error in the
    // log).
    bool read_only = false;
  } log;

  // The gRPC API (server_grpc.cc).
  struct Grpc {
    // --listen: gRPC listening address; port 0 lets the kernel choose. Without TLS only
    // loopback or a unix socket (listen_address.h); with TLS any "host:port".
    std::string listen_address = "127.0.0.1:7443";
    // --tls-cert, --tls-key, --tls-client-ca: TLS for the gRPC API (grpc_tls.h); empty
    // cert_file and key_file: plaintext. A client CA file makes it mutual TLS, and the client
    // certificate names the caller.
    ServerTlsFiles tls;
    // --port-file: when set, the bound port is written there (decimal, newline) once the
    // server listens.
    std::filesystem::path port_file;
    // --access-log: write one JSON access-log line per gRPC call to stderr and answer every
    // call with its x-request-id (access_log_interceptor.h; docs/operations.md, "Logs").
    // Off: neither.
    bool access_log = true;
    // Read-your-writes timeout and watch queue bounds of TargetService and ReportService;
    // their watch_queue_bytes come from `watch_queue_bytes`, the rest has no flag.
    TargetApi::Options target_api;
    ReportApi::Options report_api;
    // --watch-queue-bytes (1..kMaxWatchQueueBytes): bytes of changes one watch may hold.
    int64_t watch_queue_bytes = static_cast<int64_t>(TargetApi::Options{}.watch_queue_bytes);
    // --max-streams, --max-streams-per-caller (1..kMaxStreams each): open watch and export
    // streams (OpenStreams; docs/api.md, "Threads and streams").
    int64_t max_streams = static_cast<int64_t>(OpenStreams::Limits{}.max_streams);
    int64_t max_streams_per_caller =
        static_cast<int64_t>(OpenStreams::Limits{}.max_streams_per_caller);
    // --call-threads, --remote-call-threads (1..kMaxCallThreads): threads for calls that
    // read or write the log, and for calls that wait on a cluster or a remote; each pool
    // lets kQueuedCallsPerThread calls per thread wait.
    int64_t call_threads = 16;
    int64_t remote_call_threads = 8;
    // --authorization-policy: authorization policy file (authorization_policy.h). Empty:
    // only health checking and reflection answer, unless `insecure_allow_all`
    // (docs/api.md, "Authorization").
    std::filesystem::path authorization_policy;
    // --token-audience: the audience a caller's ServiceAccount token must be for; with a
    // cluster connection such tokens are reviewed there and name their ServiceAccount
    // (docs/api.md, "ServiceAccount tokens"). Empty: bearer tokens are refused, and with
    // --tls-client-ca every client needs a certificate.
    std::string token_audience = "credledger";
    // --insecure-allow-all: without a policy file, every caller may call every RPC (a warning
    // at start-up). REQUIRES: authorization_policy empty.
    bool insecure_allow_all = false;
    // How often refused calls of ended minutes are recorded (CallsDenied); the rest are
    // recorded at shutdown (no flag).
    absl::Duration denial_record_interval = absl::Seconds(10);
    // With the access log: refused calls are written in full once per peer address and
    // interval, the others summed up per interval (common/repeat_log.h; no flag).
    absl::Duration refused_call_log_interval = absl::Seconds(10);
  } grpc;

  // The operations endpoint (server_operations.cc; docs/operations.md, "Metrics and health").
  struct Http {
    // --http-listen: plain-HTTP address of /metrics, /healthz and /readyz ("host:port",
    // "[v6]:port"; port 0 lets the kernel choose); empty: no HTTP endpoint.
    std::string listen_address;
    // --http-port-file: when set, the bound HTTP port is written there (decimal, newline)
    // once it listens.
    std::filesystem::path port_file;
    // --http-max-connections (1..kMaxHttpConnections) and the limits without a flag.
    HttpLimits limits;
  } http;

  // Agent credentials; recorded as ServiceConfigured (ServiceConfigurationFor).
  struct Credentials {
    // --agent-apiserver-url: agent API server URL; empty disables credentials
    // (AgentCredentialReady=False/Disabled).
    std::string agent_apiserver_url;
    // --agent-ca-file: CA bundle agents use for that server; hashed into ServiceConfigured.
    // Empty: none.
    std::filesystem::path agent_ca_file;
    // --agent-token-ttl: lifetime requested for agent tokens (>= kMinAgentTokenTtl).
    absl::Duration agent_token_ttl = absl::Hours(24);
  } credentials;

  // The cluster the kube bridge writes to, and registered clusters (server_bridge.cc).
  struct Kube {
    // --kubeconfig (default $KUBECONFIG): kubeconfig of the cluster the kube bridge writes
    // to. Empty: the in-cluster service account when KUBERNETES_SERVICE_HOST is set, else no
    // cluster: the API runs without the bridge (a warning when credentials are enabled) and
    // mint intents wait in the log.
    std::filesystem::path kubeconfig;
    // --kube-qps, --kube-burst: client-side rate limit of Kubernetes API calls (requests/s
    // and burst).
    double qps = 5;
    int burst = 10;
    // --resync-period: every Target is reconciled at least this often.
    absl::Duration resync_period = absl::Minutes(10);
    // --cluster-probe-period: every registered cluster is probed at least this often (>= 1s).
    absl::Duration cluster_probe_period = absl::Minutes(5);
    // --cluster-probe-record-interval: an unchanged probe outcome is recorded again after
    // this long (>= the probe period).
    absl::Duration cluster_probe_record_interval = absl::Hours(1);
  } kube;

  // Reports: heartbeats and staleness (server_reports.cc).
  struct Reports {
    // --report-stale-after: Reporting=False/Stale after this long without a report or
    // heartbeat (>= 1s and at least liveness_flush_interval).
    absl::Duration stale_after = absl::Minutes(10);
    // --liveness-flush-interval: how often heartbeats are recorded (one LivenessObserved) and
    // staleness is checked (100ms to 1m).
    absl::Duration liveness_flush_interval = absl::Seconds(5);
    // --report-max-bytes (kMinReportBytes..kMaxReportBytes) and --report-min-interval (0 to
    // 1h, and below --report-stale-after): ReportIngest::Limits (docs/reports.md, "Limits").
    ReportIngest::Limits limits;
    // --space-reserve: bytes that must stay free on the log's file system for reports and
    // heartbeats to be appended (SpaceReserve; >= 0, 0 disables).
    int64_t space_reserve_bytes = int64_t{256} << 20;
  } reports;

  // Signed checkpoints and export trailers (server_audit.cc).
  struct Audit {
    // --signing-key: Ed25519 private key (PEM, `credledger keygen`) that signs checkpoints
    // and export trailers. Empty: nothing is signed (a warning at start-up) and exports do
    // not verify.
    std::filesystem::path signing_key;
    // --checkpoint-every, --checkpoint-interval: when checkpoints are signed (with a signing
    // key).
    CheckpointPolicy checkpoints;
    // --trusted-public-key: public keys (PEM) of the service's earlier signing keys; their
    // checkpoints anchor the log at start-up as the signing key's own do (docs/audit.md,
    // "Keys").
    std::vector<std::filesystem::path> trusted_public_keys;
    // --witness: where the newest checkpoints are published outside the database
    // (audit/witness.h: "file:<path>" or "kubernetes:<namespace>/<configmap>"); empty: none.
    // Needs a signing key.
    std::string witness;
    // --witness-interval: checkpoints are published to the witness at most this often (the
    // first after start and the last at shutdown always); >= 1s.
    absl::Duration witness_interval = absl::Minutes(1);
    // --adopt-log with --reason and --adopted-by: start on a log the start-up checks refuse
    // (no recent trusted checkpoint, or a contradicting witness) and record LogAdopted
    // (docs/audit.md, "Adopting a log"). adopted_by empty: the operating system user.
    bool adopt_log = false;
    std::string adopt_reason;
    std::string adopted_by;
  } audit;

  // The key of source fingerprints (server_bridge.cc; docs/audit.md, "Source
  // fingerprints"), read when the kube bridge starts (a cluster connection, not read-only).
  struct Fingerprints {
    // --fingerprint-key: the key file (`credledger keygen --fingerprint-key`), which must
    // exist. Empty: FingerprintKeyPath's default beside the database, made when missing.
    std::filesystem::path key_file;
  } fingerprints;

  // The Lease fence (server_lease.cc; kubebridge/client/lease_fence.h; docs/operations.md,
  // "The Lease fence"): with a name, serve takes the coordination.k8s.io/v1 Lease before it
  // opens the log, writes only while it holds it, and releases it at shutdown. Needs a
  // cluster connection; ignored when log.read_only. Empty name: no Lease (one process by
  // construction, e.g. a local run).
  struct Lease {
    // --lease-name.
    std::string name;
    // --lease-namespace: its namespace; empty: the cluster connection's namespace (the
    // pod's), else "default".
    std::string namespace_name;
    // --lease-identity: this replica's holderIdentity; empty:
    // "<hostname>_<8 random hex digits>".
    std::string identity;
    // --lease-duration: leaseDurationSeconds (whole seconds, 2s..1h:
    // kubebridge::ValidateLeaseDuration); renewals every 2/15 of it, writes stop 2/3 of it
    // after the last successful renewal.
    absl::Duration duration = absl::Seconds(15);
    // Runs once, on the renewing thread, when a held Lease is lost (serve then stops
    // itself); writes have already stopped. Empty: only the writes stop.
    std::function<void()> on_lost;
    // Fired to give up waiting for the Lease at start (serve's SIGINT/SIGTERM). Not owned;
    // may be null.
    kubebridge::Cancellation* start_cancel = nullptr;
  } lease;
};

// Checks option values that no component checks itself.
// Errors: kInvalidArgument naming the flag (--agent-token-ttl below 10m or above a year,
// --resync-period below 1s, --cluster-probe-period below 1s or
// --cluster-probe-record-interval below it, --kube-qps not positive or --kube-burst below 1,
// --listen malformed or, without TLS, not loopback or a unix socket, --tls-key or
// --tls-client-ca without --tls-cert, --snapshot-every negative, --db empty,
// --liveness-flush-interval outside 100ms..1m, --report-stale-after below 1s or below the
// flush interval, --report-max-bytes outside kMinReportBytes..kMaxReportBytes,
// --report-min-interval negative, above kMaxReportMinInterval or not below
// --report-stale-after, --space-reserve negative, --checkpoint-every below 1, --checkpoint-interval
// below 10ms,
// --startup-verify-events below 1, --http-listen malformed, --http-port-file without
// --http-listen, --http-max-connections outside 1..kMaxHttpConnections, --witness malformed or
// without --signing-key, --witness-interval below 1s,
// --reason or --adopted-by without --adopt-log or breaking their rules, --adopt-log without
// --reason).
absl::Status ValidateServeOptions(const ServeOptions& options);

// The fingerprint key file serve reads: --fingerprint-key, or without it "fingerprint-key" in
// the folder of --db (docs/operations.md, "The fingerprint key").
std::filesystem::path FingerprintKeyPath(const ServeOptions& options);

// The SQLite read connections serve keeps: one per call thread, since each may read the log
// outside the writer (a heartbeat: docs/reports.md, "How a heartbeat is decided"), plus the
// store's default for the other readers (projectors, watches, the bridge). A pool smaller than
// its readers opens and closes a connection for every read beyond it.
int ReadConnections(const ServeOptions::Grpc& grpc);

// The ServiceConfigured the options describe: URL, lowercase hex SHA-256 of the CA file
// (empty without one), TTL in seconds, enabled = URL non-empty, and the connection hash over
// URL and CA bytes (projections::ConnectionHash).
// Errors: kNotFound / kFailedPrecondition when the CA file cannot be read.
absl::StatusOr<v1::ServiceConfigured> ServiceConfigurationFor(const ServeOptions& options);

}  // namespace credledger::service
