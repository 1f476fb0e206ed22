#include "service/server/server.h"

#include <grpcpp/ext/proto_server_reflection_plugin.h>
#include <grpcpp/grpcpp.h>
#include <grpcpp/health_check_service_interface.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>
#include <system_error>
#include <utility>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "audit/log_verifier.h"
#include "common/atomic_file.h"
#include "common/log.h"
#include "common/sha256.h"
#include "common/status_macros.h"
#include "common/url.h"
#include "kubebridge/client/access_review.h"
#include "kubebridge/client/kubeconfig.h"
#include "projections/target_state.h"
#include "service/grpc/access_log_interceptor.h"
#include "service/grpc/audit_grpc_service.h"
#include "service/grpc/identity_grpc_service.h"
#include "service/grpc/report_grpc_service.h"
#include "service/grpc/target_grpc_service.h"
#include "service/server/listen_address.h"
#include "service/server/service_configuration.h"
#include "service/server/startup_gates.h"

namespace credledger::service {
namespace {

// How long in-flight calls may run once shutdown has begun.
constexpr absl::Duration kShutdownGrace = absl::Seconds(5);

absl::StatusOr<std::string> ReadFile(absl::string_view flag, const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    const int error = errno;
    const std::string message = absl::StrCat(flag, ": cannot read \"", path.string(),
                                             "\": ", std::strerror(error));
    if (error == ENOENT) return absl::NotFoundError(message);
    return absl::FailedPreconditionError(message);
  }
  std::ostringstream bytes;
  bytes << in.rdbuf();
  return bytes.str();
}

// Writes the --port-file `path` so that a reader never sees a partial file.
absl::Status WriteFileAtomically(const std::filesystem::path& path, absl::string_view text) {
  absl::Status written = common::WriteFileAtomically(path, text);
  if (written.ok()) return written;
  return absl::InternalError(absl::StrCat("--port-file: ", written.message()));
}

// "<host>:<port>" with the bound port in place of the requested one; unix addresses as given.
// REQUIRES: `listen` passed CheckListenAddress.
std::string DialAddress(const std::string& listen, int port) {
  if (absl::StartsWith(listen, "unix")) return listen;
  const absl::StatusOr<common::HostPort> split = common::SplitHostPort(listen, /*min_port=*/0);
  return split.ok() ? common::JoinHostPort(split->host, port) : listen;
}

// Access reviews over the kube bridge's cluster connection.
class KubeAccessReviewer final : public SecretAccessReviewer {
 public:
  explicit KubeAccessReviewer(kubebridge::KubeClient* client) : client_(client) {}
  absl::StatusOr<bool> Review(const v1::AccessReview& review) override {
    return kubebridge::ReviewSecretAccess(*client_, review);
  }

 private:
  kubebridge::KubeClient* client_;
};

}  // namespace

