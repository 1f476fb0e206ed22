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
// to the client by its x-request-id (access_log_interceptor.h), unless
// ServeOptions::Grpc::access_log is off.
//
// With --http-listen it also serves Prometheus metrics, /healthz and /readyz over plain
// HTTP (docs/operations.md, "Metrics and health"), from the very start of Wire.
//
// Each component is started by one function in the file named for it (server_operations.cc,
// server_grpc.cc, server_audit.cc, server_bridge.cc, server_lease.cc, server_log.cc,
// server_reports.cc) and holds its members in a struct of server_components.h. Server::Wire
// calls them in dependency order, and Shutdown stops them in reverse order: first the HTTP
// endpoint, then the gRPC server (watches are told to end, in-flight calls finish), then the
// kube bridge and the report watch (running Kubernetes calls are cancelled), the report
// scheduler (which records the heartbeats still waiting), the checkpoint writer, the buses,
// the projectors and the store, and last the Lease.
//
// Thread-safety: Shutdown and Wait may be called from any thread; accessors are valid
// between a successful Start and Shutdown.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "audit/log_anchors.h"
#include "credledger/v1/events.pb.h"
#include "service/server/serve_options.h"

namespace credledger::projections {
class CredentialProjector;
class IdentityProjector;
class StatusProjector;
}  // namespace credledger::projections

namespace credledger::store {
class EventStore;
}  // namespace credledger::store

namespace credledger::kubebridge {
class CredentialBridge;
class MirrorBridge;
}  // namespace credledger::kubebridge

namespace credledger::service {

class ConnectionServices;
template <typename Decider>
class CommandBus;
struct TargetBusDecider;
using TargetCommandBus = CommandBus<TargetBusDecider>;
class TlsFileGuard;

// The components (server_components.h).
struct AuditComponent;
struct BridgeComponent;
struct GrpcComponent;
struct LeaseComponent;
struct LogComponent;
struct OperationsComponent;
struct ReportsComponent;

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
  int http_port() const;
  // The running components, for tests and for wiring more components beside the API.
  store::EventStore* event_store() const;
  projections::CredentialProjector* projector() const;
  TargetCommandBus* command_bus() const;
  projections::StatusProjector* status_projector() const;
  projections::IdentityProjector* identity_projector() const;
  // The credential bridge; null without a cluster connection or when read-only.
  kubebridge::CredentialBridge* credential_bridge() const;
  // The mirror bridge; null without a cluster connection or when read-only.
  kubebridge::MirrorBridge* mirror_bridge() const;
  // Registered clusters and source verification.
  ConnectionServices* connections() const;
  // The guard of the TLS files; null without TLS.
  const TlsFileGuard* tls_files() const;

  // Blocks until Shutdown has completed.
  void Wait();
  // Stops serving: watches end with UNAVAILABLE, in-flight calls get up to 5 seconds, then
  // every component stops in reverse order. Idempotent; returns once everything stopped.
  void Shutdown();

 private:
  explicit Server(ServeOptions options);
  absl::Status Wire();

  // Metrics and readiness (server_operations.cc): StartOperations runs first (closed
  // readiness gates, the Kubernetes request counter, the HTTP endpoint); WireOperations
  // last (the components' metrics and checks; opens the gRPC gate). StopOperations stops
  // the HTTP endpoint.
  absl::Status StartOperations();
  absl::Status WireOperations();
  void StopOperations();

  // The gRPC API (server_grpc.cc): LoadTls checks the TLS files, LoadAuthorizationPolicy
  // reads the policy, StartApis builds the API objects, StartGrpc the token reviews, the
  // credentials, the services and the server. StopGrpc ends the calls and takes all of it down.
  absl::Status LoadTls();
  absl::Status LoadAuthorizationPolicy();
  void StartApis();
  absl::Status StartGrpc();
  void StopGrpc();

  // The signing key, the start-up check of the log's tail and the checkpoint writer
  // (server_audit.cc). LoadSigningKey also loads the trusted public keys.
  absl::Status LoadSigningKey();
  absl::Status VerifyTail();
  absl::Status StartCheckpoints();
  void StopCheckpoints();

  // What anchors the log at start-up (server_anchors.cc; docs/audit.md, "Start-up check",
  // "Witnesses" and "Adopting a log"): OpenWitness connects --witness; CheckAnchors refuses a
  // log without a recent trusted checkpoint or that contradicts the witness, unless
  // --adopt-log, which RecordAdoption records.
  absl::Status OpenWitness();
  absl::Status CheckAnchors();
  absl::Status RecordAdoption(const std::vector<std::string>& refusals,
                              const audit::CheckpointAge& age, int64_t witnessed_seq);

  // The Kubernetes side (server_bridge.cc): ConnectCluster loads the home cluster connection
  // and its client; LoadGivenFingerprintKey then reads the key --fingerprint-key names (with a
  // cluster, whose bridge needs it) before the Lease is waited for and the log opened, so that a
  // replica whose key cannot be read fails at start, not when it takes over (docs/operations.md,
  // "The fingerprint key");
  // StartConnections starts registered clusters and source verification; StartBridge the
  // credential and mirror bridges and the report watch. StopBridge stops all of it and the home
  // client.
  absl::Status LoadGivenFingerprintKey();
  absl::Status ConnectCluster(const v1::ServiceConfigured& config);
  absl::Status StartConnections();
  absl::Status StartBridge(const v1::ServiceConfigured& config);
  void StopBridge();

  // Takes the Lease when asked to (server_lease.cc); blocks until held.
  absl::Status AcquireLease();
  // Gives the Lease up at shutdown, after the log is closed (server_lease.cc).
  void ReleaseLease();

  // The event log (server_log.cc): OpenLog opens it behind the Lease's fence;
  // RecordConfiguration appends ServiceConfigured when it changed; StartProjections starts
  // the projectors and the buses. StopLog closes all of it.
  absl::Status OpenLog();
  absl::Status RecordConfiguration(const v1::ServiceConfigured& config);
  absl::Status StartProjections();
  void StopLog();

  // The report path (server_reports.cc).
  void StartReports();
  void StopReports();

  const ServeOptions options_;
  std::string address_;
  int port_ = 0;

  // First, so that it outlives every other component.
  const std::unique_ptr<OperationsComponent> operations_;
  const std::unique_ptr<LeaseComponent> lease_;
  const std::unique_ptr<LogComponent> log_;
  const std::unique_ptr<AuditComponent> audit_;
  const std::unique_ptr<ReportsComponent> reports_;
  const std::unique_ptr<BridgeComponent> bridge_;
  const std::unique_ptr<GrpcComponent> grpc_;

  absl::Mutex mu_;
  bool shutting_down_ ABSL_GUARDED_BY(mu_) = false;
  bool stopped_ ABSL_GUARDED_BY(mu_) = false;
};

}  // namespace credledger::service
