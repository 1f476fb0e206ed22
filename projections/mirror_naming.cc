#include "projections/mirror_naming.h"

#include <algorithm>
#include <optional>

#include "absl/strings/str_cat.h"
#include "common/sha256.h"
#include "store/log_hash.h"

namespace credledger::projections {
namespace {

// The hashed form keeps 16 hex characters (64 bits) of SHA-256 over the identity name.
constexpr size_t kHashedNameHexChars = 16;
constexpr size_t kShortHashHexChars = 12;

// The bytes a source's data is hashed over (docs/mirrors.md, "Source hash"): for each key in
// byte order, LP(key) || LP(value).
std::string SourceBytes(std::vector<std::pair<std::string, std::string>> data) {
  // std::string compares through char_traits<char>, which orders bytes as unsigned char:
  // byte order, whatever the locale or the signedness of char.
  std::sort(data.begin(), data.end(),
            [](const auto& a, const auto& b) { return a.first < b.first; });
  std::string bytes;
  for (const auto& [key, value] : data) {
    store::AppendLengthPrefixed(&bytes, key);
    store::AppendLengthPrefixed(&bytes, value);
  }
  return bytes;
}

}  // namespace

std::string MirrorSecretName(absl::string_view identity) {
  std::string plain = absl::StrCat(kMirrorNamePrefix, identity);
  if (plain.size() <= kMaxSecretNameBytes) return plain;
  return absl::StrCat(kMirrorNamePrefix, common::Sha256HexPrefix(identity, kHashedNameHexChars));
}

std::string SourceHash(std::vector<std::pair<std::string, std::string>> data) {
  return common::HexEncode(common::Sha256Of(SourceBytes(std::move(data))));
}

std::string SourceFingerprint(const common::FingerprintKey& key,
                              std::vector<std::pair<std::string, std::string>> data) {
  return key.Fingerprint(SourceBytes(std::move(data)));
}

std::string ShortSourceDigest(absl::string_view digest) {
  if (digest.empty()) return "none";
  const std::optional<common::FingerprintParts> fingerprint = common::ParseFingerprint(digest);
  const absl::string_view hex = fingerprint.has_value() ? fingerprint->mac : digest;
  return std::string(hex.substr(0, kShortHashHexChars));
}

std::string SourceDigestWords(absl::string_view digest) {
  if (digest.empty()) return "none";
  const std::optional<common::FingerprintParts> fingerprint = common::ParseFingerprint(digest);
  if (!fingerprint.has_value()) return absl::StrCat("hash ", ShortSourceDigest(digest));
  return absl::StrCat("fingerprint ", ShortSourceDigest(digest), " (key ", fingerprint->key_id,
                      ")");
}

}  // namespace credledger::projections