absl::Status ValidateServeOptions(const ServeOptions& options) {
  if (options.db_path.empty()) return absl::InvalidArgumentError("--db: required");
  if (options.agent_token_ttl < kMinAgentTokenTtl) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--agent-token-ttl: ", absl::FormatDuration(options.agent_token_ttl),
        " is below the minimum of ", absl::FormatDuration(kMinAgentTokenTtl)));
  }
  if (options.agent_token_ttl > kMaxAgentTokenTtl) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--agent-token-ttl: ", absl::FormatDuration(options.agent_token_ttl),
        " is above the maximum of ", absl::FormatDuration(kMaxAgentTokenTtl)));
  }
  if (options.resync_period < absl::Seconds(1)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--resync-period: ", absl::FormatDuration(options.resync_period),
        " is below the minimum of 1s"));
  }
  if (options.cluster_probe_period < absl::Seconds(1)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--cluster-probe-period: ", absl::FormatDuration(options.cluster_probe_period),
        " is below the minimum of 1s"));
  }
  if (options.cluster_probe_record_interval < options.cluster_probe_period) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--cluster-probe-record-interval: ",
        absl::FormatDuration(options.cluster_probe_record_interval),
        " is below --cluster-probe-period (",
        absl::FormatDuration(options.cluster_probe_period), ")"));
  }
  if (!(options.kube_qps > 0) || options.kube_burst < 1) {
    return absl::InvalidArgumentError(
        "--kube-qps must be > 0 and --kube-burst >= 1");
  }
  if (options.liveness_flush_interval < absl::Milliseconds(100) ||
      options.liveness_flush_interval > absl::Minutes(1)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--liveness-flush-interval: ", absl::FormatDuration(options.liveness_flush_interval),
        " is outside 100ms..1m"));
  }
  if (options.report_stale_after < absl::Seconds(1)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--report-stale-after: ", absl::FormatDuration(options.report_stale_after),
        " is below the minimum of 1s"));
  }
  if (options.report_stale_after < options.liveness_flush_interval) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--report-stale-after: ", absl::FormatDuration(options.report_stale_after),
        " is shorter than --liveness-flush-interval (",
        absl::FormatDuration(options.liveness_flush_interval), ")"));
  }
  if (options.checkpoints.every_events < 1) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--checkpoint-every: ", options.checkpoints.every_events, " is below 1"));
  }
  if (options.checkpoints.interval < absl::Milliseconds(10)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--checkpoint-interval: ", absl::FormatDuration(options.checkpoints.interval),
        " is below the minimum of 10ms"));
  }
  if (options.startup_verify_events < 1) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--startup-verify-events: ", options.startup_verify_events, " is below 1"));
  }
  if (options.snapshot_every < 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--snapshot-every: ", options.snapshot_every, " is negative; 0 disables snapshots"));
  }
  if (!options.http_listen.empty()) {
    RETURN_IF_ERROR(ParseHttpListenAddress(options.http_listen).status());
  } else if (!options.http_port_file.empty()) {
    return absl::InvalidArgumentError("--http-port-file: requires --http-listen");
  }
  RETURN_IF_ERROR(CheckServerTlsFlags(options.tls));
  return CheckListenAddress("--listen", options.listen_address, WantsTls(options.tls));
}

absl::StatusOr<v1::ServiceConfigured> ServiceConfigurationFor(const ServeOptions& options) {
  std::string ca_bundle;
  if (!options.agent_ca_file.empty()) {
    ASSIGN_OR_RETURN(ca_bundle, ReadFile("--agent-ca-file", options.agent_ca_file));
  }
  v1::ServiceConfigured config;
  config.set_agent_apiserver_url(options.agent_apiserver_url);
  if (!options.agent_ca_file.empty()) {
    config.set_agent_ca_sha256(common::HexEncode(common::Sha256Of(ca_bundle)));
  }
  config.set_agent_token_ttl_seconds(absl::ToInt64Seconds(options.agent_token_ttl));
  config.set_credentials_enabled(!options.agent_apiserver_url.empty());
  config.set_connection_hash(
      projections::ConnectionHash(options.agent_apiserver_url, ca_bundle));
  return config;
}

absl::StatusOr<std::unique_ptr<store::SqliteEventStore>> OpenEventLog(
    const std::filesystem::path& db_path, store::SqliteEventStoreOptions::Synchronous synchronous,
    common::Clock* clock, bool read_only, std::function<absl::Status()> write_fence) {
  if (db_path.has_parent_path() && !read_only) {
    std::error_code error;
    std::filesystem::create_directories(db_path.parent_path(), error);
    if (error) {
      return absl::FailedPreconditionError(absl::StrCat(
          "--db: cannot create \"", db_path.parent_path().string(), "\": ", error.message()));
    }
  }
  // No file, or an empty one (SQLite makes a new database of it).
  std::error_code missing;
  const bool creates = !read_only && (!std::filesystem::exists(db_path, missing) ||
                                      std::filesystem::file_size(db_path, missing) == 0);
  store::SqliteEventStoreOptions options;
  options.path = db_path;
  options.synchronous = synchronous;
  options.clock = clock;
  options.read_only = read_only;
  options.write_fence = std::move(write_fence);
  absl::StatusOr<std::unique_ptr<store::SqliteEventStore>> log =
      store::SqliteEventStore::Open(options);
  if (log.ok() && creates) {
    // Expected once, at the first start; at any later start a mistyped --db or a volume that
    // is not mounted would otherwise go unnoticed behind an empty fleet.
    common::Log(common::LogLevel::kWarning, kNewEventLogMessage, {{"db", db_path.string()}});
  }
  return log;
}

