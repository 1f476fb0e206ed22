// Ed25519 keys of the audit trail (docs/audit.md, "Keys"): the service signs checkpoints
// and export trailers with a SigningKey; an auditor verifies with the PublicKey alone.
//
// Files are PEM: the private key as PKCS#8 ("-----BEGIN PRIVATE KEY-----"), the public key
// as SubjectPublicKeyInfo ("-----BEGIN PUBLIC KEY-----"), as `openssl genpkey -algorithm
// ed25519` and `openssl pkey -pubout` write them. The key id is the first 16 lowercase hex
// characters of SHA-256 over the raw 32-byte public key.
//
// Thread-safety: both classes are immutable after construction and safe to share; copies
// share the underlying OpenSSL key.
#pragma once

#include <filesystem>
#include <map>
#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

struct evp_pkey_st;  // OpenSSL's EVP_PKEY

namespace credledger::audit {

// Key id of a raw 32-byte Ed25519 public key: 16 lowercase hex characters.
std::string KeyIdOf(absl::string_view raw_public_key);

class PublicKey {
 public:
  // Parses a PEM "PUBLIC KEY". Errors: kInvalidArgument when it is not PEM or not Ed25519.
  static absl::StatusOr<PublicKey> FromPem(absl::string_view pem);
  // Reads and parses a PEM file. Errors: kNotFound when missing, kFailedPrecondition when
  // unreadable, FromPem's (the message names the file).
  static absl::StatusOr<PublicKey> LoadFile(const std::filesystem::path& path);

  // The raw 32-byte public key and its key id.
  const std::string& raw() const { return raw_; }
  const std::string& key_id() const { return key_id_; }
  // The key as PEM "PUBLIC KEY" (with a final newline).
  std::string Pem() const;
  // True when `signature` (64 bytes) is this key's Ed25519 signature over `message`.
  bool Verify(absl::string_view message, absl::string_view signature) const;

 private:
  PublicKey(std::shared_ptr<evp_pkey_st> key, std::string raw);
  std::shared_ptr<evp_pkey_st> key_;
  std::string raw_;
  std::string key_id_;
  friend class SigningKey;
};

class SigningKey {
 public:
  // A new random key. Errors: kInternal when OpenSSL fails.
  static absl::StatusOr<SigningKey> Generate();
  // Parses a PEM "PRIVATE KEY" (PKCS#8). Errors: kInvalidArgument when it is not PEM or not
  // Ed25519. The message never contains key material.
  static absl::StatusOr<SigningKey> FromPem(absl::string_view pem);
  // Reads and parses a PEM file. Errors: kNotFound when missing, kFailedPrecondition when
  // unreadable, FromPem's (the message names the file).
  static absl::StatusOr<SigningKey> LoadFile(const std::filesystem::path& path);

  const PublicKey& public_key() const { return public_key_; }
  const std::string& key_id() const { return public_key_.key_id(); }
  // The private key as PEM "PRIVATE KEY" (with a final newline). Secret: write it only to a
  // file of mode 0600.
  std::string PrivatePem() const;
  // The Ed25519 signature (64 bytes) over `message`. Errors: kInternal when OpenSSL fails.
  absl::StatusOr<std::string> Sign(absl::string_view message) const;

 private:
  SigningKey(std::shared_ptr<evp_pkey_st> key, PublicKey public_key);
  // The SigningKey of an Ed25519 private key; its PublicKey holds a public-only copy.
  // Errors: kInternal when OpenSSL fails.
  static absl::StatusOr<SigningKey> FromPrivateKey(std::shared_ptr<evp_pkey_st> key);
  std::shared_ptr<evp_pkey_st> key_;
  PublicKey public_key_;
};

// The public keys a verifier trusts, by key id: the service's current key and the keys it
// signed with before a rotation (docs/audit.md, "Keys").
class KeyRing {
 public:
  KeyRing() = default;
  // A ring of one key. Implicit, so that one key can be passed where a ring is expected.
  KeyRing(const PublicKey& key) { Add(key); }  // NOLINT(google-explicit-constructor)

  // Adds `key`; a key already present is kept once.
  void Add(const PublicKey& key) { keys_.insert_or_assign(key.key_id(), key); }
  // The key with `key_id`; nullptr when the ring has none.
  const PublicKey* Find(absl::string_view key_id) const;
  // The key ids, comma-separated, ordered ("5d0c8e1f2a3b4c6d, 9d704ceda365324d").
  std::string KeyIds() const;
  size_t size() const { return keys_.size(); }

 private:
  std::map<std::string, PublicKey, std::less<>> keys_;
};

}  // namespace credledger::audit
