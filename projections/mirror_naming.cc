#include "projections/mirror_naming.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "common/sha256.h"
#include "store/log_hash.h"

namespace credledger::projections {
namespace {

// The hashed form keeps 16 hex characters (64 bits) of SHA-256 over the identity name.
constexpr size_t kHashedNameHexChars = 16;
constexpr size_t kShortHashHexChars = 12;

}  // namespace

std::string MirrorSecretName(absl::string_view identity) {
  std::string plain = absl::StrCat(kMirrorNamePrefix, identity);
  if (plain.size() <= kMaxSecretNameBytes) return plain;
  return absl::StrCat(kMirrorNamePrefix, common::Sha256HexPrefix(identity, kHashedNameHexChars));
}

std::string SourceHash(std::vector<std::pair<std::string, std::string>> data) {
  // std::string compares through char_traits<char>, which orders bytes as unsigned char:
  // byte order, whatever the locale or the signedness of char.
  std::sort(data.begin(), data.end(),
            [](const auto& a, const auto& b) { return a.first < b.first; });
  common::Sha256 hasher;
  std::string entry;
  for (const auto& [key, value] : data) {
    entry.clear();
    store::AppendLengthPrefixed(&entry, key);
    store::AppendLengthPrefixed(&entry, value);
    hasher.Update(entry);
  }
  return common::HexEncode(hasher.Finish());
}

std::string ShortSourceHash(absl::string_view hash) {
  return hash.empty() ? "none" : std::string(hash.substr(0, kShortHashHexChars));
}

}  // namespace credledger::projections
