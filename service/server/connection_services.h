// ConnectionServices: registered clusters and source verification inside `credledger serve`
// (docs/connections.md, "Clusters" and "Sources").
//
// Owns the cluster projector and command bus (always), and, once the service has a home
// cluster connection (ConnectHome), the Secret/ConfigMap resolver, the authenticator
// registry, the connector and the cluster bridge that probes every registered cluster. It
// serves ClusterService and SourceService, and gives the mirror bridge its clients for
// identities that mirror into a registered cluster.
//
// Order of use: Start, then ConnectHome (optional; not when read-only), then
// WatchClusters/RegisterServices, then Stop before the home client and the mirror bridge
// stop.
//
// Thread-safety: the setup calls run on one thread before serving; the services and the
// client factory are thread-safe afterwards.
#pragma once

#include <functional>
#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "common/clock.h"
#include "kubebridge/client/connection.h"
#include "kubebridge/client/kube_client.h"
#include "kubebridge/clusters/cluster_bridge.h"
#include "kubebridge/clusters/cluster_connector.h"
#include "kubebridge/clusters/secret_resolver.h"
#include "kubebridge/mirrors/mirror_bridge.h"
#include "kubebridge/sources/source_verifier.h"
#include "projections/cluster_projector.h"
#include "projections/identity_projector.h"
#include "projections/snapshot_guard.h"
#include "service/api/cluster_api.h"
#include "service/api/source_api.h"
#include "service/bridge/bridge_cluster_sink.h"
#include "service/bus/cluster_command_bus.h"
#include "service/grpc/cluster_grpc_service.h"
#include "service/grpc/source_grpc_service.h"
#include "store/event_store.h"

namespace grpc {
class ServerBuilder;
}  // namespace grpc

namespace credledger::service {

struct ConnectionServicesOptions {
  // Events between cluster projection snapshots (0 disables them).
  int64_t snapshot_every = 1000;
  // Seals, writes and checks the cluster projection's snapshots. Not owned; null: none is
  // written or loaded (projections/snapshot_guard.h).
  projections::SnapshotGuard* snapshots = nullptr;
  // Source of "now". Not owned.
  common::Clock* clock = common::RealClock::Default();
  // Every registered cluster is probed at least this often (--cluster-probe-period).
  absl::Duration probe_period = absl::Minutes(5);
  // An unchanged probe outcome is recorded again after this long
  // (--cluster-probe-record-interval).
  absl::Duration probe_record_interval = kDefaultProbeRecordInterval;
  // Client options of connections to registered clusters (rate limit as --kube-qps/burst).
  kubebridge::KubeClientOptions cluster_client;
};

class ConnectionServices {
 public:
  // Starts the cluster projector on `store`; `identities` answers which identities mirror
  // into a cluster. Neither is owned; both must outlive this object.
  // Errors: the projector's (kDataLoss for an undecodable cluster event, store errors).
  static absl::StatusOr<std::unique_ptr<ConnectionServices>> Start(
      store::EventStore* store, projections::IdentityProjector* identities,
      ConnectionServicesOptions options);
  ~ConnectionServices();

  // Uses `home` (the service's own connection) and `home_client` (not owned; outlives this
  // object until Stop) for Secret reads, inCluster clusters and probes; starts the cluster
  // bridge.
  void ConnectHome(const kubebridge::ConnectionConfig& home, kubebridge::KubeClient* home_client);

  // Clients for identities that mirror into a registered cluster: the cluster must be
  // registered and active, and a new client is made at each call (no cache).
  // Errors (each naming the cluster once): kFailedPrecondition before ConnectHome;
  // kNotFound for an unknown or deregistered cluster (ClusterProjector::GetActive);
  // ClusterConnector::NewClient's (Unsupported ones marked).
  kubebridge::ClusterClientFactory ClusterClients();

  // Calls `changed(name)` for every cluster whose stream changes from now on (the mirror
  // bridge retries the identities of a cluster whose spec changed or whose probe succeeded).
  // `changed` runs on the projector's thread and must not block. Removed by Stop.
  void WatchClusters(std::function<void(const std::string& name)> changed);

  // Builds ClusterService and SourceService and registers them with `builder`, with `env`
  // (grpc_handlers.h; nothing in it owned, all outlive this object).
  void RegisterServices(grpc::ServerBuilder& builder, const CallEnvironment& env);

  // Stops the cluster bridge (running probes are cancelled) and the cluster listener.
  // Idempotent. The gRPC services must have stopped first.
  void Stop();

  projections::ClusterProjector* cluster_projector() const { return projector_.get(); }
  // Null before ConnectHome.
  kubebridge::ClusterBridge* cluster_bridge() const { return cluster_bridge_.get(); }

 private:
  explicit ConnectionServices(ConnectionServicesOptions options) : options_(options) {}

  const ConnectionServicesOptions options_;
  store::EventStore* store_ = nullptr;
  projections::IdentityProjector* identities_ = nullptr;
  std::unique_ptr<projections::ClusterProjector> projector_;
  std::unique_ptr<ClusterCommandBus> bus_;
  std::unique_ptr<BridgeClusterSink> sink_;
  std::unique_ptr<kubebridge::SecretResolver> resolver_;
  std::unique_ptr<kubebridge::ClusterAuthRegistry> registry_;
  std::unique_ptr<kubebridge::ClusterConnector> connector_;
  std::unique_ptr<kubebridge::ClusterBridge> cluster_bridge_;
  std::unique_ptr<kubebridge::SourceVerifier> verifier_;
  std::unique_ptr<ClusterApi> cluster_api_;
  std::unique_ptr<ClusterGrpcService> cluster_grpc_;
  std::unique_ptr<SourceApi> source_api_;
  std::unique_ptr<SourceGrpcService> source_grpc_;
  int listener_id_ = -1;
};

}  // namespace credledger::service
