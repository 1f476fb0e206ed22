// Kubeconfig files for the test API server: one cluster (server URL and inline CA),
// one user (bearer token), one context, current-context set. YAML, which every client
// (kubectl, client-go, credledger's own loader) reads.
//
// Thread-safety: pure function.
#pragma once

#include <string>

namespace credledger::kubeapi {

struct KubeconfigSpec {
  std::string server;        // "https://127.0.0.1:<port>"
  std::string ca_pem;        // the cluster CA certificate (PEM)
  std::string token;         // bearer token of the user
  std::string namespace_name = "default";  // the context's namespace
  std::string name = "credledger-test";    // cluster, user and context name
};

// The kubeconfig text for `spec` (certificate-authority-data is base64 of the PEM).
std::string RenderKubeconfig(const KubeconfigSpec& spec);

}  // namespace credledger::kubeapi
