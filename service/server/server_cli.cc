#include "service/server/server_cli.h"

#include <pthread.h>
#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <cstring>
#include <thread>

#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "cli/framework/file_path_flag.h"
#include "cli/framework/flag_value_list.h"
#include "common/dns_label.h"
#include "common/repeat_log.h"
#include "common/status_macros.h"
#include "kubebridge/client/lease_fence.h"
#include "service/server/event_log.h"
#include "service/server/serve_options.h"
#include "service/server/server.h"
#include "service/wire/grpc_log.h"
#include "store/open/log_location.h"

namespace credledger::service {
namespace {

store::SqliteEventStoreOptions::Synchronous ParseSynchronous(const std::string& value) {
  return value == "normal" ? store::SqliteEventStoreOptions::Synchronous::kNormal
                           : store::SqliteEventStoreOptions::Synchronous::kFull;
}

std::string EnvOr(const char* name, const std::string& fallback) {
  const char* value = std::getenv(name);
  return value != nullptr && *value != '\0' ? std::string(value) : fallback;
}

class ServeCommand final : public cli::Subcommand {
 public:
  void DefineFlags(cli::FlagSet& flags) override {
    flags_ = &flags;
    flags.Add("db", &db_, "event log database file (its folder is created when missing)");
    flags.AddNonEmpty("store", &store_, store::kStoreFlagHelp);
    flags.AddNonEmpty("store-password-file", &store_password_file_, store::kStorePasswordFileHelp);
    flags.Add("listen", &listen_,
              "gRPC address: host:port (port 0 picks one) or unix:path; without TLS only "
              "loopback or a unix socket");
    flags.Add("tls-cert", &tls_cert_,
              "PEM certificate chain of the gRPC server; with --tls-key turns TLS on (files "
              "are re-read every minute, so renewed certificates apply without a restart)");
    flags.Add("tls-key", &tls_key_, "PEM private key of --tls-cert");
    flags.Add("tls-client-ca", &tls_client_ca_,
              "PEM CA bundle that verifies client certificates; turns on mutual TLS (every "
              "client must present one), and the certificate's URI SAN (else its subject) is "
              "the caller's identity");
    flags.Add("port-file", &port_file_,
              "write the bound port to this file once listening (a file path, not a folder)");
    flags.Add("lease-name", &lease_name_,
              "take this coordination.k8s.io/v1 Lease before writing and write only while "
              "holding it (one writer among replicas); empty: no Lease");
    flags.Add("lease-namespace", &lease_namespace_,
              "namespace of the Lease (default: the cluster connection's, else default)");
    flags.Add("lease-identity", &lease_identity_,
              "this replica's holderIdentity (default: <hostname>_<random>)");
    flags.Add("lease-duration", &lease_duration_,
              "lease duration, whole seconds from 2s to 1h (e.g. 15s); writes stop 2/3 of it "
              "after the last renewal");
    flags.Add("http-listen", &http_listen_,
              "plain-HTTP address of /metrics, /healthz and /readyz: host:port (port 0 picks "
              "one; 0.0.0.0:<port> for every interface, as Prometheus and kubelet probes need); "
              "empty, the default, serves none (docs/operations.md)");
    flags.Add("http-port-file", &http_port_file_,
              "write the bound HTTP port to this file once listening (needs --http-listen; a "
              "file path, not a folder)");
    flags.Add("http-max-connections", &http_max_connections_,
              "HTTP connections served at once (1..1024); a further one is answered 503 and "
              "closed (docs/operations.md, \"Limits of the HTTP endpoint\")");
    flags.Add("token-audience", &token_audience_,
              "audience a caller's ServiceAccount token must be for; reviewed by the cluster "
              "connection (docs/api.md, \"ServiceAccount tokens\"); empty refuses tokens");
    flags.Add("max-streams", &max_streams_,
              "watch and export streams open at once, in total (1..100000); a further one is "
              "refused with RESOURCE_EXHAUSTED (docs/api.md, \"Threads and streams\")");
    flags.Add("max-streams-per-caller", &max_streams_per_caller_,
              "watch and export streams one caller may have open at once (1..100000; above "
              "--max-streams the total binds first)");
    flags.Add("watch-queue-bytes", &watch_queue_bytes_,
              "bytes of changes one watch may hold for a client that reads slowly "
              "(1..1073741824); past it, or past 1024 changes, the watch ends "
              "RESOURCE_EXHAUSTED");
    flags.Add("call-threads", &call_threads_,
              "threads for calls that read or write the log (1..256)");
    flags.Add("remote-call-threads", &remote_call_threads_,
              "threads for calls that wait on a cluster or a Git, Helm or OCI remote (1..256)");
    flags.Add("agent-apiserver-url", &agent_apiserver_url_,
              "API server URL agents use; empty disables credentials");
    flags.Add("agent-ca-file", &agent_ca_file_,
              "CA bundle agents use for that server (hashed into the connection hash)");
    flags.Add("agent-token-ttl", &agent_token_ttl_,
              "lifetime of agent tokens, at least 10m (e.g. 24h, 90m)");
    flags.Add("kubeconfig", &kubeconfig_,
              "kubeconfig of the cluster credledger writes to (default $KUBECONFIG)");
    flags.Add("kube-qps", &kube_qps_, "Kubernetes API requests per second (client-side limit)");
    flags.Add("kube-burst", &kube_burst_, "Kubernetes API requests allowed in a burst");
    flags.Add("resync-period", &resync_period_,
              "every Target is reconciled at least this often (e.g. 10m)");
    flags.Add("cluster-probe-period", &cluster_probe_period_,
              "every registered cluster is probed at least this often (e.g. 5m)");
    flags.Add("cluster-probe-record-interval", &cluster_probe_record_interval_,
              "an unchanged probe outcome is recorded again after this long (e.g. 1h)");
    flags.AddChoice("synchronous", &synchronous_, {"full", "normal"},
                    "SQLite synchronous mode of the log");
    flags.Add("snapshot-every", &snapshot_every_,
              "events between projection snapshots; 0 disables them. Snapshots are sealed "
              "with --signing-key: without it none is written or loaded");
    flags.Add("report-stale-after", &report_stale_after_,
              "Reporting=False/Stale after this long without a report or heartbeat (at least "
              "1s and --liveness-flush-interval)");
    flags.Add("liveness-flush-interval", &liveness_flush_interval_,
              "how often heartbeats are recorded and staleness is checked (100ms..1m)");
    flags.Add("report-max-bytes", &report_max_bytes_,
              "largest report accepted, in bytes of its encoding as the log stores it (1024 to "
              "1572864); a larger one is refused (docs/reports.md, \"Limits\")");
    flags.Add("report-min-interval", &report_min_interval_,
              "shortest time between two recorded changed reports of one Target (0 to 1h, "
              "below --report-stale-after); sooner ones wait, the newest wins, 0 turns it off");
    flags.Add("space-reserve", &space_reserve_,
              "bytes kept free on the database's file system: below it reports and "
              "heartbeats are refused while revocations and other commands still commit; 0 "
              "turns it off");
    flags.Add("authorization-policy", &authorization_policy_,
              "YAML file naming the RPCs and Targets each caller may call (docs/api.md); "
              "without one only health checking and reflection answer");
    flags.Add("insecure-allow-all", &insecure_allow_all_,
              "without a policy file, let every caller call every RPC on every Target (a "
              "trusted development host only; logged as a warning)");
    flags.Add("signing-key", &signing_key_,
              "Ed25519 private key (PEM, from `credledger keygen`) that signs checkpoints and "
              "export trailers; without one nothing is signed and exports do not verify");
    flags.Add("fingerprint-key", &fingerprint_key_,
              "key file (from `credledger keygen --fingerprint-key`) under which the log "
              "records source Secrets, so that a guessed value cannot be checked against it; "
              "must exist; required with --store. Default with --db: fingerprint-key in the "
              "--db folder, made (mode 0600) at the first start with a cluster connection");
    flags.Add("checkpoint-every", &checkpoint_every_,
              "sign a checkpoint after this many new events (>= 1)");
    flags.Add("checkpoint-interval", &checkpoint_interval_,
              "or after this long when the log grew (>= 10ms, e.g. 1s)");
    flags.Add("startup-verify-events", &startup_verify_events_,
              "events at the tail of the log whose hashes are checked before serving (>= 1)");
    flags.Add("trusted-public-key", &trusted_public_keys_,
              "public key (PEM) of an earlier signing key whose checkpoints still anchor the "
              "log at start-up, after a key rotation (repeat the flag or separate with commas)");
    flags.Add("witness", &witness_,
              "publish the newest checkpoints outside the database and check the log against "
              "them at start-up: file:<path> or kubernetes:<namespace>/<configmap> "
              "(docs/audit.md, \"Witnesses\"); needs --signing-key");
    flags.Add("witness-interval", &witness_interval_,
              "publish a checkpoint to the witness at most this often (>= 1s, e.g. 1m)");
    flags.Add("adopt-log", &adopt_log_,
              "start even though the start-up checks refuse the log (no recent checkpoint of a "
              "trusted key, or a log that contradicts the witness); recorded as LogAdopted");
    flags.Add("reason", &adopt_reason_, "with --adopt-log (required): why, recorded in the log");
    flags.Add("adopted-by", &adopted_by_,
              "with --adopt-log: who adopts, recorded in the log (default: the OS user)");
    flags.Add("access-log", &access_log_,
              "write one JSON line per gRPC call to stderr (rpc, request id, caller, code, "
              "duration; docs/operations.md) and answer each call with its x-request-id; "
              "--access-log=false turns both off");
    flags.Add("read-only", &read_only_,
              "serve an existing log for investigation: reads and audit RPCs only, no kube "
              "bridge, starts even when the log does not verify");
  }

