#include "audit/signing_key.h"

#include <fcntl.h>
#include <openssl/bio.h>
#include <openssl/crypto.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <memory>
#include <utility>

#include "absl/strings/str_cat.h"
#include "common/sha256.h"

namespace credledger::audit {
namespace {

constexpr size_t kRawPublicKeyBytes = 32;
constexpr size_t kSignatureBytes = 64;
// PEM key files are a few hundred bytes; anything much larger is not a key.
constexpr size_t kMaxKeyFileBytes = 64 * 1024;

struct BioFree {
  void operator()(BIO* bio) const { BIO_free(bio); }
};
using BioPtr = std::unique_ptr<BIO, BioFree>;

struct MdCtxFree {
  void operator()(EVP_MD_CTX* ctx) const { EVP_MD_CTX_free(ctx); }
};
using MdCtxPtr = std::unique_ptr<EVP_MD_CTX, MdCtxFree>;

std::shared_ptr<EVP_PKEY> Own(EVP_PKEY* key) {
  return std::shared_ptr<EVP_PKEY>(key, EVP_PKEY_free);
}

// Refuses every passphrase prompt: an encrypted key file fails to parse instead of reading
// from the terminal.
int NoPassphrase(char*, int, int, void*) { return -1; }

// Drops OpenSSL's queued errors after a failure we report ourselves, so they do not surface
// in an unrelated later call.
template <typename T>
T Cleared(T result) {
  ERR_clear_error();
  return result;
}

// kInvalidArgument unless `key` is an Ed25519 key; `what` names the key in the message.
absl::Status RequireEd25519(const EVP_PKEY* key, absl::string_view what) {
  if (EVP_PKEY_is_a(key, "ED25519")) return absl::OkStatus();
  const char* type = EVP_PKEY_get0_type_name(key);
  return absl::InvalidArgumentError(absl::StrCat(what, ": the key type is ",
                                                 type != nullptr ? type : "unknown",
                                                 "; only Ed25519 keys are accepted"));
}

absl::StatusOr<std::string> RawPublicKey(const EVP_PKEY* key) {
  std::string raw(kRawPublicKeyBytes, '\0');
  size_t length = raw.size();
  if (EVP_PKEY_get_raw_public_key(key, reinterpret_cast<unsigned char*>(raw.data()),
                                  &length) != 1 ||
      length != kRawPublicKeyBytes) {
    return Cleared(absl::InternalError("Ed25519 key: cannot read the raw public key"));
  }
  return raw;
}

// The contents of a memory BIO.
std::string BioContents(BIO* bio) {
  char* data = nullptr;
  const long length = BIO_get_mem_data(bio, &data);
  return length > 0 ? std::string(data, static_cast<size_t>(length)) : std::string();
}

// Reads `path`; `what` names the key kind in messages. Errors: kNotFound when it does not
// exist, kFailedPrecondition when it cannot be read (a folder, no permission) or is larger
// than kMaxKeyFileBytes.
absl::StatusOr<std::string> ReadKeyFile(const std::filesystem::path& path,
                                        absl::string_view what) {
  auto failure = [&](int error) {
    const std::string message = absl::StrCat(what, " file \"", path.string(),
                                             "\": cannot read: ", std::strerror(error));
    return error == ENOENT ? absl::NotFoundError(message)
                           : absl::FailedPreconditionError(message);
  };
  const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return failure(errno);
  std::string bytes;
  char buffer[4096];
  int error = 0;
  for (;;) {
    const ssize_t n = read(fd, buffer, sizeof(buffer));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      error = n < 0 ? errno : 0;
      break;
    }
    bytes.append(buffer, static_cast<size_t>(n));
    if (bytes.size() > kMaxKeyFileBytes) {
      error = EFBIG;
      break;
    }
  }
  OPENSSL_cleanse(buffer, sizeof(buffer));
  close(fd);
  if (error != 0) return failure(error);
  return bytes;
}

// `status` with the file named in front of its message.
absl::Status NamingFile(const absl::Status& status, const std::filesystem::path& path) {
  return absl::Status(status.code(), absl::StrCat("\"", path.string(), "\": ", status.message()));
}

}  // namespace

std::string KeyIdOf(absl::string_view raw_public_key) {
  return common::Sha256HexPrefix(raw_public_key, 16);
}

PublicKey::PublicKey(std::shared_ptr<evp_pkey_st> key, std::string raw)
    : key_(std::move(key)), raw_(std::move(raw)), key_id_(KeyIdOf(raw_)) {}

absl::StatusOr<PublicKey> PublicKey::FromPem(absl::string_view pem) {
  BioPtr bio(BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size())));
  if (bio == nullptr) return Cleared(absl::InternalError("public key: out of memory"));
  std::shared_ptr<EVP_PKEY> key =
      Own(PEM_read_bio_PUBKEY(bio.get(), nullptr, NoPassphrase, nullptr));
  if (key == nullptr) {
    return Cleared(absl::InvalidArgumentError("public key: not a PEM \"PUBLIC KEY\""));
  }
  if (absl::Status ed25519 = RequireEd25519(key.get(), "public key"); !ed25519.ok()) {
    return ed25519;
  }
  absl::StatusOr<std::string> raw = RawPublicKey(key.get());
  if (!raw.ok()) return raw.status();
  return PublicKey(std::move(key), *std::move(raw));
}

