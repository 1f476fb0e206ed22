#include "kubebridge/clusters/cluster_connector.h"

#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "kubebridge/clusters/static_authenticators.h"
#include "kubebridge/model/connection_errors.h"

namespace credledger::kubebridge {
namespace {

std::string ClusterLabel(const v1::ClusterState& cluster) {
  return absl::StrCat("cluster \"", cluster.name(), "\"");
}

}  // namespace

ClusterConnector::ClusterConnector(std::optional<ConnectionConfig> home, SecretResolver* resolver,
                                   const ClusterAuthRegistry* registry)
    : home_(std::move(home)), resolver_(resolver), registry_(registry) {}

absl::StatusOr<ConnectionConfig> ClusterConnector::Connect(const v1::ClusterState& cluster,
                                                           std::string* auth_type,
                                                           Cancellation* cancel) {
  const v1::ClusterSpec& spec = cluster.spec();
  const std::string label = ClusterLabel(cluster);
  std::string type;
  switch (spec.connection_mode()) {
    case v1::CLUSTER_CONNECTION_MODE_IN_CLUSTER:
      type = kAuthInCluster;
      break;
    case v1::CLUSTER_CONNECTION_MODE_AGENTLESS:
      if (!spec.has_agentless()) {
        return UnsupportedError(absl::StrCat(
            label, ": connection mode agentless needs spec.agentless, which is not set"));
      }
      type = spec.agentless().auth().type();
      break;
    case v1::CLUSTER_CONNECTION_MODE_UNSPECIFIED:
      return UnsupportedError(
          absl::StrCat(label, ": spec.connection_mode is not set (inCluster or agentless)"));
    default:  // a value this build does not know
      return UnsupportedError(absl::StrCat(label, ": spec.connection_mode ",
                                           static_cast<int>(spec.connection_mode()),
                                           " is not supported (inCluster or agentless)"));
  }
  if (auth_type != nullptr) *auth_type = type;
  if (!home_.has_value()) {
    return absl::FailedPreconditionError(
        absl::StrCat(label, ": the service runs without a home cluster connection"));
  }
  if (spec.connection_mode() == v1::CLUSTER_CONNECTION_MODE_IN_CLUSTER) return *home_;

  if (type.empty()) {
    return UnsupportedError(absl::StrCat(label, ": spec.agentless.auth.type is not set"));
  }
  ClusterAuthenticator* authenticator = registry_->Find(type);
  if (authenticator == nullptr) {
    return UnsupportedError(absl::StrCat(label, ": auth type \"", type, "\" is not supported"));
  }
  ClusterAuthRequest request{.cluster = cluster.name(), .spec = spec};
  absl::StatusOr<ConnectionConfig> config =
      authenticator->Authenticate(request, *resolver_, cancel);
  if (!config.ok()) return Annotate(config.status(), label);
  return config;
}

absl::StatusOr<std::unique_ptr<KubeClient>> ClusterConnector::NewClient(
    const v1::ClusterState& cluster, KubeClientOptions options, Cancellation* cancel) {
  absl::StatusOr<ConnectionConfig> config = Connect(cluster, nullptr, cancel);
  if (!config.ok()) return config.status();
  absl::StatusOr<std::unique_ptr<KubeClient>> client =
      KubeClient::New(*std::move(config), std::move(options));
  if (!client.ok()) return Annotate(client.status(), ClusterLabel(cluster));
  return client;
}

std::unique_ptr<ClusterAuthRegistry> DefaultClusterAuthRegistry(ExecPluginOptions exec_options) {
  auto registry = std::make_unique<ClusterAuthRegistry>();
  registry->Register(kAuthKubeconfig, std::make_unique<KubeconfigAuthenticator>());
  registry->Register(kAuthToken, std::make_unique<TokenAuthenticator>());
  registry->Register(kAuthClientCert, std::make_unique<ClientCertAuthenticator>());
  registry->Register(kAuthExecPlugin, std::make_unique<ExecPluginAuthenticator>(exec_options));
  return registry;
}

}  // namespace credledger::kubebridge