  // Every flag value is checked here, before anything is opened or printed, so that a bad one
  // is a usage error (exit 2) rather than a start that fails (docs/api.md, "Bad input" and
  // "Server subcommands"): ValidateServeOptions, the paths of the port files and of
  // --fingerprint-key, and the Lease flags.
  // The Lease flags other than --lease-name configure a Lease: without its name they would be
  // ignored, which hides a mistyped or forgotten --lease-name.
  absl::Status CheckFlags() const override {
    ASSIGN_OR_RETURN(const ServeOptions options, Options());
    RETURN_IF_ERROR(ValidateServeOptions(options));
    if (!port_file_.empty()) RETURN_IF_ERROR(cli::CheckFilePathFlag("--port-file", port_file_));
    if (!http_port_file_.empty()) {
      RETURN_IF_ERROR(cli::CheckFilePathFlag("--http-port-file", http_port_file_));
    }
    if (!fingerprint_key_.empty()) {
      RETURN_IF_ERROR(cli::CheckFilePathFlag("--fingerprint-key", fingerprint_key_));
    }
    if (lease_name_.empty()) {
      for (const char* flag : {"lease-namespace", "lease-identity", "lease-duration"}) {
        if (flags_->Given(flag)) {
          return absl::InvalidArgumentError(
              absl::StrCat("--", flag, ": needs --lease-name (without a Lease it has no effect)"));
        }
      }
      return absl::OkStatus();
    }
    RETURN_IF_ERROR(common::ValidateDnsSubdomain("--lease-name", lease_name_));
    if (!lease_namespace_.empty()) {
      RETURN_IF_ERROR(common::ValidateDnsLabel("--lease-namespace", lease_namespace_));
    }
    return kubebridge::ValidateLeaseDuration(lease_duration_);
  }

