#include "common/fingerprint_key.h"

#include <openssl/crypto.h>
#include <openssl/rand.h>

#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "common/atomic_file.h"
#include "common/file_util.h"
#include "common/hmac_sha256.h"
#include "common/sha256.h"

namespace credledger::common {
namespace {

constexpr char kKeyIdTag[] = "credledger-fingerprint-key-id-v1";
constexpr size_t kMacChars = 64;
// A key file is 65 bytes; a little room for a CRLF, nothing like a whole other file.
constexpr size_t kMaxKeyFileBytes = 256;

bool IsLowerHex(absl::string_view text, size_t length) {
  if (text.size() != length) return false;
  for (char c : text) {
    if (!absl::ascii_isdigit(c) && (c < 'a' || c > 'f')) return false;
  }
  return true;
}

}  // namespace

FingerprintKey::FingerprintKey(std::string raw) : raw_(std::move(raw)) {
  std::string tagged = absl::StrCat(kKeyIdTag, absl::string_view("\0", 1), raw_);
  key_id_ = Sha256HexPrefix(tagged, kFingerprintKeyIdChars);
  OPENSSL_cleanse(tagged.data(), tagged.size());
}

FingerprintKey::~FingerprintKey() { OPENSSL_cleanse(raw_.data(), raw_.size()); }

absl::StatusOr<FingerprintKey> FingerprintKey::Generate() {
  std::string raw(kFingerprintKeyBytes, '\0');
  if (RAND_bytes(reinterpret_cast<unsigned char*>(raw.data()), static_cast<int>(raw.size())) != 1) {
    return absl::InternalError("fingerprint key: no random bytes from OpenSSL");
  }
  return FingerprintKey(std::move(raw));
}

absl::StatusOr<FingerprintKey> FingerprintKey::FromText(absl::string_view text) {
  absl::string_view hex = text;
  if (!absl::ConsumeSuffix(&hex, "\r\n")) absl::ConsumeSuffix(&hex, "\n");
  std::string raw;
  if (hex.size() != 2 * kFingerprintKeyBytes || !HexDecode(hex, &raw)) {
    OPENSSL_cleanse(raw.data(), raw.size());
    return absl::InvalidArgumentError(
        "not a fingerprint key: expected 64 hex digits (32 bytes) on one line");
  }
  return FingerprintKey(std::move(raw));
}

absl::StatusOr<FingerprintKey> FingerprintKey::LoadFile(const std::filesystem::path& path) {
  absl::StatusOr<std::string> text = ReadSmallFile(path, kMaxKeyFileBytes);
  if (!text.ok()) {
    return absl::Status(text.status().code(),
                        absl::StrCat("fingerprint key file ", text.status().message()));
  }
  absl::StatusOr<FingerprintKey> key = FromText(*text);
  OPENSSL_cleanse(text->data(), text->size());
  if (!key.ok()) {
    return absl::Status(key.status().code(),
                        absl::StrCat("\"", path.string(), "\": ", key.status().message()));
  }
  return key;
}

std::string FingerprintKey::Text() const { return absl::StrCat(HexEncode(raw_), "\n"); }

std::string FingerprintKey::Fingerprint(absl::string_view bytes) const {
  return absl::StrCat(kFingerprintScheme, ":", key_id_, ":", HexEncode(HmacSha256(raw_, bytes)));
}

absl::StatusOr<FingerprintKey> WriteNewFingerprintKey(const std::filesystem::path& path,
                                                      absl::string_view label) {
  absl::StatusOr<FingerprintKey> key = FingerprintKey::Generate();
  if (!key.ok()) return key.status();
  std::string text = key->Text();
  absl::Status written = WriteFileAtomically(
      path, text, {.label = label, .mode = 0600, .exact_mode = true, .replace = false});
  OPENSSL_cleanse(text.data(), text.size());
  if (!written.ok()) return written;
  return key;
}

std::optional<FingerprintParts> ParseFingerprint(absl::string_view value) {
  absl::string_view rest = value;
  if (!absl::ConsumePrefix(&rest, kFingerprintScheme) || !absl::ConsumePrefix(&rest, ":")) {
    return std::nullopt;
  }
  FingerprintParts parts;
  parts.key_id = rest.substr(0, kFingerprintKeyIdChars);
  rest.remove_prefix(parts.key_id.size());
  if (!IsLowerHex(parts.key_id, kFingerprintKeyIdChars) || !absl::ConsumePrefix(&rest, ":") ||
      !IsLowerHex(rest, kMacChars)) {
    return std::nullopt;
  }
  parts.mac = rest;
  return parts;
}

absl::Status ValidateFingerprint(absl::string_view field, absl::string_view value) {
  if (ParseFingerprint(value).has_value()) return absl::OkStatus();
  return absl::InvalidArgumentError(absl::StrCat(
      field, ": not a fingerprint \"hmac-sha256:<16 hex key id>:<64 hex>\" in lowercase hex"));
}

}  // namespace credledger::common
