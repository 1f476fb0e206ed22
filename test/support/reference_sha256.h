// ReferenceSha256HexPrefix: SHA-256 computed directly with OpenSSL's one-shot EVP_Digest,
// independent of common/sha256, so tests can check hashes the code derives (credential tags,
// connection hashes) against a second implementation. For tests only.
#pragma once

#include <openssl/evp.h>

#include <cstdio>
#include <cstdlib>
#include <string>

#include "absl/strings/string_view.h"

namespace credledger::testing {

// The first `chars` lowercase hex characters of SHA-256(`bytes`). REQUIRES: chars <= 64.
inline std::string ReferenceSha256HexPrefix(absl::string_view bytes, size_t chars) {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int length = 0;
  if (EVP_Digest(bytes.data(), bytes.size(), digest, &length, EVP_sha256(), nullptr) != 1 ||
      length != 32) {
    std::abort();
  }
  std::string hex;
  for (unsigned int i = 0; i < length; ++i) {
    char two[3];
    std::snprintf(two, sizeof(two), "%02x", digest[i]);
    hex += two;
  }
  return hex.substr(0, chars);
}

}  // namespace credledger::testing
