// The components of `credledger serve`, as the Server holds them (server.h): one struct per
// component, each started by the Server's wiring function in the file named for it and
// stopped by its stop function there. Internal to service/server/: included only by its .cc
// files, so that server.h only forward-declares these structs.
//
// The structs hold members, not logic. The Server makes every struct empty when it is built;
// the stop functions stop and reset the members in the order Shutdown needs, and what they
// never reset (the metrics, the readiness, the TLS files, the policy, the Lease) goes with
// the Server.
#pragma once

#include <grpcpp/security/server_credentials.h>
#include <grpcpp/server.h>

#include <atomic>
#include <memory>
#include <optional>

#include "audit/signing_key.h"
#include "audit/snapshot_seal.h"
#include "audit/witness.h"
#include "common/fingerprint_key.h"
#include "common/metrics_registry.h"
#include "common/repeat_log.h"
#include "common/work_pool.h"
#include "kubebridge/client/connection.h"
#include "kubebridge/client/kube_client.h"
#include "kubebridge/client/lease_fence.h"
#include "kubebridge/credentials/credential_bridge.h"
#include "kubebridge/mirrors/mirror_bridge.h"
#include "kubebridge/reports/report_watcher.h"
#include "projections/credential_projector.h"
#include "projections/identity_projector.h"
#include "projections/snapshot_guard.h"
#include "projections/status_projector.h"
#include "service/api/authorization_policy.h"
#include "service/api/checkpoint_writer.h"
#include "service/api/identity_api.h"
#include "service/api/liveness_buffer.h"
#include "service/api/report_api.h"
#include "service/api/report_ingest.h"
#include "service/api/report_scheduler.h"
#include "service/api/space_reserve.h"
#include "service/api/target_api.h"
#include "service/bridge/bridge_mirror_sink.h"
#include "service/bridge/bridge_outcome_sink.h"
#include "service/bridge/bridge_report_sink.h"
#include "service/bus/identity_command_bus.h"
#include "service/bus/report_command_bus.h"
#include "service/bus/target_command_bus.h"
#include "service/grpc/audit_grpc_service.h"
#include "service/grpc/auth/call_authorizer.h"
#include "service/grpc/auth/denial_ledger.h"
#include "service/grpc/auth/denial_recorder.h"
#include "service/grpc/identity_grpc_service.h"
#include "service/grpc/report_grpc_service.h"
#include "service/grpc/target_grpc_service.h"
#include "service/offline/audit_api.h"
#include "service/server/connection_services.h"
#include "service/server/operations_http_server.h"
#include "service/server/readiness.h"
#include "service/server/tls_file_guard.h"
#include "store/sqlite_event_store.h"

