// The cluster authenticators whose credentials sit in a Secret (docs/connections.md,
// "Auth types"):
// - KubeconfigAuthenticator ("kubeconfig"): spec.agentless.auth.kubeconfig.secret_ref (key
//   default "value") holds a kubeconfig; its current context gives server, CA and
//   credentials, and the cluster's own server and CA are ignored. Its messages call it
//   `Secret "<ns>/<name>" key "<key>"`. A kubeconfig from a Secret may not name files
//   (certificate-authority, client-certificate, client-key, tokenFile): they would be read
//   from the service's own disk, so such a kubeconfig is Unsupported, as are exec and
//   auth-provider users.
// - TokenAuthenticator ("token"): server and CA from the cluster (agentless.server, ca_ref
//   with key default "ca.crt"), bearer token from auth.token.secret_ref (key default
//   "token"; surrounding whitespace trimmed).
// - ClientCertAuthenticator ("clientCert"): server and CA from the cluster, certificate and
//   key from keys "tls.crt" and "tls.key" of Secret auth.client_cert.secret_name.
//
// Thread-safety: stateless; Authenticate may run concurrently.
#pragma once

#include "kubebridge/clusters/cluster_auth.h"

namespace credledger::kubebridge {


class KubeconfigAuthenticator final : public ClusterAuthenticator {
 public:
  // Errors: UnsupportedError when auth.kubeconfig is unset, the kubeconfig names a file, or
  // its user is exec/auth-provider/basic; resolver errors; kInvalidArgument when the
  // kubeconfig does not parse (the message names the Secret and key and the kubeconfig
  // field, never its values).
  absl::StatusOr<ConnectionConfig> Authenticate(const ClusterAuthRequest& request,
                                                SecretResolver& resolver,
                                                Cancellation* cancel) override;
};

class TokenAuthenticator final : public ClusterAuthenticator {
 public:
  // Errors: UnsupportedError when auth.token is unset; kInvalidArgument when
  // agentless.server is empty or not https://, or the token is empty after trimming;
  // resolver errors.
  absl::StatusOr<ConnectionConfig> Authenticate(const ClusterAuthRequest& request,
                                                SecretResolver& resolver,
                                                Cancellation* cancel) override;
};

class ClientCertAuthenticator final : public ClusterAuthenticator {
 public:
  // Errors: UnsupportedError when auth.client_cert is unset; kInvalidArgument when
  // agentless.server is empty or not https://, tls.crt / tls.key is not PEM, or the key
  // does not match the certificate (keys named, values never shown); resolver errors.
  absl::StatusOr<ConnectionConfig> Authenticate(const ClusterAuthRequest& request,
                                                SecretResolver& resolver,
                                                Cancellation* cancel) override;
};

// Reads the CA of an agentless cluster (agentless.ca_ref, key default "ca.crt") into
// `config.ca_pem`; leaves it empty when ca_ref is unset. Shared by the token, clientCert
// and execPlugin authenticators.
// Errors: resolver errors; kInvalidArgument when the data holds no PEM certificate.
absl::Status ResolveClusterCa(const ClusterAuthRequest& request, SecretResolver& resolver,
                              Cancellation* cancel, ConnectionConfig& config);

}  // namespace credledger::kubebridge
