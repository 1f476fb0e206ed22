// Cluster authenticators and their registry (docs/connections.md, "Auth types").
//
// An authenticator turns the auth block of an agentless cluster into a ConnectionConfig,
// reading the Secrets and ConfigMaps it names from the cluster's namespace with the
// SecretResolver at every call: nothing is cached across calls except what an authenticator
// documents (execPlugin keeps a credential until shortly before its expiry), so a rotated
// Secret is used at the next connection.
//
// The registry maps an auth type string ("kubeconfig", "token", ...) to its authenticator.
// A type with no entry, and every entry's "block unset" case, are Unsupported
// (connection_errors.h).
//
// Thread-safety: Authenticate may be called concurrently; the registry is immutable after
// construction.
#pragma once

#include <map>
#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "credledger/v1/connection.pb.h"
#include "kubebridge/client/cancellation.h"
#include "kubebridge/client/connection.h"
#include "kubebridge/clusters/secret_resolver.h"
#include "kubebridge/model/cluster_auth_names.h"

namespace credledger::kubebridge {


// What an authenticator is asked: the cluster (for messages and cache keys), its spec.
struct ClusterAuthRequest {
  // Cluster name.
  std::string cluster;
  // The whole spec; spec.connection_mode is AGENTLESS and spec.agentless is set.
  v1::ClusterSpec spec;
};

class ClusterAuthenticator {
 public:
  virtual ~ClusterAuthenticator() = default;
  // Builds the connection of `request.cluster`. `source` of the result names the cluster
  // and the auth type, e.g. `cluster "edge-1" (token)`.
  // Errors: UnsupportedError when the type's block is unset or the configuration asks for
  // something unsupported; resolver errors (missing object or key, unreachable home
  // cluster); kInvalidArgument for unusable data (bad PEM, bad kubeconfig). No message holds
  // a credential.
  virtual absl::StatusOr<ConnectionConfig> Authenticate(const ClusterAuthRequest& request,
                                                        SecretResolver& resolver,
                                                        Cancellation* cancel) = 0;
};

class ClusterAuthRegistry {
 public:
  // Adds `authenticator` for `type`, replacing an earlier one.
  void Register(std::string type, std::unique_ptr<ClusterAuthenticator> authenticator);
  // The authenticator of `type`; nullptr when none is registered.
  ClusterAuthenticator* Find(absl::string_view type) const;

 private:
  std::map<std::string, std::unique_ptr<ClusterAuthenticator>, std::less<>> by_type_;
};

}  // namespace credledger::kubebridge