  int Run(const std::vector<std::string>&, std::ostream& out, std::ostream& err) override {
    absl::StatusOr<ServeOptions> flagged = Options();
    if (!flagged.ok()) return cli::ReportUsageError(flagged.status().message(), err);
    ServeOptions options = *std::move(flagged);
    // Every thread the server starts inherits this mask, so the signals reach only sigwait.
    sigset_t stop_signals;
    sigemptyset(&stop_signals);
    sigaddset(&stop_signals, SIGINT);
    sigaddset(&stop_signals, SIGTERM);
    pthread_sigmask(SIG_BLOCK, &stop_signals, nullptr);

    // A signal before the server runs (for example while it waits for the Lease) cancels
    // the start; afterwards it shuts the server down.
    kubebridge::Cancellation starting;
    std::atomic<int> signal_number{0};
    std::atomic<bool> lease_lost{false};
    options.lease.start_cancel = &starting;
    options.lease.on_lost = [&lease_lost] {
      lease_lost = true;
      kill(getpid(), SIGTERM);
    };
    // Set on the log's writer thread when the log stops taking this replica's writes.
    absl::Mutex stopped_mu;
    absl::Status log_stopped;
    options.log.on_stopped = [&](const absl::Status& reason) {
      {
        absl::MutexLock lock(&stopped_mu);
        log_stopped = reason;
      }
      kill(getpid(), SIGTERM);
    };
    std::thread signals([&] {
      int received = 0;
      sigwait(&stop_signals, &received);
      signal_number = received;
      starting.Cancel();
    });
    const std::string transport(TransportModeName(options.grpc.tls));
    // gRPC core's messages as JSON lines, failed handshakes summed up (grpc_log.h).
    common::RepeatLog& handshakes = RouteGrpcLogsToServiceLog();
    absl::StatusOr<std::unique_ptr<Server>> server = Server::Start(std::move(options));
    if (!server.ok()) {
      handshakes.Stop();
      // Ends the signal thread. Directed at that thread alone: a process-wide signal could
      // reach a thread that does not block it (one started before this command, when it
      // runs inside a larger process such as a test) and end the whole process.
      if (signal_number.load() == 0) pthread_kill(signals.native_handle(), SIGTERM);
      signals.join();
      return cli::ReportError(server.status(), err);
    }
    out << "credledger serving on " << (*server)->address() << " (" << transport << ")"
        << std::endl;
    signals.join();
    const absl::Status stopped = [&] {
      absl::MutexLock lock(&stopped_mu);
      return log_stopped;
    }();
    if (lease_lost.load()) {
      err << "credledger: the Lease was lost, shutting down\n";
    } else if (!stopped.ok()) {
      err << "credledger: " << stopped.message() << "; shutting down\n";
    } else {
      err << "credledger: " << strsignal(signal_number.load()) << ", shutting down\n";
    }
    (*server)->Shutdown();
    handshakes.Stop();
    return lease_lost.load() || !stopped.ok() ? cli::kExitFailure : cli::kExitOk;
  }

