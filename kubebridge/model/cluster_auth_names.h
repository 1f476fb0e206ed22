// The names a registered cluster's spec uses for its auth types and the data keys of the
// Secrets it references (docs/connections.md). Shared by the cluster authenticators, the
// validation of cluster specs and the CLI.
//
// Thread-safety: constants.
#pragma once

namespace credledger::kubebridge {

// Auth type strings of ClusterAuth.type.
inline constexpr char kAuthKubeconfig[] = "kubeconfig";
inline constexpr char kAuthToken[] = "token";
inline constexpr char kAuthClientCert[] = "clientCert";
inline constexpr char kAuthExecPlugin[] = "execPlugin";
inline constexpr char kAuthOidc[] = "oidc";

// Default data keys (docs/connections.md).
inline constexpr char kKubeconfigDefaultKey[] = "value";
inline constexpr char kTokenDefaultKey[] = "token";
inline constexpr char kTlsCertKey[] = "tls.crt";
inline constexpr char kTlsKeyKey[] = "tls.key";
// The data key read when a reference to a CA certificate (a cluster's caRef, a source's
// tls.caPublicCertRef) names none (docs/connections.md).
inline constexpr char kCaDefaultKey[] = "ca.crt";

}  // namespace credledger::kubebridge
