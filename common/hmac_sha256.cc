#include "common/hmac_sha256.h"

#include <openssl/core_names.h>
#include <openssl/evp.h>
#include <openssl/params.h>

#include <cstdlib>

namespace credledger::common {
namespace {

EVP_MAC* HmacMac() {
  static EVP_MAC* mac = [] {
    EVP_MAC* m = EVP_MAC_fetch(nullptr, "HMAC", nullptr);
    if (m == nullptr) std::abort();  // OpenSSL without HMAC cannot run this program.
    return m;
  }();
  return mac;
}

}  // namespace

Sha256Bytes HmacSha256(absl::string_view key, absl::string_view message) {
  char digest_name[] = "SHA256";
  const OSSL_PARAM params[] = {
      OSSL_PARAM_construct_utf8_string(OSSL_MAC_PARAM_DIGEST, digest_name, 0),
      OSSL_PARAM_construct_end()};
  EVP_MAC_CTX* ctx = EVP_MAC_CTX_new(HmacMac());
  Sha256Bytes out{};
  size_t length = 0;
  if (ctx == nullptr ||
      EVP_MAC_init(ctx, reinterpret_cast<const unsigned char*>(key.data()), key.size(), params) !=
          1 ||
      EVP_MAC_update(ctx, reinterpret_cast<const unsigned char*>(message.data()), message.size()) !=
          1 ||
      EVP_MAC_final(ctx, out.data(), &length, out.size()) != 1 || length != out.size()) {
    std::abort();  // only an allocation failure gets here, as in Sha256
  }
  EVP_MAC_CTX_free(ctx);
  return out;
}

}  // namespace credledger::common
