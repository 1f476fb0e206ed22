// Server::LoadTls, LoadAuthorizationPolicy, StartApis, StartGrpc and StopGrpc: the gRPC API of
// `credledger serve`: TLS, the authorization policy, token reviews, the API objects, the
// gRPC services over them on the callback API with their thread pools and stream limits,
// health checking and reflection, the access log, the denial recorder and the port file
// (docs/api.md, "Transport", "Authorization", "ServiceAccount tokens", "Threads and streams"
// and "Refused calls in the log"; docs/operations.md, "TLS certificates" and "Access log").
#include <grpcpp/ext/proto_server_reflection_plugin.h>
#include <grpcpp/grpcpp.h>
#include <grpcpp/health_check_service_interface.h>
#include <malloc.h>

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "common/atomic_file.h"
#include "common/log.h"
#include "common/status_macros.h"
#include "common/url.h"
#include "kubebridge/client/access_review.h"
#include "kubebridge/client/token_review.h"
#include "service/grpc/access_log_interceptor.h"
#include "service/grpc/unparsed_request_interceptor.h"
#include "service/server/server.h"
#include "service/server/server_components.h"
#include "service/wire/grpc_tls.h"

namespace credledger::service {
namespace {

// The `msg` of the access log's summaries of refused calls (docs/operations.md, "Repeated
// lines").
constexpr char kRefusedCallsSummary[] = "rpc refused, repeated";

// How long in-flight calls may run once shutdown has begun.
constexpr absl::Duration kShutdownGrace = absl::Seconds(5);

// Writes the --port-file `path` so that a reader never sees a partial file.
absl::Status WritePortFile(const std::filesystem::path& path, int port) {
  absl::Status written =
      common::WriteFileAtomically(path, absl::StrCat(port, "\n"), {.label = "--port-file"});
  if (written.ok()) return written;
  return absl::InternalError(written.message());
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

// Token reviews over the kube bridge's cluster connection (docs/api.md, "ServiceAccount
// tokens").
TokenAuthenticator::ReviewFunction ReviewOn(kubebridge::KubeClient* client) {
  return [client](const std::string& token,
                  const std::string& audience) -> absl::StatusOr<TokenAuthenticator::Review> {
    absl::StatusOr<kubebridge::TokenReviewAnswer> answer =
        kubebridge::ReviewToken(*client, token, audience);
    if (!answer.ok()) return answer.status();
    TokenAuthenticator::Review review;
    review.authenticated = answer->authenticated;
    review.username = std::move(answer->username);
    review.audiences = std::move(answer->audiences);
    review.error = std::move(answer->error);
    return review;
  };
}

// How many streams are open and how many calls wait for a thread of each pool.
absl::Status RegisterCallMetrics(common::MetricsRegistry& metrics, const GrpcComponent& grpc) {
  const OpenStreams* streams = grpc.streams.get();
  RETURN_IF_ERROR(metrics.AddCallbackValue(
      "credledger_grpc_streams_open", "Watch and export streams open now (at most --max-streams).",
      common::MetricType::kGauge, [streams] { return static_cast<double>(streams->open()); }));
  return metrics.AddCallback("credledger_grpc_calls_queued",
                             "Calls waiting for a thread, by pool: log (--call-threads) or remote "
                             "(--remote-call-threads); at 64 per thread further calls are refused.",
                             common::MetricType::kGauge, {"pool"},
                             [log = grpc.log_work.get(), remote = grpc.remote_work.get()] {
                               return std::vector<common::MetricSample>{
                                   {{"log"}, static_cast<double>(log->queued())},
                                   {{"remote"}, static_cast<double>(remote->queued())}};
                             });
}

}  // namespace

absl::Status Server::LoadTls() {
  if (!WantsTls(options_.grpc.tls)) return absl::OkStatus();
  ASSIGN_OR_RETURN(grpc_->tls_files, TlsFileGuard::Start(options_.grpc.tls));
  return operations_->metrics.AddCallback(
      "credledger_tls_reloads_total",
      "Re-reads of the TLS files that found them changed and valid (result=\"published\") "
      "or failing the checks (result=\"refused\"; the last good files stay in use).",
      common::MetricType::kCounter, {"result"}, [guard = grpc_->tls_files.get()] {
        return std::vector<common::MetricSample>{
            {{"published"}, static_cast<double>(guard->published())},
            {{"refused"}, static_cast<double>(guard->refused())}};
      });
}

absl::Status Server::LoadAuthorizationPolicy() {
  if (options_.grpc.insecure_allow_all) {
    common::Log(common::LogLevel::kWarning,
                "--insecure-allow-all: every caller may call every RPC on every Target, "
                "including PushReport, which can release credential Secrets");
    grpc_->policy = AuthorizationPolicy::AllowAll();
    return absl::OkStatus();
  }
  if (options_.grpc.authorization_policy.empty()) {
    common::Log(common::LogLevel::kWarning,
                "no --authorization-policy: only health checking and reflection answer; every "
                "other call is refused");
    return absl::OkStatus();
  }
  absl::StatusOr<AuthorizationPolicy> policy =
      AuthorizationPolicy::Load(options_.grpc.authorization_policy);
  if (!policy.ok()) {
    return absl::Status(policy.status().code(),
                        absl::StrCat("--authorization-policy: ", policy.status().message()));
  }
  grpc_->policy = *std::move(policy);
  return absl::OkStatus();
}

void Server::StartApis() {
  TargetApi::Options target_options = options_.grpc.target_api;
  target_options.watch_queue_bytes = static_cast<size_t>(options_.grpc.watch_queue_bytes);
  grpc_->target_api = std::make_unique<TargetApi>(log_->bus.get(), log_->projector.get(),
                                                  options_.clock, target_options);
  if (bridge_->kube_client != nullptr) {
    grpc_->access_reviewer = std::make_unique<KubeAccessReviewer>(bridge_->kube_client.get());
  }
  grpc_->identity_api = std::make_unique<IdentityApi>(
      log_->identity_bus.get(), log_->identity_projector.get(), &grpc_->policy,
      grpc_->access_reviewer.get(), options_.clock, IdentityApi::Options{},
      bridge_->connections->cluster_projector());
  ReportApi::Options report_options = options_.grpc.report_api;
  report_options.watch_queue_bytes = static_cast<size_t>(options_.grpc.watch_queue_bytes);
  grpc_->report_api = std::make_unique<ReportApi>(reports_->ingest.get(),
                                                  log_->status_projector.get(), report_options);
  const audit::SigningKey* key = audit_->signing_key.has_value() ? &*audit_->signing_key : nullptr;
  grpc_->audit_api =
      std::make_unique<AuditApi>(log_->store.get(), key, options_.clock, log_->snapshots.get());
}

absl::Status Server::StartGrpc() {
  const ServeOptions::Grpc& options = options_.grpc;
  const bool read_only = options_.log.read_only;
  if (bridge_->kube_client != nullptr && !options.token_audience.empty()) {
    grpc_->tokens = std::make_unique<TokenAuthenticator>(
        ReviewOn(bridge_->kube_client.get()),
        TokenAuthenticator::Options{.audience = options.token_audience}, options_.clock);
  }
  grpc_->credentials = grpc::InsecureServerCredentials();
  if (grpc_->tls_files != nullptr) {
    ServerTlsFiles files = grpc_->tls_files->staged();
    // Callers with a ServiceAccount token need no certificate (docs/api.md, "ServiceAccount
    // tokens"); the caller rules refuse a remote caller that presents neither.
    files.client_certificate_optional = grpc_->tokens != nullptr;
    ASSIGN_OR_RETURN(grpc_->credentials, ServerTlsCredentials(files));
  }
  // Read-only serving appends nothing: refusals are returned to the caller only.
  grpc_->authorizer = std::make_unique<CallAuthorizer>(
      &grpc_->policy, read_only ? nullptr : &grpc_->denials, options_.clock,
      CallerAuthentication{.tokens = grpc_->tokens.get(),
                           .remote_must_authenticate = !options.tls.client_ca_file.empty()});
  if (!read_only) {
    grpc_->denial_recorder = std::make_unique<DenialRecorder>(
        &grpc_->denials, log_->store.get(), options_.clock, options.denial_record_interval);
    grpc_->denial_recorder->Start();
  }
  grpc_->log_work = std::make_unique<common::WorkPool>(common::WorkPool::Options{
      .threads = static_cast<int>(options.call_threads),
      .max_queued = static_cast<size_t>(options.call_threads) * kQueuedCallsPerThread});
  grpc_->remote_work = std::make_unique<common::WorkPool>(common::WorkPool::Options{
      .threads = static_cast<int>(options.remote_call_threads),
      .max_queued = static_cast<size_t>(options.remote_call_threads) * kQueuedCallsPerThread});
  // glibc keeps what ended streams freed; malloc_trim hands it back, on the log pool.
  const OpenStreams::Limits limits{
      .max_streams = static_cast<size_t>(options.max_streams),
      .max_streams_per_caller = static_cast<size_t>(options.max_streams_per_caller)};
  grpc_->streams = std::make_unique<OpenStreams>(
      limits, [pool = grpc_->log_work.get()] { pool->Schedule([] { malloc_trim(0); }); });
  RETURN_IF_ERROR(RegisterCallMetrics(operations_->metrics, *grpc_));
  const CallEnvironment env{.authorizer = grpc_->authorizer.get(),
                            .log_work = grpc_->log_work.get(),
                            .remote_work = grpc_->remote_work.get(),
                            .streams = grpc_->streams.get()};
  grpc_->target_service = std::make_unique<TargetGrpcService>(grpc_->target_api.get(), env);
  grpc::EnableDefaultHealthCheckService(true);
  grpc::reflection::InitProtoReflectionServerBuilderPlugin();
  grpc::ServerBuilder builder;
  // gRPC sets SO_REUSEPORT on Linux by default: a second server on the same address would
  // start beside this one and take half of its calls. Off, it fails to listen instead.
  builder.AddChannelArgument(GRPC_ARG_ALLOW_REUSEPORT, 0);
  builder.AddListeningPort(options.listen_address, grpc_->credentials, &port_);
  std::vector<std::unique_ptr<grpc::experimental::ServerInterceptorFactoryInterface>> interceptors;
  interceptors.push_back(NewUnparsedRequestInterceptorFactory());
  if (options.access_log) {
    grpc_->refused_calls = std::make_unique<common::RepeatLog>(
        common::RepeatLog::Options{.summary_message = kRefusedCallsSummary,
                                   .level = common::LogLevel::kInfo,
                                   .interval = options.refused_call_log_interval},
        options_.clock);
    grpc_->refused_calls->Start();
    interceptors.push_back(
        NewAccessLogInterceptorFactory(grpc_->refused_calls.get(), grpc_->authorizer.get()));
  }
  builder.experimental().SetInterceptorCreators(std::move(interceptors));
  builder.RegisterService(grpc_->target_service.get());
  grpc_->report_service = std::make_unique<ReportGrpcService>(grpc_->report_api.get(), env);
  builder.RegisterService(grpc_->report_service.get());
  grpc_->audit_service = std::make_unique<AuditGrpcService>(grpc_->audit_api.get(), env);
  builder.RegisterService(grpc_->audit_service.get());
  grpc_->identity_service = std::make_unique<IdentityGrpcService>(grpc_->identity_api.get(), env);
  builder.RegisterService(grpc_->identity_service.get());
  bridge_->connections->RegisterServices(builder, env);
  grpc_->server = builder.BuildAndStart();
  if (grpc_->server == nullptr) {
    return absl::UnavailableError(absl::StrCat("--listen: cannot listen on \"",
                                               options.listen_address,
                                               "\" (is another server using that address?)"));
  }
  if (absl::StartsWith(options.listen_address, "unix")) port_ = 0;
  grpc::HealthCheckServiceInterface* health = grpc_->server->GetHealthCheckService();
  for (const char* service :
       {v1::TargetService::service_full_name(), v1::ReportService::service_full_name(),
        v1::AuditService::service_full_name(), v1::IdentityService::service_full_name(),
        v1::ClusterService::service_full_name(), v1::SourceService::service_full_name()}) {
    health->SetServingStatus(service, true);
  }
  address_ = DialAddress(options.listen_address, port_);
  if (!options.port_file.empty()) RETURN_IF_ERROR(WritePortFile(options.port_file, port_));
  return absl::OkStatus();
}

void Server::StopGrpc() {
  if (grpc_->streams != nullptr) {
    grpc_->streams->StopAll([](absl::string_view rpc) {
      return absl::UnavailableError(
          rpc == "ExportEvents" ? "export: the server is shutting down; start the export again"
                                : "watch: the server is shutting down; resume with after_seq");
    });
  }
  if (grpc_->server != nullptr) {
    grpc_->server->GetHealthCheckService()->Shutdown();
    grpc_->server->Shutdown(absl::ToChronoTime(absl::Now() + kShutdownGrace));
    grpc_->server->Wait();
  }
  grpc_->server.reset();
  // The steps still queued end their streams; then no handler work is left.
  if (grpc_->log_work != nullptr) grpc_->log_work->Stop();
  if (grpc_->remote_work != nullptr) grpc_->remote_work->Stop();
  grpc_->target_service.reset();
  grpc_->report_service.reset();
  grpc_->audit_service.reset();
  grpc_->identity_service.reset();
  // No call is logged any more: the last summaries of refused calls are written.
  grpc_->refused_calls.reset();
  // No call is refused any more: the last minutes of refusals go into the log.
  if (grpc_->denial_recorder != nullptr) grpc_->denial_recorder->Stop();
  grpc_->denial_recorder.reset();
  grpc_->authorizer.reset();
  grpc_->tokens.reset();
  grpc_->report_api.reset();
  grpc_->audit_api.reset();
  grpc_->identity_api.reset();
  grpc_->access_reviewer.reset();
  grpc_->target_api.reset();
}

}  // namespace credledger::service