absl::StatusOr<PublicKey> PublicKey::LoadFile(const std::filesystem::path& path) {
  absl::StatusOr<std::string> pem = ReadKeyFile(path, "public key");
  if (!pem.ok()) return pem.status();
  absl::StatusOr<PublicKey> key = FromPem(*pem);
  if (!key.ok()) return NamingFile(key.status(), path);
  return key;
}

std::string PublicKey::Pem() const {
  BioPtr bio(BIO_new(BIO_s_mem()));
  if (bio == nullptr || PEM_write_bio_PUBKEY(bio.get(), key_.get()) != 1) {
    return Cleared(std::string());
  }
  return BioContents(bio.get());
}

bool PublicKey::Verify(absl::string_view message, absl::string_view signature) const {
  if (signature.size() != kSignatureBytes) return false;
  MdCtxPtr ctx(EVP_MD_CTX_new());
  if (ctx == nullptr ||
      EVP_DigestVerifyInit(ctx.get(), nullptr, nullptr, nullptr, key_.get()) != 1) {
    return Cleared(false);
  }
  const int verified = EVP_DigestVerify(
      ctx.get(), reinterpret_cast<const unsigned char*>(signature.data()), signature.size(),
      reinterpret_cast<const unsigned char*>(message.data()), message.size());
  return Cleared(verified == 1);
}

SigningKey::SigningKey(std::shared_ptr<evp_pkey_st> key, PublicKey public_key)
    : key_(std::move(key)), public_key_(std::move(public_key)) {}

absl::StatusOr<SigningKey> SigningKey::FromPrivateKey(std::shared_ptr<evp_pkey_st> key) {
  absl::StatusOr<std::string> raw = RawPublicKey(key.get());
  if (!raw.ok()) return raw.status();
  std::shared_ptr<EVP_PKEY> public_only = Own(EVP_PKEY_new_raw_public_key(
      EVP_PKEY_ED25519, nullptr, reinterpret_cast<const unsigned char*>(raw->data()),
      raw->size()));
  if (public_only == nullptr) {
    return Cleared(absl::InternalError("Ed25519 key: cannot derive the public key"));
  }
  return SigningKey(std::move(key), PublicKey(std::move(public_only), *std::move(raw)));
}

absl::StatusOr<SigningKey> SigningKey::Generate() {
  std::shared_ptr<EVP_PKEY> key = Own(EVP_PKEY_Q_keygen(nullptr, nullptr, "ED25519"));
  if (key == nullptr) return Cleared(absl::InternalError("Ed25519 key generation failed"));
  return FromPrivateKey(std::move(key));
}

absl::StatusOr<SigningKey> SigningKey::FromPem(absl::string_view pem) {
  BioPtr bio(BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size())));
  if (bio == nullptr) return Cleared(absl::InternalError("signing key: out of memory"));
  std::shared_ptr<EVP_PKEY> key =
      Own(PEM_read_bio_PrivateKey(bio.get(), nullptr, NoPassphrase, nullptr));
  if (key == nullptr) {
    return Cleared(absl::InvalidArgumentError(
        "signing key: not an unencrypted PEM \"PRIVATE KEY\""));
  }
  if (absl::Status ed25519 = RequireEd25519(key.get(), "signing key"); !ed25519.ok()) {
    return ed25519;
  }
  return FromPrivateKey(std::move(key));
}

absl::StatusOr<SigningKey> SigningKey::LoadFile(const std::filesystem::path& path) {
  absl::StatusOr<std::string> pem = ReadKeyFile(path, "signing key");
  if (!pem.ok()) return pem.status();
  absl::StatusOr<SigningKey> key = FromPem(*pem);
  OPENSSL_cleanse(pem->data(), pem->size());
  if (!key.ok()) return NamingFile(key.status(), path);
  return key;
}

std::string SigningKey::PrivatePem() const {
  // A secure-memory BIO clears its buffer when freed, so no copy of the key lingers there.
  BioPtr bio(BIO_new(BIO_s_secmem()));
  if (bio == nullptr || PEM_write_bio_PrivateKey(bio.get(), key_.get(), nullptr, nullptr, 0,
                                                 nullptr, nullptr) != 1) {
    return Cleared(std::string());
  }
  return BioContents(bio.get());
}

absl::StatusOr<std::string> SigningKey::Sign(absl::string_view message) const {
  MdCtxPtr ctx(EVP_MD_CTX_new());
  std::string signature(kSignatureBytes, '\0');
  size_t length = signature.size();
  if (ctx == nullptr ||
      EVP_DigestSignInit(ctx.get(), nullptr, nullptr, nullptr, key_.get()) != 1 ||
      EVP_DigestSign(ctx.get(), reinterpret_cast<unsigned char*>(signature.data()), &length,
                     reinterpret_cast<const unsigned char*>(message.data()),
                     message.size()) != 1 ||
      length != kSignatureBytes) {
    return Cleared(absl::InternalError("Ed25519 signing failed"));
  }
  return signature;
}

const PublicKey* KeyRing::Find(absl::string_view key_id) const {
  auto it = keys_.find(key_id);
  return it == keys_.end() ? nullptr : &it->second;
}

std::string KeyRing::KeyIds() const {
  std::string out;
  for (const auto& [id, key] : keys_) absl::StrAppend(&out, out.empty() ? "" : ", ", id);
  return out;
}

}  // namespace credledger::audit