absl::StatusOr<std::unique_ptr<Server>> Server::Start(ServeOptions options) {
  RETURN_IF_ERROR(ValidateServeOptions(options));
  auto server = std::unique_ptr<Server>(new Server(std::move(options)));
  RETURN_IF_ERROR(server->Wire());
  return server;
}

Server::Server(ServeOptions options) : options_(std::move(options)) {}

Server::~Server() { Shutdown(); }

// The one place where the service's components are put together, in dependency order.
absl::Status Server::Wire() {
  // First, so that probes are answered during a long start (gates closed until ready).
  RETURN_IF_ERROR(StartOperations());
  // The TLS files are checked before the log is opened (or created and migrated).
  grpc_credentials_ = grpc::InsecureServerCredentials();
  if (WantsTls(options_.tls)) {
    ASSIGN_OR_RETURN(tls_files_, TlsFileGuard::Start(options_.tls));
    ASSIGN_OR_RETURN(grpc_credentials_, ServerTlsCredentials(tls_files_->staged()));
    RETURN_IF_ERROR(metrics_.AddCallback(
        "credledger_tls_reloads_total",
        "Re-reads of the TLS files that found them changed and valid (result=\"published\") "
        "or failing the checks (result=\"refused\"; the last good files stay in use).",
        common::MetricType::kCounter, {"result"}, [guard = tls_files_.get()] {
          return std::vector<common::MetricSample>{
              {{"published"}, static_cast<double>(guard->published())},
              {{"refused"}, static_cast<double>(guard->refused())}};
        }));
  }
  ASSIGN_OR_RETURN(v1::ServiceConfigured config, ServiceConfigurationFor(options_));
  if (!options_.authorization_policy.empty()) {
    absl::StatusOr<AuthorizationPolicy> policy =
        AuthorizationPolicy::Load(options_.authorization_policy);
    if (!policy.ok()) {
      return absl::Status(policy.status().code(), absl::StrCat("--authorization-policy: ",
                                                               policy.status().message()));
    }
    policy_ = *std::move(policy);
  } else {
    common::Log(common::LogLevel::kWarning,
                "no --authorization-policy: every caller may call every RPC, including "
                "PushReport, which can release credential Secrets");
  }
  RETURN_IF_ERROR(LoadSigningKey());
  std::function<absl::Status()> write_fence;
  if (!options_.read_only) {
    RETURN_IF_ERROR(ConnectCluster(config));
    RETURN_IF_ERROR(AcquireLease());
    if (lease_ != nullptr) write_fence = [lease = lease_.get()] { return lease->Check(); };
  }
  ASSIGN_OR_RETURN(store_, OpenEventLog(options_.db_path, options_.synchronous, options_.clock,
                                        options_.read_only, std::move(write_fence)));
  RETURN_IF_ERROR(VerifyTail());
  if (!options_.read_only) {
    RETURN_IF_ERROR(RecordServiceConfiguration(*store_, config, "credledger").status());
  }
  readiness_.OpenGate(kLogGate);

  projections::CredentialProjector::Options projector_options;
  projector_options.snapshot_every = options_.snapshot_every;
  ASSIGN_OR_RETURN(projector_,
                   projections::CredentialProjector::Start(store_.get(), projector_options));
  bus_ = std::make_unique<TargetCommandBus>(store_.get());
  projections::IdentityProjector::Options identity_options;
  identity_options.snapshot_every = options_.snapshot_every;
  identity_options.change_history = projections::kIdentityChangeHistory;
  ASSIGN_OR_RETURN(identity_projector_,
                   projections::IdentityProjector::Start(store_.get(), identity_options));
  identity_bus_ = std::make_unique<IdentityCommandBus>(store_.get());
  ConnectionServicesOptions connection_options;
  connection_options.snapshot_every = options_.snapshot_every;
  connection_options.clock = options_.clock;
  connection_options.probe_period = options_.cluster_probe_period;
  connection_options.probe_record_interval = options_.cluster_probe_record_interval;
  connection_options.cluster_client.rate_limit = {options_.kube_qps, options_.kube_burst};
  connection_options.cluster_client.on_request = kube_requests_;
  ASSIGN_OR_RETURN(connections_, ConnectionServices::Start(store_.get(), identity_projector_.get(),
                                                           connection_options));
  RETURN_IF_ERROR(StartReports());
  readiness_.OpenGate(kProjectionsGate);
  if (options_.read_only) {
    common::Log(common::LogLevel::kWarning,
                "serving read-only: no kube bridge, no scheduler, no checkpoints; mutating RPCs "
                "fail with FAILED_PRECONDITION");
  } else {
    RETURN_IF_ERROR(StartBridge(config));
  }
  api_ = std::make_unique<TargetApi>(bus_.get(), projector_.get(), options_.clock, options_.api);
  if (kube_client_ != nullptr) {
    access_reviewer_ = std::make_unique<KubeAccessReviewer>(kube_client_.get());
  }
  identity_api_ = std::make_unique<IdentityApi>(identity_bus_.get(), identity_projector_.get(),
                                                &policy_, access_reviewer_.get(), options_.clock,
                                                IdentityApi::Options{},
                                                connections_->cluster_projector());
  report_api_ = std::make_unique<ReportApi>(report_ingest_.get(), status_projector_.get(),
                                            options_.report_api);
  const audit::SigningKey* key = signing_key_.has_value() ? &*signing_key_ : nullptr;
  audit_api_ = std::make_unique<AuditApi>(store_.get(), key, options_.clock);
  if (key != nullptr && !options_.read_only) {
    checkpoint_writer_ =
        std::make_unique<CheckpointWriter>(store_.get(), key, options_.clock, options_.checkpoints);
    RETURN_IF_ERROR(checkpoint_writer_->Start());
  }
  RETURN_IF_ERROR(StartGrpc());
  return WireOperations();
}