 private:
  // The options the flags give; Run adds the start-up cancellation and the lease-lost and
  // log-stopped hooks.
  // Errors: store::ParseLogLocation's.
  absl::StatusOr<ServeOptions> Options() const {
    ServeOptions options;
    ASSIGN_OR_RETURN(
        const store::LogLocation location,
        store::ParseLogLocation(db_, flags_->Given("db"), store_, store_password_file_));
    if (!location.postgres_conninfo.empty()) {
      for (const char* sqlite_only : {"synchronous", "space-reserve"}) {
        if (flags_->Given(sqlite_only)) {
          return absl::InvalidArgumentError(
              absl::StrCat("--", sqlite_only, ": only with --db (a SQLite log), not --store"));
        }
      }
    }
    options.log.db_path = db_;
    options.log.store_conninfo = location.postgres_conninfo;
    options.log.store_password = location.postgres_password;
    options.log.synchronous = ParseSynchronous(synchronous_);
    options.log.snapshot_every = snapshot_every_;
    options.log.startup_verify_events = startup_verify_events_;
    options.log.read_only = read_only_;
    options.grpc.listen_address = listen_;
    options.grpc.tls.cert_file = tls_cert_;
    options.grpc.tls.key_file = tls_key_;
    options.grpc.tls.client_ca_file = tls_client_ca_;
    options.grpc.port_file = port_file_;
    options.grpc.access_log = access_log_;
    options.grpc.authorization_policy = authorization_policy_;
    options.grpc.insecure_allow_all = insecure_allow_all_;
    options.grpc.token_audience = token_audience_;
    options.grpc.max_streams = max_streams_;
    options.grpc.max_streams_per_caller = max_streams_per_caller_;
    options.grpc.watch_queue_bytes = watch_queue_bytes_;
    options.grpc.call_threads = call_threads_;
    options.grpc.remote_call_threads = remote_call_threads_;
    options.http.listen_address = http_listen_;
    options.http.port_file = http_port_file_;
    options.http.limits.max_connections =
        http_max_connections_ < 0 ? 0 : static_cast<size_t>(http_max_connections_);
    options.credentials.agent_apiserver_url = agent_apiserver_url_;
    options.credentials.agent_ca_file = agent_ca_file_;
    options.credentials.agent_token_ttl = agent_token_ttl_;
    options.kube.kubeconfig = kubeconfig_;
    options.kube.qps = kube_qps_;
    options.kube.burst = static_cast<int>(kube_burst_);
    options.kube.resync_period = resync_period_;
    options.kube.cluster_probe_period = cluster_probe_period_;
    options.kube.cluster_probe_record_interval = cluster_probe_record_interval_;
    options.reports.stale_after = report_stale_after_;
    options.reports.liveness_flush_interval = liveness_flush_interval_;
    options.reports.limits.max_report_bytes = report_max_bytes_;
    options.reports.limits.min_interval = report_min_interval_;
    options.reports.space_reserve_bytes = space_reserve_;
    options.audit.signing_key = signing_key_;
    options.fingerprints.key_file = fingerprint_key_;
    options.audit.checkpoints.every_events = checkpoint_every_;
    options.audit.checkpoints.interval = checkpoint_interval_;
    for (const std::string& path : trusted_public_keys_.values) {
      options.audit.trusted_public_keys.emplace_back(path);
    }
    options.audit.witness = witness_;
    options.audit.witness_interval = witness_interval_;
    options.audit.adopt_log = adopt_log_;
    options.audit.adopt_reason = adopt_reason_;
    options.audit.adopted_by = adopted_by_;
    options.lease.name = lease_name_;
    options.lease.namespace_name = lease_namespace_;
    options.lease.identity = lease_identity_;
    options.lease.duration = lease_duration_;
    return options;
  }

