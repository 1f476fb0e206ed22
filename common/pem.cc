#include "common/pem.h"

#include <openssl/bio.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/x509.h>

#include <memory>

namespace credledger::common {
namespace {

struct BioFree {
  void operator()(BIO* bio) const { BIO_free(bio); }
};
struct X509Free {
  void operator()(X509* cert) const { X509_free(cert); }
};
struct PkeyFree {
  void operator()(EVP_PKEY* key) const { EVP_PKEY_free(key); }
};
using X509Ptr = std::unique_ptr<X509, X509Free>;

// Refuses to decrypt: an encrypted key reads as no key instead of prompting on a terminal.
int NoPassphrase(char*, int, int, void*) { return 0; }

std::unique_ptr<BIO, BioFree> MemoryBio(absl::string_view pem) {
  return std::unique_ptr<BIO, BioFree>(BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size())));
}

X509Ptr FirstCertificate(absl::string_view pem) {
  std::unique_ptr<BIO, BioFree> bio = MemoryBio(pem);
  return X509Ptr(bio != nullptr ? PEM_read_bio_X509(bio.get(), nullptr, nullptr, nullptr)
                                : nullptr);
}

}  // namespace

bool HoldsPemCertificate(absl::string_view pem) {
  const bool holds = FirstCertificate(pem) != nullptr;
  ERR_clear_error();
  return holds;
}

PemPairProblem CheckPemKeyPair(absl::string_view cert_pem, absl::string_view key_pem) {
  X509Ptr cert = FirstCertificate(cert_pem);
  if (cert == nullptr) {
    ERR_clear_error();
    return PemPairProblem::kNoCertificate;
  }
  std::unique_ptr<BIO, BioFree> bio = MemoryBio(key_pem);
  std::unique_ptr<EVP_PKEY, PkeyFree> key(
      bio != nullptr ? PEM_read_bio_PrivateKey(bio.get(), nullptr, NoPassphrase, nullptr)
                     : nullptr);
  const PemPairProblem problem =
      key == nullptr                                       ? PemPairProblem::kNoKey
      : X509_check_private_key(cert.get(), key.get()) != 1 ? PemPairProblem::kMismatch
                                                           : PemPairProblem::kNone;
  ERR_clear_error();
  return problem;
}

}  // namespace credledger::common