absl::Status Server::LoadSigningKey() {
  if (options_.signing_key.empty()) {
    common::Log(common::LogLevel::kWarning,
                "no --signing-key: checkpoints are not signed and exports will not verify "
                "(create a key pair with `credledger keygen`)");
    return absl::OkStatus();
  }
  absl::StatusOr<audit::SigningKey> key = audit::SigningKey::LoadFile(options_.signing_key);
  if (!key.ok()) {
    return absl::Status(key.status().code(),
                        absl::StrCat("--signing-key: ", key.status().message()));
  }
  signing_key_ = *std::move(key);
  common::Log(common::LogLevel::kInfo, "signing checkpoints and export trailers",
              {{"key_id", signing_key_->key_id()}});
  return absl::OkStatus();
}

absl::Status Server::VerifyTail() {
  // The service knows only its own key: the signature of a checkpoint made before a key
  // rotation is left to auditors, who have the older key (its chain hash is still checked).
  std::optional<audit::KeyRing> keys;
  if (signing_key_.has_value()) {
    ASSIGN_OR_RETURN(std::optional<v1::Checkpoint> newest, store_->LatestCheckpoint());
    if (!newest.has_value() || newest->key_id() == signing_key_->key_id()) {
      keys.emplace(signing_key_->public_key());
    } else {
      common::Log(common::LogLevel::kInfo,
                  "the newest checkpoint is signed by another key (rotated); its signature is "
                  "not checked at start-up",
                  {{"checkpoint_key_id", newest->key_id()}, {"key_id", signing_key_->key_id()}});
    }
  }
  ASSIGN_OR_RETURN(audit::Verdict verdict,
                   audit::VerifyLogTail(*store_, options_.startup_verify_events,
                                        keys.has_value() ? &*keys : nullptr));
  if (verdict.ok()) return absl::OkStatus();
  const audit::Problem& problem = *verdict.problem;
  const std::string what =
      absl::StrCat("the event log does not verify",
                   problem.seq > 0 ? absl::StrCat(" at seq ", problem.seq) : "", ": ",
                   problem.kind, ": ", problem.detail);
  if (options_.read_only) {
    // The key must not vouch for a log known to be altered: exports carry no signature.
    signing_key_.reset();
    common::Log(common::LogLevel::kError,
                absl::StrCat(what, " (serving read-only; exports are not signed)"));
    return absl::OkStatus();
  }
  return absl::FailedPreconditionError(absl::StrCat(
      what, "; refusing to start. Investigate with `credledger verify --db ",
      options_.db_path.string(), " --public-key <key>`, or serve it with --read-only"));
}

