#include "test/kubeapi/openssl_util.h"

#include <openssl/bio.h>
#include <openssl/err.h>
#include <openssl/pem.h>

#include "absl/strings/str_cat.h"

namespace credledger::kubeapi {
namespace {

struct BioDeleter {
  void operator()(BIO* b) const { BIO_free(b); }
};
using BioPtr = std::unique_ptr<BIO, BioDeleter>;

std::string DrainBio(BIO* bio) {
  char* data = nullptr;
  long len = BIO_get_mem_data(bio, &data);
  return std::string(data, static_cast<size_t>(len));
}

}  // namespace

absl::Status OpenSslError(absl::string_view what) {
  unsigned long code = ERR_get_error();
  char buf[256] = {0};
  if (code != 0) ERR_error_string_n(code, buf, sizeof(buf));
  ERR_clear_error();
  return absl::InternalError(absl::StrCat("openssl: ", what, ": ", buf));
}

absl::StatusOr<EvpPkeyPtr> GenerateP256Key() {
  EvpPkeyPtr key(EVP_EC_gen("P-256"));
  if (!key) return OpenSslError("generating P-256 key");
  return key;
}

absl::StatusOr<std::string> PrivateKeyPem(EVP_PKEY* key) {
  BioPtr bio(BIO_new(BIO_s_mem()));
  if (!bio || PEM_write_bio_PrivateKey(bio.get(), key, nullptr, nullptr, 0, nullptr,
                                       nullptr) != 1) {
    return OpenSslError("writing private key PEM");
  }
  return DrainBio(bio.get());
}

absl::StatusOr<std::string> PublicKeyPem(EVP_PKEY* key) {
  BioPtr bio(BIO_new(BIO_s_mem()));
  if (!bio || PEM_write_bio_PUBKEY(bio.get(), key) != 1) {
    return OpenSslError("writing public key PEM");
  }
  return DrainBio(bio.get());
}

absl::StatusOr<std::string> PublicKeyDer(EVP_PKEY* key) {
  unsigned char* der = nullptr;
  int len = i2d_PUBKEY(key, &der);
  if (len <= 0) return OpenSslError("encoding public key DER");
  std::string out(reinterpret_cast<char*>(der), static_cast<size_t>(len));
  OPENSSL_free(der);
  return out;
}

absl::StatusOr<std::string> CertificatePem(X509* cert) {
  BioPtr bio(BIO_new(BIO_s_mem()));
  if (!bio || PEM_write_bio_X509(bio.get(), cert) != 1) {
    return OpenSslError("writing certificate PEM");
  }
  return DrainBio(bio.get());
}

}  // namespace credledger::kubeapi
