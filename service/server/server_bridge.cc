// Server::ConnectCluster, StartConnections, StartBridge and StopBridge: the Kubernetes side of
// `credledger serve`: the home cluster connection and its client, registered clusters and
// source verification, the credential bridge, the mirror bridge with the fingerprint key it
// records source Secrets under, and the TargetReport watch
// (docs/kubernetes.md, "serve: cluster connection and flags"; docs/connections.md; docs/mirrors.md,
// "How a change propagates").
#include <filesystem>
#include <memory>
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "common/fingerprint_key.h"
#include "common/log.h"
#include "common/status_macros.h"
#include "kubebridge/client/kubeconfig.h"
#include "service/server/server.h"
#include "service/server/server_components.h"

namespace credledger::service {
namespace {

// The key the mirror bridge fingerprints source Secrets under (docs/operations.md, "The
// fingerprint key"): the file --fingerprint-key names, which must exist; without the flag,
// "fingerprint-key" beside the database, made (mode 0600, never over another file) when
// missing. Logs the key id and, for a new key, its path; never the key.
// Errors: LoadFile's, prefixed with "--fingerprint-key: " for the flag's file (a missing one
// says how to make one); WriteNewFingerprintKey's for a new default file.
absl::StatusOr<common::FingerprintKey> LoadFingerprintKey(const ServeOptions& options) {
  const std::filesystem::path path = FingerprintKeyPath(options);
  const bool given = !options.fingerprints.key_file.empty();
  absl::StatusOr<common::FingerprintKey> key = common::FingerprintKey::LoadFile(path);
  if (!given && absl::IsNotFound(key.status())) {
    key = common::WriteNewFingerprintKey(path, "fingerprint key");
    // Another process made it meanwhile: that one is the installation's key.
    if (absl::IsAlreadyExists(key.status())) key = common::FingerprintKey::LoadFile(path);
    if (key.ok()) {
      common::Log(common::LogLevel::kInfo, "made a new fingerprint key beside the database",
                  {{"path", path.string()}, {"key_id", key->key_id()}});
    }
  }
  if (!key.ok()) {
    return absl::Status(
        key.status().code(),
        absl::StrCat(given ? "--fingerprint-key: " : "", key.status().message(),
                     absl::IsNotFound(key.status())
                         ? "; make one with `credledger keygen --fingerprint-key FILE`"
                         : ""));
  }
  common::Log(common::LogLevel::kInfo, "fingerprinting source Secrets",
              {{"key_id", key->key_id()}});
  return key;
}

}  // namespace

absl::Status Server::LoadGivenFingerprintKey() {
  // Without a cluster no bridge runs, and no key is needed.
  if (options_.fingerprints.key_file.empty() || bridge_->kube_client == nullptr) {
    return absl::OkStatus();
  }
  ASSIGN_OR_RETURN(bridge_->fingerprint_key, LoadFingerprintKey(options_));
  return absl::OkStatus();
}

absl::Status Server::ConnectCluster(const v1::ServiceConfigured& config) {
  absl::StatusOr<kubebridge::ConnectionConfig> connection;
  kubebridge::InClusterEnvironment in_cluster = kubebridge::InClusterEnvironment::FromProcess();
  if (!options_.kube.kubeconfig.empty()) {
    connection = kubebridge::LoadKubeconfig(options_.kube.kubeconfig);
  } else if (!in_cluster.service_host.empty()) {
    connection = kubebridge::LoadInClusterConfig(in_cluster);
  } else {
    // A Lease fences the writer in a cluster: refused here, before the start logs that it
    // serves without one.
    if (!options_.lease.name.empty()) {
      return absl::InvalidArgumentError(
          "--lease-name: the Lease needs a cluster connection (--kubeconfig, KUBECONFIG or "
          "in-cluster)");
    }
    // Commands are still decided and recorded; mint intents wait in the log until credledger
    // runs with a cluster connection.
    common::Log(config.credentials_enabled() ? common::LogLevel::kWarning : common::LogLevel::kInfo,
                "no cluster connection (--kubeconfig, KUBECONFIG or in-cluster): serving the "
                "API without the kube bridge; no Kubernetes object will be written");
    return absl::OkStatus();
  }
  if (!connection.ok()) return connection.status();
  kubebridge::KubeClientOptions client_options;
  client_options.rate_limit = {options_.kube.qps, options_.kube.burst};
  client_options.on_request = operations_->kube_requests;
  ASSIGN_OR_RETURN(bridge_->kube_client, kubebridge::KubeClient::New(*connection, client_options));
  common::Log(common::LogLevel::kInfo, "kube bridge connected",
              {{"cluster", connection->DebugString()}});
  bridge_->home_connection = *std::move(connection);
  return absl::OkStatus();
}

absl::Status Server::StartConnections() {
  ConnectionServicesOptions connection_options;
  connection_options.snapshot_every = options_.log.snapshot_every;
  connection_options.snapshots = log_->snapshots.get();
  connection_options.clock = options_.clock;
  connection_options.probe_period = options_.kube.cluster_probe_period;
  connection_options.probe_record_interval = options_.kube.cluster_probe_record_interval;
  connection_options.cluster_client.rate_limit = {options_.kube.qps, options_.kube.burst};
  connection_options.cluster_client.on_request = operations_->kube_requests;
  ASSIGN_OR_RETURN(bridge_->connections,
                   ConnectionServices::Start(log_->store.get(), log_->identity_projector.get(),
                                             connection_options));
  return absl::OkStatus();
}

absl::Status Server::StartBridge(const v1::ServiceConfigured& config) {
  if (options_.log.read_only) {
    common::Log(common::LogLevel::kWarning,
                "serving read-only: no kube bridge, no scheduler, no checkpoints; mutating RPCs "
                "fail with FAILED_PRECONDITION");
    return absl::OkStatus();
  }
  BridgeComponent& bridge = *bridge_;
  if (bridge.kube_client == nullptr) return absl::OkStatus();
  // First: a key that cannot be read stops the start before any bridge runs (one that
  // --fingerprint-key names is loaded already).
  if (!bridge.fingerprint_key.has_value()) {
    ASSIGN_OR_RETURN(bridge.fingerprint_key, LoadFingerprintKey(options_));
  }
  bridge.credential_sink =
      std::make_unique<BridgeOutcomeSink>(log_->bus.get(), options_.clock, config);
  kubebridge::CredentialBridgeOptions bridge_options;
  bridge_options.token_ttl = options_.credentials.agent_token_ttl;
  bridge_options.resync_period = options_.kube.resync_period;
  bridge.credential_bridge =
      kubebridge::CredentialBridge::Start(bridge.kube_client.get(), bridge.credential_sink.get(),
                                          log_->projector.get(), options_.clock, bridge_options);
  // Ready for commands meanwhile, but saying why no Target is reconciled yet (a ClusterRole
  // without list and watch on the cached kinds keeps it so).
  operations_->readiness.AddNotice("kube-caches", [credentials = bridge.credential_bridge.get()] {
    return credentials->CacheStatus();
  });
  bridge.connections->ConnectHome(*bridge.home_connection, bridge.kube_client.get());
  bridge.mirror_sink = std::make_unique<BridgeMirrorSink>(log_->identity_bus.get(), options_.clock);
  kubebridge::MirrorBridgeOptions mirror_options;
  mirror_options.resync_period = options_.kube.resync_period;
  mirror_options.cluster_clients = bridge.connections->ClusterClients();
  bridge.mirror_bridge = kubebridge::MirrorBridge::Start(
      bridge.kube_client.get(), bridge.mirror_sink.get(), log_->identity_projector.get(),
      &*bridge.fingerprint_key, options_.clock, mirror_options);
  // A cluster whose spec changed or whose probe succeeded may take its identities' mirrors
  // now.
  bridge.connections->WatchClusters(
      [mirrors = bridge.mirror_bridge.get()](const std::string& name) {
        mirrors->ClusterChanged(name);
      });
  bridge.report_sink = std::make_unique<BridgeReportSink>(reports_->ingest.get());
  bridge.report_watcher = kubebridge::ReportWatcher::Start(
      bridge.kube_client.get(), bridge.report_sink.get(), log_->projector.get());
  return absl::OkStatus();
}

void Server::StopBridge() {
  BridgeComponent& bridge = *bridge_;
  if (bridge.report_watcher != nullptr) bridge.report_watcher->Stop();
  // Before the mirror bridge: its cluster listener calls into it.
  if (bridge.connections != nullptr) bridge.connections->Stop();
  if (bridge.mirror_bridge != nullptr) bridge.mirror_bridge->Stop();
  if (bridge.credential_bridge != nullptr) bridge.credential_bridge->Stop();
  if (bridge.kube_client != nullptr) bridge.kube_client->Stop();
  bridge.report_watcher.reset();
  bridge.report_sink.reset();
  bridge.mirror_bridge.reset();
  bridge.fingerprint_key.reset();
  bridge.mirror_sink.reset();
  bridge.credential_bridge.reset();
  bridge.credential_sink.reset();
  // Its resolver and cluster bridge use the home client.
  bridge.connections.reset();
  bridge.kube_client.reset();
}

}  // namespace credledger::service