absl::Status Server::StartReports() {
  projections::StatusProjector::Options status_options;
  status_options.snapshot_every = options_.snapshot_every;
  ASSIGN_OR_RETURN(status_projector_,
                   projections::StatusProjector::Start(store_.get(), status_options));
  report_bus_ = std::make_unique<ReportCommandBus>(store_.get());
  liveness_ = std::make_unique<LivenessBuffer>();
  report_ingest_ = std::make_unique<ReportIngest>(report_bus_.get(), liveness_.get(),
                                                  projector_.get(), options_.clock);
  ReportScheduler::Options scheduler_options;
  scheduler_options.period = options_.liveness_flush_interval;
  scheduler_options.stale_after = options_.report_stale_after;
  report_scheduler_ = std::make_unique<ReportScheduler>(
      report_bus_.get(), liveness_.get(), projector_.get(), status_projector_.get(),
      options_.clock, scheduler_options);
  if (!options_.read_only) report_scheduler_->Start();
  return absl::OkStatus();
}

absl::Status Server::StartBridge(const v1::ServiceConfigured& config) {
  if (kube_client_ == nullptr) return absl::OkStatus();
  sink_ = std::make_unique<BridgeOutcomeSink>(bus_.get(), options_.clock, config);
  kubebridge::CredentialBridgeOptions bridge_options;
  bridge_options.token_ttl = options_.agent_token_ttl;
  bridge_options.resync_period = options_.resync_period;
  bridge_ = kubebridge::CredentialBridge::Start(kube_client_.get(), sink_.get(), projector_.get(),
                                                options_.clock, bridge_options);
  connections_->ConnectHome(*home_connection_, kube_client_.get());
  mirror_sink_ = std::make_unique<BridgeMirrorSink>(identity_bus_.get(), options_.clock);
  kubebridge::MirrorBridgeOptions mirror_options;
  mirror_options.resync_period = options_.resync_period;
  mirror_options.cluster_clients = connections_->ClusterClients();
  mirror_bridge_ = kubebridge::MirrorBridge::Start(kube_client_.get(), mirror_sink_.get(),
                                                   identity_projector_.get(), options_.clock,
                                                   mirror_options);
  // A cluster whose spec changed or whose probe succeeded may take its identities' mirrors
  // now.
  connections_->WatchClusters(
      [mirrors = mirror_bridge_.get()](const std::string& name) { mirrors->ClusterChanged(name); });
  report_sink_ = std::make_unique<BridgeReportSink>(report_ingest_.get());
  report_watcher_ = kubebridge::ReportWatcher::Start(kube_client_.get(), report_sink_.get());
  return absl::OkStatus();
}

absl::Status Server::StartGrpc() {
  // Read-only serving appends nothing: refusals are returned to the caller only.
  authorizer_ = std::make_unique<CallAuthorizer>(
      &policy_, options_.read_only ? nullptr : &denials_, options_.clock);
  if (!options_.read_only) {
    denial_recorder_ = std::make_unique<DenialRecorder>(&denials_, store_.get(), options_.clock,
                                                        options_.denial_record_interval);
    denial_recorder_->Start();
  }
  grpc_service_ = std::make_unique<TargetGrpcService>(api_.get(), authorizer_.get());
  grpc::EnableDefaultHealthCheckService(true);
  grpc::reflection::InitProtoReflectionServerBuilderPlugin();
  grpc::ServerBuilder builder;
  builder.AddListeningPort(options_.listen_address, grpc_credentials_, &port_);
  if (options_.access_log) {
    std::vector<std::unique_ptr<grpc::experimental::ServerInterceptorFactoryInterface>> logs;
    logs.push_back(NewAccessLogInterceptorFactory());
    builder.experimental().SetInterceptorCreators(std::move(logs));
  }
  builder.RegisterService(grpc_service_.get());
  report_grpc_service_ =
      std::make_unique<ReportGrpcService>(report_api_.get(), authorizer_.get());
  builder.RegisterService(report_grpc_service_.get());
  audit_grpc_service_ = std::make_unique<AuditGrpcService>(audit_api_.get(), authorizer_.get());
  builder.RegisterService(audit_grpc_service_.get());
  identity_grpc_service_ =
      std::make_unique<IdentityGrpcService>(identity_api_.get(), authorizer_.get());
  builder.RegisterService(identity_grpc_service_.get());
  connections_->RegisterServices(builder, authorizer_.get());
  grpc_server_ = builder.BuildAndStart();
  if (grpc_server_ == nullptr) {
    return absl::UnavailableError(
        absl::StrCat("--listen: cannot listen on \"", options_.listen_address, "\""));
  }
  if (absl::StartsWith(options_.listen_address, "unix")) port_ = 0;
  grpc_server_->GetHealthCheckService()->SetServingStatus(
      v1::TargetService::service_full_name(), true);
  grpc_server_->GetHealthCheckService()->SetServingStatus(
      v1::ReportService::service_full_name(), true);
  grpc_server_->GetHealthCheckService()->SetServingStatus(
      v1::AuditService::service_full_name(), true);
  grpc_server_->GetHealthCheckService()->SetServingStatus(
      v1::IdentityService::service_full_name(), true);
  grpc_server_->GetHealthCheckService()->SetServingStatus(
      v1::ClusterService::service_full_name(), true);
  grpc_server_->GetHealthCheckService()->SetServingStatus(
      v1::SourceService::service_full_name(), true);
  address_ = DialAddress(options_.listen_address, port_);
  if (!options_.port_file.empty()) {
    RETURN_IF_ERROR(WriteFileAtomically(options_.port_file, absl::StrCat(port_, "\n")));
  }
  return absl::OkStatus();
}