  std::string db_ = "./var/credledger.db";
  std::string store_;
  std::string store_password_file_;
  std::string listen_ = "127.0.0.1:7443";
  std::string tls_cert_;
  std::string tls_key_;
  std::string tls_client_ca_;
  std::string port_file_;
  std::string lease_name_;
  std::string lease_namespace_;
  std::string lease_identity_;
  absl::Duration lease_duration_ = absl::Seconds(15);
  std::string http_listen_;
  std::string http_port_file_;
  int64_t http_max_connections_ = static_cast<int64_t>(HttpLimits{}.max_connections);
  std::string token_audience_ = ServeOptions::Grpc{}.token_audience;
  int64_t max_streams_ = ServeOptions::Grpc{}.max_streams;
  int64_t max_streams_per_caller_ = ServeOptions::Grpc{}.max_streams_per_caller;
  int64_t watch_queue_bytes_ = ServeOptions::Grpc{}.watch_queue_bytes;
  int64_t call_threads_ = ServeOptions::Grpc{}.call_threads;
  int64_t remote_call_threads_ = ServeOptions::Grpc{}.remote_call_threads;
  std::string agent_apiserver_url_;
  std::string agent_ca_file_;
  absl::Duration agent_token_ttl_ = absl::Hours(24);
  std::string kubeconfig_ = EnvOr("KUBECONFIG", "");
  double kube_qps_ = 5;
  int64_t kube_burst_ = 10;
  absl::Duration resync_period_ = absl::Minutes(10);
  absl::Duration cluster_probe_period_ = absl::Minutes(5);
  absl::Duration cluster_probe_record_interval_ = absl::Hours(1);
  std::string synchronous_ = "full";
  int64_t snapshot_every_ = 1000;
  absl::Duration report_stale_after_ = absl::Minutes(10);
  absl::Duration liveness_flush_interval_ = absl::Seconds(5);
  int64_t report_max_bytes_ = ReportIngest::Limits{}.max_report_bytes;
  absl::Duration report_min_interval_ = ReportIngest::Limits{}.min_interval;
  int64_t space_reserve_ = ServeOptions::Reports{}.space_reserve_bytes;
  std::string authorization_policy_;
  bool insecure_allow_all_ = false;
  std::string signing_key_;
  std::string fingerprint_key_;
  int64_t checkpoint_every_ = 1000;
  absl::Duration checkpoint_interval_ = absl::Seconds(1);
  int64_t startup_verify_events_ = 10000;
  cli::FlagValueList trusted_public_keys_;
  std::string witness_;
  absl::Duration witness_interval_ = absl::Minutes(1);
  bool adopt_log_ = false;
  std::string adopt_reason_;
  std::string adopted_by_;
  bool read_only_ = false;
  bool access_log_ = true;
  const cli::FlagSet* flags_ = nullptr;  // the flags DefineFlags declared, to ask which were given
};

class MigrateCommand final : public cli::Subcommand {
 public:
  void DefineFlags(cli::FlagSet& flags) override {
    flags_ = &flags;
    flags.Add("db", &db_, "event log database file (created when missing)");
    flags.AddNonEmpty("store", &store_, store::kStoreFlagHelp);
    flags.AddNonEmpty("store-password-file", &store_password_file_, store::kStorePasswordFileHelp);
  }
  absl::Status CheckFlags() const override { return Location().status(); }

