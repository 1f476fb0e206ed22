// ClusterConnector: builds the connection of a registered cluster at each call
// (docs/connections.md, "Clusters").
//
// - inCluster: the service's own connection (its --kubeconfig when set, else its in-cluster
//   service account), as given at construction.
// - agentless: the authenticator of spec.agentless.auth.type from the registry, reading its
//   Secrets and ConfigMaps from spec.namespace on the home cluster.
// There is no cache of clients or credentials (beyond what an authenticator documents):
// NewClient makes a new KubeClient every time, so a rotated Secret is used at the next
// connection.
//
// Thread-safety: Connect and NewClient may run concurrently.
#pragma once

#include <memory>
#include <optional>

#include "absl/status/statusor.h"
#include "credledger/v1/state.pb.h"
#include "kubebridge/client/cancellation.h"
#include "kubebridge/client/connection.h"
#include "kubebridge/client/kube_client.h"
#include "kubebridge/clusters/cluster_auth.h"
#include "kubebridge/clusters/exec_plugin_authenticator.h"
#include "kubebridge/clusters/secret_resolver.h"

namespace credledger::kubebridge {

// The auth type Connect reports for inCluster clusters (ClusterProbed.auth_type).
inline constexpr char kAuthInCluster[] = "inCluster";

class ClusterConnector {
 public:
  // `home` is the service's own connection (nullopt when the service runs without one);
  // `resolver` reads from the home cluster and `registry` holds the authenticators (both
  // not owned, may be null only when `home` is nullopt; must outlive the connector).
  ClusterConnector(std::optional<ConnectionConfig> home, SecretResolver* resolver,
                   const ClusterAuthRegistry* registry);

  // The connection of `cluster` (its current spec), and the auth type used ("inCluster" or
  // spec.agentless.auth.type) in `auth_type` when not null; `auth_type` is also set when a
  // later step fails, as soon as the mode is known.
  // Errors: kFailedPrecondition when the service has no home connection; UnsupportedError
  // for an unset or unspecified connection mode, an agentless cluster without its block, an
  // auth type with no authenticator ("oidc" and unknown types); the authenticator's errors.
  // Every message starts with `cluster "<name>": ` and names the cluster only there, so
  // callers record it as is.
  absl::StatusOr<ConnectionConfig> Connect(const v1::ClusterState& cluster,
                                           std::string* auth_type = nullptr,
                                           Cancellation* cancel = nullptr);

  // Connect, then a new KubeClient over the result with `options`.
  // Errors: as Connect; as KubeClient::New.
  absl::StatusOr<std::unique_ptr<KubeClient>> NewClient(const v1::ClusterState& cluster,
                                                        KubeClientOptions options,
                                                        Cancellation* cancel = nullptr);

 private:
  const std::optional<ConnectionConfig> home_;
  SecretResolver* resolver_;
  const ClusterAuthRegistry* registry_;
};

// A registry with every authenticator credledger has: kubeconfig, token, clientCert and
// execPlugin (with `exec_options`). "oidc" is deliberately absent (Unsupported).
std::unique_ptr<ClusterAuthRegistry> DefaultClusterAuthRegistry(
    ExecPluginOptions exec_options = {});

}  // namespace credledger::kubebridge
