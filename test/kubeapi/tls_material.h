// TLS material for the test API server: a self-signed CA and a server certificate it
// signs, both on NIST P-256 keys, generated in memory at start-up with OpenSSL 3's EVP and
// X509 APIs.
//
// The server certificate carries the SANs the caller lists (PLATFORM.md: Go and libcurl
// clients connecting to 127.0.0.1 need an IP SAN as well as DNS:localhost). Validity is
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
};

// Generates a CA ("credledger-test-apiserver-ca") and a server certificate
// (CN "kube-apiserver", extended key usage serverAuth) whose SANs are `dns_names` and
// `ip_addresses` (textual IPv4 or IPv6).
// Errors: kInvalidArgument for an unparsable IP address; kInternal when OpenSSL fails.
absl::StatusOr<TlsMaterial> GenerateTlsMaterial(const std::vector<std::string>& dns_names,
                                                const std::vector<std::string>& ip_addresses);

}  // namespace credledger::kubeapi
