// The per-installation key of source fingerprints (docs/audit.md, "Source fingerprints";
// docs/mirrors.md, "Source fingerprint"): 32 random bytes, kept on the service host and
// rotated like the signing key.
//
// A fingerprint is the text "hmac-sha256:<key id>:<mac>": <mac> is the lowercase hex
// HMAC-SHA-256 (hmac_sha256.h) under the key over the bytes given, so only the key's holder
// can compute one, and a reader of the log cannot check a guessed input against it. The key
// id is the first 16 lowercase hex characters of SHA-256 over the tag
// "credledger-fingerprint-key-id-v1", a zero byte and the key: it names the key (a rotated
// key shows as another id) and, the key being 256 random bits, reveals nothing of it.
//
// File format: the key as 64 hex digits on one line ("<hex>\n"; uppercase digits and a
// missing final newline are accepted, so `openssl rand -hex 32` makes one too).
//
// Thread-safety: a FingerprintKey is immutable after construction and safe to share; each
// copy wipes its key bytes when destroyed.
#pragma once

#include <cstddef>
#include <filesystem>
#include <optional>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace credledger::common {

// The start of every fingerprint.
inline constexpr char kFingerprintScheme[] = "hmac-sha256";
// Bytes of a key; hex characters of a key id.
inline constexpr size_t kFingerprintKeyBytes = 32;
inline constexpr size_t kFingerprintKeyIdChars = 16;

class FingerprintKey {
 public:
  // A new key of 32 random bytes. Errors: kInternal when OpenSSL has no random bytes.
  static absl::StatusOr<FingerprintKey> Generate();
  // Parses the file format. Errors: kInvalidArgument when `text` is not 64 hex digits on one
  // line; the message never quotes the text.
  static absl::StatusOr<FingerprintKey> FromText(absl::string_view text);
  // Reads and parses the key file `path`. Errors: kNotFound when it does not exist;
  // kFailedPrecondition when it cannot be read (or is larger than a key file can be);
  // FromText's. Messages name the file, never its content.
  static absl::StatusOr<FingerprintKey> LoadFile(const std::filesystem::path& path);

  FingerprintKey(const FingerprintKey&) = default;
  FingerprintKey(FingerprintKey&&) = default;
  FingerprintKey& operator=(const FingerprintKey&) = default;
  FingerprintKey& operator=(FingerprintKey&&) = default;
  ~FingerprintKey();

  // The key in the file format ("<64 lowercase hex>\n"). Secret: write it only to a file of
  // mode 0600.
  std::string Text() const;
  // 16 lowercase hex characters naming the key.
  const std::string& key_id() const { return key_id_; }
  // The fingerprint of `bytes`: "hmac-sha256:<key id>:<64 lowercase hex>".
  std::string Fingerprint(absl::string_view bytes) const;

 private:
  explicit FingerprintKey(std::string raw);
  std::string raw_;
  std::string key_id_;
};

// Writes a new key as the file `path`: mode 0600 exactly whatever the umask, never over
// anything at `path` (a file appearing meanwhile included), whole or not at all
// (atomic_file.h). Returns the key written. `label` (a flag or a command) starts every error.
// Errors: kAlreadyExists when anything is at `path`; kFailedPrecondition when the file
// cannot be created; kUnavailable when it cannot be written; kInternal as Generate.
absl::StatusOr<FingerprintKey> WriteNewFingerprintKey(const std::filesystem::path& path,
                                                      absl::string_view label);

// The parts of a fingerprint, views into it.
struct FingerprintParts {
  absl::string_view key_id;  // 16 lowercase hex characters
  absl::string_view mac;     // 64 lowercase hex characters
};

// The parts of `value` when it has the shape of a fingerprint, else nullopt.
std::optional<FingerprintParts> ParseFingerprint(absl::string_view value);

// Checks that `value` has the shape of a fingerprint.
// Errors: kInvalidArgument "<field>: not a fingerprint \"hmac-sha256:<16 hex key id>:<64
// hex>\" in lowercase hex"; the message never quotes `value`.
absl::Status ValidateFingerprint(absl::string_view field, absl::string_view value);

}  // namespace credledger::common
