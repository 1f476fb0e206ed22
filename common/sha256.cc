#include "common/sha256.h"

#include <openssl/evp.h>

#include <cstdlib>

namespace credledger::common {
namespace {

EVP_MD* Sha256Md() {
  static EVP_MD* md = [] {
    EVP_MD* m = EVP_MD_fetch(nullptr, "SHA256", nullptr);
    if (m == nullptr) std::abort();  // OpenSSL without SHA-256 cannot run this program.
    return m;
  }();
  return md;
}

}  // namespace

Sha256::Sha256() : ctx_(EVP_MD_CTX_new()) {
  if (ctx_ == nullptr || EVP_DigestInit_ex2(ctx_, Sha256Md(), nullptr) != 1) std::abort();
}

Sha256::~Sha256() { EVP_MD_CTX_free(ctx_); }

void Sha256::Update(absl::string_view bytes) {
  EVP_DigestUpdate(ctx_, bytes.data(), bytes.size());
}

Sha256Bytes Sha256::Finish() {
  Sha256Bytes out{};
  unsigned int len = 0;
  EVP_DigestFinal_ex(ctx_, out.data(), &len);
  EVP_DigestInit_ex2(ctx_, Sha256Md(), nullptr);
  return out;
}

Sha256Bytes Sha256Of(absl::string_view bytes) {
  Sha256 h;
  h.Update(bytes);
  return h.Finish();
}

std::string HexEncode(absl::string_view bytes) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string out;
  out.reserve(bytes.size() * 2);
  for (unsigned char c : bytes) {
    out.push_back(kDigits[c >> 4]);
    out.push_back(kDigits[c & 0xf]);
  }
  return out;
}

std::string HexEncode(const Sha256Bytes& bytes) { return HexEncode(AsBytes(bytes)); }

bool HexDecode(absl::string_view hex, std::string* out) {
  auto nibble = [](char c) -> int {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
  };
  if (hex.size() % 2 != 0) return false;
  out->clear();
  out->reserve(hex.size() / 2);
  for (size_t i = 0; i < hex.size(); i += 2) {
    int hi = nibble(hex[i]);
    int lo = nibble(hex[i + 1]);
    if (hi < 0 || lo < 0) return false;
    out->push_back(static_cast<char>((hi << 4) | lo));
  }
  return true;
}

std::string Sha256HexPrefix(absl::string_view bytes, size_t chars) {
  return HexEncode(Sha256Of(bytes)).substr(0, chars);
}

}  // namespace credledger::common
