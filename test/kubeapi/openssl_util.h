// Owning handles for OpenSSL objects and PEM conversions shared by the TLS material
// generator and the JWT signer.
//
// Thread-safety: the handles are plain unique_ptrs; the functions are thread-safe.
#pragma once

#include <openssl/evp.h>
#include <openssl/x509.h>

#include <memory>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace credledger::kubeapi {

struct EvpPkeyDeleter {
  void operator()(EVP_PKEY* p) const { EVP_PKEY_free(p); }
};
struct X509Deleter {
  void operator()(X509* p) const { X509_free(p); }
};
using EvpPkeyPtr = std::unique_ptr<EVP_PKEY, EvpPkeyDeleter>;
using X509Ptr = std::unique_ptr<X509, X509Deleter>;

// An internal error naming `what` and the most recent OpenSSL error string; drains the
// thread's OpenSSL error queue.
absl::Status OpenSslError(absl::string_view what);

// Generates a fresh NIST P-256 key pair.
// Errors: kInternal when OpenSSL fails.
absl::StatusOr<EvpPkeyPtr> GenerateP256Key();

// PEM text of `key`'s private key (PKCS#8, unencrypted) or public key (SubjectPublicKeyInfo).
// Errors: kInternal when OpenSSL fails.
absl::StatusOr<std::string> PrivateKeyPem(EVP_PKEY* key);
absl::StatusOr<std::string> PublicKeyPem(EVP_PKEY* key);

// DER SubjectPublicKeyInfo bytes of `key`'s public key.
// Errors: kInternal when OpenSSL fails.
absl::StatusOr<std::string> PublicKeyDer(EVP_PKEY* key);

// PEM text of `cert`. Errors: kInternal when OpenSSL fails.
absl::StatusOr<std::string> CertificatePem(X509* cert);

}  // namespace credledger::kubeapi
