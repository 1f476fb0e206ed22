// Server (server.h): Start, the accessors, Wire (the components started in dependency order)
// and Shutdown (stopped in reverse order). Each component's start and stop are in the file
// named for it.
#include "service/server/server.h"

#include <utility>

#include "common/status_macros.h"
#include "service/server/server_components.h"
#include "service/server/startup_gates.h"

namespace credledger::service {

absl::StatusOr<std::unique_ptr<Server>> Server::Start(ServeOptions options) {
  RETURN_IF_ERROR(ValidateServeOptions(options));
  auto server = std::unique_ptr<Server>(new Server(std::move(options)));
  RETURN_IF_ERROR(server->Wire());
  return server;
}

Server::Server(ServeOptions options)
    : options_(std::move(options)),
      operations_(std::make_unique<OperationsComponent>()),
      lease_(std::make_unique<LeaseComponent>()),
      log_(std::make_unique<LogComponent>()),
      audit_(std::make_unique<AuditComponent>()),
      reports_(std::make_unique<ReportsComponent>()),
      bridge_(std::make_unique<BridgeComponent>()),
      grpc_(std::make_unique<GrpcComponent>()) {}

Server::~Server() { Shutdown(); }

int Server::http_port() const {
  return operations_->http_server == nullptr ? 0 : operations_->http_server->port();
}
store::EventStore* Server::event_store() const { return log_->store.get(); }
projections::CredentialProjector* Server::projector() const { return log_->projector.get(); }
TargetCommandBus* Server::command_bus() const { return log_->bus.get(); }
projections::StatusProjector* Server::status_projector() const {
  return log_->status_projector.get();
}
projections::IdentityProjector* Server::identity_projector() const {
  return log_->identity_projector.get();
}
kubebridge::CredentialBridge* Server::credential_bridge() const {
  return bridge_->credential_bridge.get();
}
kubebridge::MirrorBridge* Server::mirror_bridge() const { return bridge_->mirror_bridge.get(); }
ConnectionServices* Server::connections() const { return bridge_->connections.get(); }
const TlsFileGuard* Server::tls_files() const { return grpc_->tls_files.get(); }

// The one place where the service's components are put together, in dependency order.
absl::Status Server::Wire() {
  // First, so that probes are answered during a long start (gates closed until ready).
  RETURN_IF_ERROR(StartOperations());
  // The TLS files are checked before the log is opened (or created and migrated).
  RETURN_IF_ERROR(LoadTls());
  ASSIGN_OR_RETURN(v1::ServiceConfigured config, ServiceConfigurationFor(options_));
  RETURN_IF_ERROR(LoadAuthorizationPolicy());
  RETURN_IF_ERROR(LoadSigningKey());
  if (!options_.log.read_only) {
    RETURN_IF_ERROR(ConnectCluster(config));
    RETURN_IF_ERROR(LoadGivenFingerprintKey());
    RETURN_IF_ERROR(AcquireLease());
  }
  RETURN_IF_ERROR(OpenLog());
  RETURN_IF_ERROR(VerifyTail());
  RETURN_IF_ERROR(OpenWitness());
  RETURN_IF_ERROR(CheckAnchors());
  RETURN_IF_ERROR(RecordConfiguration(config));
  operations_->readiness.OpenGate(kLogGate);
  RETURN_IF_ERROR(StartProjections());
  RETURN_IF_ERROR(StartConnections());
  StartReports();
  operations_->readiness.OpenGate(kProjectionsGate);
  RETURN_IF_ERROR(StartBridge(config));
  StartApis();
  RETURN_IF_ERROR(StartCheckpoints());
  RETURN_IF_ERROR(StartGrpc());
  return WireOperations();
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
  StopOperations();
  // Watches end, in-flight calls finish (up to 5 seconds), then the refusals are recorded.
  StopGrpc();
  // Running Kubernetes calls are cancelled, then the home client stops.
  StopBridge();
  // Records the heartbeats still waiting before the log closes.
  StopReports();
  // Signs the last events (the scheduler's final heartbeats included) before the log closes.
  StopCheckpoints();
  // The buses, the projectors and the store.
  StopLog();
  // Only once nothing can be written any more.
  ReleaseLease();
  absl::MutexLock lock(&mu_);
  stopped_ = true;
}

}  // namespace credledger::service
