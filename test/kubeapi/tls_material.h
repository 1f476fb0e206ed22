// TLS material for the test API server: a self-signed CA and a server certificate it
// signs, and a second self-signed CA for client certificates (kube-apiserver's
// --client-ca-file), all on NIST P-256 keys, generated in memory at start-up with OpenSSL
// 3's EVP and X509 APIs.
//
// The server certificate carries the SANs the caller lists (Go and libcurl clients
// connecting to 127.0.0.1 need an IP SAN as well as DNS:localhost). Validity is
// taken from the real clock (TLS peers check it against their own clock, never a test's
// fake one): one hour in the past until one year ahead.
//
// Thread-safety: GenerateTlsMaterial is thread-safe; a TlsMaterial is a plain value.
#pragma once

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "test/kubeapi/openssl_util.h"

namespace credledger::kubeapi {

struct TlsMaterial {
  EvpPkeyPtr ca_key;
  X509Ptr ca_cert;
  EvpPkeyPtr server_key;
  X509Ptr server_cert;
  std::string ca_cert_pem;      // PEM of ca_cert
  std::string server_cert_pem;  // PEM of server_cert
  std::string server_key_pem;   // PKCS#8 PEM of server_key
  EvpPkeyPtr client_ca_key;
  X509Ptr client_ca_cert;
};

// A client certificate and its key, both PEM (the key PKCS#8, unencrypted).
struct ClientCertificate {
  std::string certificate_pem;
  std::string key_pem;
};

// Generates a CA ("credledger-test-apiserver-ca"), a server certificate (CN
// "kube-apiserver", extended key usage serverAuth) whose SANs are `dns_names` and
// `ip_addresses` (textual IPv4 or IPv6), and a client CA
// ("credledger-test-apiserver-client-ca").
// Errors: kInvalidArgument for an unparsable IP address; kInternal when OpenSSL fails.
absl::StatusOr<TlsMaterial> GenerateTlsMaterial(const std::vector<std::string>& dns_names,
                                                const std::vector<std::string>& ip_addresses);

// Issues a client certificate on a fresh P-256 key, signed by `ca_cert`/`ca_key`: subject
// CN `user` and one O per entry of `groups` (kube-apiserver's x509 authenticator reads
// them as user name and groups), extended key usage clientAuth, and a URI SAN per entry of
// `uris` (as SPIFFE-style workload identities carry).
// Errors: kInternal when OpenSSL fails.
absl::StatusOr<ClientCertificate> IssueClientCertificate(X509* ca_cert, EVP_PKEY* ca_key,
                                                         const std::string& user,
                                                         const std::vector<std::string>& groups,
                                                         const std::vector<std::string>& uris = {});

}  // namespace credledger::kubeapi
