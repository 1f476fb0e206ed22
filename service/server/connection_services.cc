#include "service/server/connection_services.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "common/status_macros.h"
#include "credledger/v1/api.grpc.pb.h"
#include "grpcpp/grpcpp.h"

namespace credledger::service {

absl::StatusOr<std::unique_ptr<ConnectionServices>> ConnectionServices::Start(
    store::EventStore* store, projections::IdentityProjector* identities,
    ConnectionServicesOptions options) {
  auto services = std::unique_ptr<ConnectionServices>(new ConnectionServices(options));
  services->store_ = store;
  services->identities_ = identities;
  projections::ClusterProjector::Options projector_options;
  projector_options.snapshot_every = options.snapshot_every;
  projector_options.snapshots = options.snapshots;
  // Nothing resumes cluster watches; listeners take keys only.
  projector_options.change_history = 0;
  ASSIGN_OR_RETURN(services->projector_,
                   projections::ClusterProjector::Start(store, projector_options));
  services->bus_ = std::make_unique<ClusterCommandBus>(store);
  return services;
}

ConnectionServices::~ConnectionServices() { Stop(); }

void ConnectionServices::ConnectHome(const kubebridge::ConnectionConfig& home,
                                     kubebridge::KubeClient* home_client) {
  resolver_ = std::make_unique<kubebridge::SecretResolver>(*home_client);
  registry_ = kubebridge::DefaultClusterAuthRegistry();
  connector_ =
      std::make_unique<kubebridge::ClusterConnector>(home, resolver_.get(), registry_.get());
  verifier_ = std::make_unique<kubebridge::SourceVerifier>(resolver_.get());
  sink_ = std::make_unique<BridgeClusterSink>(bus_.get(), options_.clock,
                                              options_.probe_record_interval);
  kubebridge::ClusterBridgeOptions bridge_options;
  bridge_options.probe_period = options_.probe_period;
  bridge_options.client = options_.cluster_client;
  cluster_bridge_ = kubebridge::ClusterBridge::Start(
      connector_.get(), sink_.get(), projector_.get(), options_.clock, bridge_options);
}

kubebridge::ClusterClientFactory ConnectionServices::ClusterClients() {
  return [this](const std::string& name, kubebridge::Cancellation* cancel)
             -> absl::StatusOr<std::unique_ptr<kubebridge::KubeClient>> {
    if (connector_ == nullptr) {
      return absl::FailedPreconditionError(
          absl::StrCat("cluster \"", name, "\": the service has no home cluster connection"));
    }
    ASSIGN_OR_RETURN(const v1::ClusterState cluster, projector_->GetActive(name));
    return connector_->NewClient(cluster, options_.cluster_client, cancel);
  };
}

void ConnectionServices::WatchClusters(std::function<void(const std::string& name)> changed) {
  listener_id_ =
      projector_->AddKeyListener([changed = std::move(changed)](const std::string& stream) {
        absl::string_view name = stream;
        if (absl::ConsumePrefix(&name, "cluster/")) changed(std::string(name));
      });
}

void ConnectionServices::RegisterServices(grpc::ServerBuilder& builder,
                                          const CallEnvironment& env) {
  ClusterProbeFunction probe;
  LastProbeFunction last_probe;
  if (cluster_bridge_ != nullptr) {
    kubebridge::ClusterBridge* bridge = cluster_bridge_.get();
    probe = [bridge](const std::string& name, kubebridge::Cancellation* cancel) {
      return bridge->ProbeNow(name, cancel);
    };
    last_probe = [bridge](const std::string& name) { return bridge->LastProbe(name); };
  }
  cluster_api_ =
      std::make_unique<ClusterApi>(bus_.get(), projector_.get(), identities_, std::move(probe),
                                   std::move(last_probe), options_.clock, ClusterApi::Options{});
  cluster_grpc_ = std::make_unique<ClusterGrpcService>(cluster_api_.get(), env);
  builder.RegisterService(cluster_grpc_.get());

  kubebridge::SourceVerifier* verifier = verifier_.get();
  if (verifier == nullptr) {
    // Without a home cluster only sources without references can be verified.
    verifier_ = std::make_unique<kubebridge::SourceVerifier>(nullptr);
    verifier = verifier_.get();
  }
  source_api_ = std::make_unique<SourceApi>(
      store_,
      [verifier](const v1::SourceSpec& source, kubebridge::Cancellation* cancel) {
        return verifier->Verify(source, cancel);
      },
      resolver_ != nullptr);
  source_grpc_ = std::make_unique<SourceGrpcService>(source_api_.get(), env);
  builder.RegisterService(source_grpc_.get());
}

void ConnectionServices::Stop() {
  if (listener_id_ >= 0 && projector_ != nullptr) {
    projector_->RemoveListener(listener_id_);
    listener_id_ = -1;
  }
  if (cluster_bridge_ != nullptr) cluster_bridge_->Stop();
}

}  // namespace credledger::service