void Server::Wait() {
  absl::MutexLock lock(&mu_);
  mu_.Await(absl::Condition(&stopped_));
}

void Server::Shutdown() {
  {
    absl::MutexLock lock(&mu_);
    if (shutting_down_) {
      mu_.Await(absl::Condition(&stopped_));
      return;
    }
    shutting_down_ = true;
  }
  // First: its metrics read the components stopped below.
  if (http_server_ != nullptr) http_server_->Stop();
  http_server_.reset();
  if (api_ != nullptr) api_->Stop();
  if (report_api_ != nullptr) report_api_->Stop();
  if (grpc_server_ != nullptr) {
    grpc_server_->GetHealthCheckService()->Shutdown();
    grpc_server_->Shutdown(absl::ToChronoTime(absl::Now() + kShutdownGrace));
    grpc_server_->Wait();
  }
  grpc_server_.reset();
  grpc_service_.reset();
  report_grpc_service_.reset();
  audit_grpc_service_.reset();
  identity_grpc_service_.reset();
  // No call is refused any more: the last minutes of refusals go into the log.
  if (denial_recorder_ != nullptr) denial_recorder_->Stop();
  denial_recorder_.reset();
  authorizer_.reset();
  report_api_.reset();
  audit_api_.reset();
  identity_api_.reset();
  access_reviewer_.reset();
  if (report_watcher_ != nullptr) report_watcher_->Stop();
  // Before the mirror bridge: its cluster listener calls into it.
  if (connections_ != nullptr) connections_->Stop();
  if (mirror_bridge_ != nullptr) mirror_bridge_->Stop();
  if (bridge_ != nullptr) bridge_->Stop();
  if (kube_client_ != nullptr) kube_client_->Stop();
  report_watcher_.reset();
  report_sink_.reset();
  mirror_bridge_.reset();
  mirror_sink_.reset();
  bridge_.reset();
  sink_.reset();
  // Its resolver and cluster bridge use the home client.
  connections_.reset();
  kube_client_.reset();
  // Records the heartbeats still waiting before the log closes.
  if (report_scheduler_ != nullptr) report_scheduler_->Stop();
  report_scheduler_.reset();
  report_ingest_.reset();
  liveness_.reset();
  report_bus_.reset();
  // Signs the last events (the scheduler's final heartbeats included) before the log closes.
  if (checkpoint_writer_ != nullptr) checkpoint_writer_->Stop();
  checkpoint_writer_.reset();
  api_.reset();
  bus_.reset();
  identity_bus_.reset();
  identity_projector_.reset();
  status_projector_.reset();
  projector_.reset();
  if (store_ != nullptr) store_->Close();
  store_.reset();
  // Only once nothing can be written any more.
  ReleaseLease();
  absl::MutexLock lock(&mu_);
  stopped_ = true;
}

}  // namespace credledger::service