namespace credledger::service {

// Metrics, readiness and the HTTP endpoint (server_operations.cc). Made before every other
// component and destroyed after all of them: they register metrics and checks here.
struct OperationsComponent {
  common::MetricsRegistry metrics;
  Readiness readiness;
  // Counts every Kubernetes API request into `metrics`.
  kubebridge::KubeRequestObserver kube_requests;
  std::unique_ptr<OperationsHttpServer> http_server;
  // Whether this replica writes the log: set once it is open read-write, cleared when it
  // closes (the gauge credledger_log_writer).
  std::atomic<bool> writing{false};
};

// "<hostname>_<8 random hex digits>", unique per process even when pods share a name: the
// default Lease identity, and who writes a PostgreSQL log without a Lease (server_lease.cc).
// Errors: common::NewUuidV4's.
absl::StatusOr<std::string> DefaultLeaseIdentity();

// The Lease fence (server_lease.cc).
struct LeaseComponent {
  // The Lease's own client (no rate limit shared with the bridge) and the fence.
  std::unique_ptr<kubebridge::KubeClient> client;
  std::unique_ptr<kubebridge::LeaseFence> fence;
  // This replica's identity in the Lease; empty without one.
  std::string identity;
};

// The event log, the projectors that fold it and the buses that append to it
// (server_log.cc).
struct LogComponent {
  std::unique_ptr<store::EventLog> store;
  // With the signing key only: the seal of projection snapshots and the guard through which
  // every projector writes and loads them (docs/audit.md, "Snapshots"). Declared before the
  // projectors, which use them.
  std::unique_ptr<audit::KeySnapshotSeal> snapshot_seal;
  std::unique_ptr<projections::SnapshotGuard> snapshots;
  std::unique_ptr<projections::CredentialProjector> projector;
  std::unique_ptr<TargetCommandBus> bus;
  std::unique_ptr<projections::IdentityProjector> identity_projector;
  std::unique_ptr<IdentityCommandBus> identity_bus;
  std::unique_ptr<projections::StatusProjector> status_projector;
};

// The signing key and the checkpoint writer (server_audit.cc).
struct AuditComponent {
  std::optional<audit::SigningKey> signing_key;
  // The keys whose checkpoints anchor the log: the signing key's and --trusted-public-key.
  audit::KeyRing trusted_keys;
  // --witness kubernetes:...: the witness's own client (no rate limit shared with the bridge).
  std::unique_ptr<kubebridge::KubeClient> witness_client;
  // --witness; unset without one.
  std::unique_ptr<audit::WitnessStore> witness;
  std::unique_ptr<CheckpointWriter> checkpoint_writer;
};

// The report path: ingest, heartbeats and the scheduler (server_reports.cc).
struct ReportsComponent {
  // --space-reserve over the free space of the --db file system.
  std::unique_ptr<SpaceReserve> space;
  std::unique_ptr<ReportCommandBus> bus;
  std::unique_ptr<LivenessBuffer> liveness;
  std::unique_ptr<ReportIngest> ingest;
  std::unique_ptr<ReportScheduler> scheduler;
};

// The Kubernetes side (server_bridge.cc): the home cluster connection and its client,
// registered clusters and source verification (started even without a cluster), the
// credential bridge, the mirror bridge and the TargetReport watch, with the sinks through
// which they record outcomes.
struct BridgeComponent {
  // The home cluster connection (ConnectCluster); unset without one.
  std::optional<kubebridge::ConnectionConfig> home_connection;
  std::unique_ptr<kubebridge::KubeClient> kube_client;
  std::unique_ptr<ConnectionServices> connections;
  std::unique_ptr<BridgeOutcomeSink> credential_sink;
  std::unique_ptr<kubebridge::CredentialBridge> credential_bridge;
  std::unique_ptr<BridgeMirrorSink> mirror_sink;
  // The key the mirror bridge fingerprints source Secrets under (LoadFingerprintKey); set
  // while the mirror bridge runs, which it outlives.
  std::optional<common::FingerprintKey> fingerprint_key;
  std::unique_ptr<kubebridge::MirrorBridge> mirror_bridge;
  std::unique_ptr<BridgeReportSink> report_sink;
  std::unique_ptr<kubebridge::ReportWatcher> report_watcher;
};

// The gRPC API (server_grpc.cc): transport, authorization, the API objects and the services
// over them.
struct GrpcComponent {
  // The checked copies of --tls-* that gRPC watches; unset without TLS. Declared before the
  // credentials, so that it outlives gRPC's file watcher.
  std::unique_ptr<TlsFileGuard> tls_files;
  // Made from the staged files when the server starts listening; the files were checked
  // before anything was opened (tls_files), so that bad TLS files change nothing.
  std::shared_ptr<grpc::ServerCredentials> credentials;

  AuthorizationPolicy policy = AuthorizationPolicy::DenyAll();
  DenialLedger denials;
  // Reviews callers' ServiceAccount tokens; null without a cluster connection or with an
  // empty --token-audience.
  std::unique_ptr<TokenAuthenticator> tokens;
  std::unique_ptr<CallAuthorizer> authorizer;
  std::unique_ptr<DenialRecorder> denial_recorder;
  // With the access log: refused calls beyond the first per peer and interval, summed up.
  std::unique_ptr<common::RepeatLog> refused_calls;

  std::unique_ptr<TargetApi> target_api;
  std::unique_ptr<SecretAccessReviewer> access_reviewer;
  std::unique_ptr<IdentityApi> identity_api;
  std::unique_ptr<ReportApi> report_api;
  std::unique_ptr<AuditApi> audit_api;

  // The threads the handlers hand work to, and the open streams (grpc_handlers.h); they
  // outlive the server, which is stopped first.
  std::unique_ptr<common::WorkPool> log_work;
  std::unique_ptr<common::WorkPool> remote_work;
  std::unique_ptr<OpenStreams> streams;

  std::unique_ptr<TargetGrpcService> target_service;
  std::unique_ptr<ReportGrpcService> report_service;
  std::unique_ptr<AuditGrpcService> audit_service;
  std::unique_ptr<IdentityGrpcService> identity_service;
  std::unique_ptr<grpc::Server> server;
};

}  // namespace credledger::service
