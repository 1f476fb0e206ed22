// SHA-256 and hex helpers on OpenSSL 3's EVP interface.
//
// Sha256 is an incremental hasher; one instance is not thread-safe, separate instances are.
// The EVP_MD algorithm object is fetched once per process and shared (OpenSSL 3 makes a
// per-call fetch several times slower than the hash itself).
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include "absl/strings/string_view.h"

struct evp_md_ctx_st;  // OpenSSL's EVP_MD_CTX

namespace credledger::common {

using Sha256Bytes = std::array<uint8_t, 32>;

class Sha256 {
 public:
  Sha256();
  ~Sha256();
  Sha256(const Sha256&) = delete;
  Sha256& operator=(const Sha256&) = delete;

  // Appends raw bytes to the hashed input.
  void Update(absl::string_view bytes);
  // Returns the digest of everything appended since construction or the last Finish, and
  // resets the hasher for reuse.
  Sha256Bytes Finish();

 private:
  ::evp_md_ctx_st* ctx_;
};

// SHA-256 of `bytes` (32 raw bytes).
Sha256Bytes Sha256Of(absl::string_view bytes);

// Lowercase hex of `bytes`: 2 characters per byte.
std::string HexEncode(absl::string_view bytes);
std::string HexEncode(const Sha256Bytes& bytes);

// Raw bytes of lowercase or uppercase hex `hex`. Returns false when `hex` has odd length
// or a non-hex character; `out` is then unspecified.
bool HexDecode(absl::string_view hex, std::string* out);

// The first `chars` lowercase hex characters of SHA-256(`bytes`); used for fingerprints
// (tokens, CA bundles) and short tags. REQUIRES: 0 < chars <= 64.
std::string Sha256HexPrefix(absl::string_view bytes, size_t chars);

// Views a digest as a byte string.
inline absl::string_view AsBytes(const Sha256Bytes& d) {
  return {reinterpret_cast<const char*>(d.data()), d.size()};
}

}  // namespace credledger::common