  int Run(const std::vector<std::string>&, std::ostream& out, std::ostream& err) override {
    absl::StatusOr<store::LogLocation> location = Location();
    if (!location.ok()) return cli::ReportUsageError(location.status().message(), err);
    absl::StatusOr<int64_t> version = Migrate(*location);
    if (!version.ok() && location->is_postgres()) {  // a SQLite file's errors name --db
      version = absl::Status(version.status().code(),
                             absl::StrCat(location->Describe(), ": ", version.status().message()));
    }
    if (!version.ok()) return cli::ReportError(version.status(), err);
    out << "schema version " << *version << " (" << location->Name() << ")\n";
    return cli::kExitOk;
  }

 private:
  absl::StatusOr<store::LogLocation> Location() const {
    return store::ParseLogLocation(db_, flags_->Given("db"), store_, store_password_file_);
  }

  // A SQLite file goes through OpenEventLog, which creates its folder and warns about a new
  // log as `serve` does; a PostgreSQL log is migrated without taking the writer's epoch, so a
  // running service keeps writing.
  static absl::StatusOr<int64_t> Migrate(const store::LogLocation& location) {
    if (!location.is_postgres()) {
      ASSIGN_OR_RETURN(std::unique_ptr<store::EventLog> log,
                       OpenEventLog(location, store::OpenLogOptions()));
      log->Close();
    }
    return store::MigrateLog(location);
  }

  const cli::FlagSet* flags_ = nullptr;
  std::string db_ = "./var/credledger.db";
  std::string store_;
  std::string store_password_file_;
};

}  // namespace

void AddServerCommands(cli::Dispatcher& d) {
  d.Add({"serve", "", "run the credledger service until SIGINT or SIGTERM", 0, 0,
         [] { return std::make_unique<ServeCommand>(); }});
  d.Add({"migrate", "", "create or migrate the database, print its schema version", 0, 0,
         [] { return std::make_unique<MigrateCommand>(); }});
}

}  // namespace credledger::service
