// Ed25519 keys: generation, signing, PEM files, key ids, and interoperability with the
// openssl command line (docs/audit.md, "Keys").
#include "audit/signing_key.h"

#include <openssl/bio.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <sys/wait.h>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

#include "absl/strings/escaping.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "test/support/status_matchers.h"
#include "test/support/temp_dir.h"

namespace credledger::audit {
namespace signing_key_test {

using ::testing::HasSubstr;
using ::testing::Not;
using ::testing::StartsWith;
using testing::StatusIs;
using testing::TempDir;

std::string Unhex(absl::string_view hex) { return absl::HexStringToBytes(hex); }

std::string Pem(absl::string_view label, absl::string_view der) {
  return absl::StrCat("-----BEGIN ", label, "-----\n", absl::Base64Escape(der),
                      "\n-----END ", label, "-----\n");
}

// RFC 8032 section 7.1, TEST 1 and TEST 2: secret key, public key, message, signature.
struct Rfc8032Vector {
  const char* secret;
  const char* public_key;
  const char* message;
  const char* signature;
};
constexpr Rfc8032Vector kRfc8032[] = {
    {"9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60",
     "d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a", "",
     "e5564300c360ac729086e2cc806e828a84877f1eb8e5d974d873e065224901555fb8821590a33bacc61e39"
     "701cf9b46bd25bf5f0595bbe24655141438e7a100b"},
    {"4ccd089b28ff96da9db6c346ec114e0f5b8a319f35aba624da8cf6ed4fb8a6fb",
     "3d4017c3e843895a92b70aa74d1b7ebc9c982ccf2ec4968cc0cd55f12af4660c", "72",
     "92a009a9f0d4cab8720e820b5f642540a2b27b5416503f8fb3762223ebdb69da085ac1e43e15996e458f36"
     "13d0f11d8c387b2eaeb4302aeeb00d291612bb0c00"},
};

// PKCS#8 and SubjectPublicKeyInfo DER of an Ed25519 key (RFC 8410): fixed prefixes, then
// the 32 raw bytes.
std::string PrivatePemOfSeed(absl::string_view seed) {
  return Pem("PRIVATE KEY", Unhex("302e020100300506032b657004220420") + std::string(seed));
}
std::string PublicPemOfRaw(absl::string_view raw) {
  return Pem("PUBLIC KEY", Unhex("302a300506032b6570032100") + std::string(raw));
}

// SHA-256 through OpenSSL's one-shot digest, as lowercase hex.
std::string Sha256Hex(absl::string_view bytes) {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int length = 0;
  EXPECT_EQ(EVP_Digest(bytes.data(), bytes.size(), digest, &length, EVP_sha256(), nullptr), 1);
  return absl::BytesToHexString(
      absl::string_view(reinterpret_cast<const char*>(digest), length));
}

// Everything written to memory BIO `bio`, which is then freed.
std::string TakeBioText(BIO* bio) {
  char* data = nullptr;
  const long length = BIO_get_mem_data(bio, &data);
  std::string text(data, length > 0 ? static_cast<size_t>(length) : 0);
  BIO_free(bio);
  return text;
}

// A PEM private and public key of another algorithm, made with OpenSSL directly.
struct ForeignPem {
  std::string private_pem;
  std::string public_pem;
};
ForeignPem ForeignKey(EVP_PKEY* key) {
  ForeignPem pem;
  BIO* bio = BIO_new(BIO_s_mem());
  PEM_write_bio_PrivateKey(bio, key, nullptr, nullptr, 0, nullptr, nullptr);
  pem.private_pem = TakeBioText(bio);
  bio = BIO_new(BIO_s_mem());
  PEM_write_bio_PUBKEY(bio, key);
  pem.public_pem = TakeBioText(bio);
  EVP_PKEY_free(key);
  return pem;
}

// `pem` parsed by OpenSSL directly; nullptr when it does not parse. The caller frees it.
EVP_PKEY* ParsePem(const std::string& pem, bool is_private) {
  BIO* bio = BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size()));
  EVP_PKEY* key = is_private ? PEM_read_bio_PrivateKey(bio, nullptr, nullptr, nullptr)
                             : PEM_read_bio_PUBKEY(bio, nullptr, nullptr, nullptr);
  BIO_free(bio);
  return key;
}

void WriteFile(const std::filesystem::path& path, absl::string_view text) {
  std::ofstream out(path, std::ios::binary);
  out << text;
}

std::string ReadFile(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// Runs `openssl <args>` in `dir`; its output goes to openssl.log there.
int Openssl(const TempDir& dir, const std::string& args) {
  const std::string command = absl::StrCat("cd '", dir.path().string(), "' && openssl ", args,
                                           " >openssl.log 2>&1");
  const int status = std::system(command.c_str());
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

TEST(SigningKeyTest, GeneratedKeySignsAndItsPublicKeyVerifies) {
  ASSERT_OK_AND_ASSIGN(SigningKey key, SigningKey::Generate());
  ASSERT_OK_AND_ASSIGN(std::string signature, key.Sign("checkpoint bytes"));
  EXPECT_EQ(signature.size(), 64u);
  EXPECT_EQ(key.public_key().raw().size(), 32u);
  EXPECT_TRUE(key.public_key().Verify("checkpoint bytes", signature));
}

TEST(SigningKeyTest, GeneratedKeysDiffer) {
  ASSERT_OK_AND_ASSIGN(SigningKey a, SigningKey::Generate());
  ASSERT_OK_AND_ASSIGN(SigningKey b, SigningKey::Generate());
  EXPECT_NE(a.public_key().raw(), b.public_key().raw());
  EXPECT_NE(a.key_id(), b.key_id());
}

TEST(SigningKeyTest, SignaturesMatchRfc8032TestVectors) {
  for (const Rfc8032Vector& vector : kRfc8032) {
    SCOPED_TRACE(vector.public_key);
    ASSERT_OK_AND_ASSIGN(SigningKey key,
                         SigningKey::FromPem(PrivatePemOfSeed(Unhex(vector.secret))));
    EXPECT_EQ(key.public_key().raw(), Unhex(vector.public_key));
    ASSERT_OK_AND_ASSIGN(std::string signature, key.Sign(Unhex(vector.message)));
    EXPECT_EQ(absl::BytesToHexString(signature), vector.signature);

    ASSERT_OK_AND_ASSIGN(PublicKey public_key,
                         PublicKey::FromPem(PublicPemOfRaw(Unhex(vector.public_key))));
    EXPECT_TRUE(public_key.Verify(Unhex(vector.message), Unhex(vector.signature)));
  }
}

TEST(SigningKeyTest, TamperedMessageOrSignatureDoesNotVerify) {
  ASSERT_OK_AND_ASSIGN(SigningKey key, SigningKey::Generate());
  const std::string message = "seq 42 chain abc";
  ASSERT_OK_AND_ASSIGN(const std::string signature, key.Sign(message));
  const PublicKey& public_key = key.public_key();
  ASSERT_TRUE(public_key.Verify(message, signature));

  for (size_t i = 0; i < message.size(); ++i) {
    std::string changed = message;
    changed[i] ^= 0x01;
    EXPECT_FALSE(public_key.Verify(changed, signature)) << "message byte " << i;
  }
  for (size_t i = 0; i < signature.size(); ++i) {
    std::string changed = signature;
    changed[i] ^= 0x01;
    EXPECT_FALSE(public_key.Verify(message, changed)) << "signature byte " << i;
  }
  EXPECT_FALSE(public_key.Verify(message, signature.substr(0, 63)));
  EXPECT_FALSE(public_key.Verify(message, signature + "x"));
  EXPECT_FALSE(public_key.Verify(message, ""));
  EXPECT_FALSE(public_key.Verify(message + "x", signature));
}

TEST(SigningKeyTest, AnotherKeysSignatureDoesNotVerify) {
  ASSERT_OK_AND_ASSIGN(SigningKey key, SigningKey::Generate());
  ASSERT_OK_AND_ASSIGN(SigningKey other, SigningKey::Generate());
  ASSERT_OK_AND_ASSIGN(std::string signature, other.Sign("message"));
  EXPECT_FALSE(key.public_key().Verify("message", signature));
}

TEST(SigningKeyTest, PrivatePemRoundTrips) {
  ASSERT_OK_AND_ASSIGN(SigningKey key, SigningKey::Generate());
  const std::string pem = key.PrivatePem();
  EXPECT_THAT(pem, StartsWith("-----BEGIN PRIVATE KEY-----\n"));
  EXPECT_EQ(pem.back(), '\n');
  ASSERT_OK_AND_ASSIGN(SigningKey reloaded, SigningKey::FromPem(pem));
  EXPECT_EQ(reloaded.public_key().raw(), key.public_key().raw());
  EXPECT_EQ(reloaded.key_id(), key.key_id());
  EXPECT_EQ(reloaded.PrivatePem(), pem);
  ASSERT_OK_AND_ASSIGN(std::string signature, reloaded.Sign("message"));
  EXPECT_TRUE(key.public_key().Verify("message", signature));
}

TEST(SigningKeyTest, PrivatePemIsPkcs8OfTheSeed) {
  const Rfc8032Vector& vector = kRfc8032[0];
  const std::string pem = PrivatePemOfSeed(Unhex(vector.secret));
  ASSERT_OK_AND_ASSIGN(SigningKey key, SigningKey::FromPem(pem));
  EXPECT_EQ(key.PrivatePem(), pem);
}

TEST(SigningKeyTest, PublicPemRoundTripsAndIsSubjectPublicKeyInfo) {
  const Rfc8032Vector& vector = kRfc8032[1];
  ASSERT_OK_AND_ASSIGN(SigningKey key,
                       SigningKey::FromPem(PrivatePemOfSeed(Unhex(vector.secret))));
  const std::string pem = key.public_key().Pem();
  EXPECT_EQ(pem, PublicPemOfRaw(Unhex(vector.public_key)));
  ASSERT_OK_AND_ASSIGN(PublicKey reloaded, PublicKey::FromPem(pem));
  EXPECT_EQ(reloaded.raw(), key.public_key().raw());
  EXPECT_EQ(reloaded.key_id(), key.key_id());
  EXPECT_EQ(reloaded.Pem(), pem);
}

TEST(SigningKeyTest, KeyIdIsTheFirst16HexOfSha256OverTheRawPublicKey) {
  ASSERT_OK_AND_ASSIGN(SigningKey key, SigningKey::Generate());
  // The raw key as OpenSSL itself reads it from the public PEM.
  EVP_PKEY* parsed = ParsePem(key.public_key().Pem(), /*is_private=*/false);
  ASSERT_NE(parsed, nullptr);
  unsigned char raw[32];
  size_t raw_length = sizeof(raw);
  ASSERT_EQ(EVP_PKEY_get_raw_public_key(parsed, raw, &raw_length), 1);
  EVP_PKEY_free(parsed);
  const std::string raw_bytes(reinterpret_cast<const char*>(raw), raw_length);

  const std::string expected = Sha256Hex(raw_bytes).substr(0, 16);
  EXPECT_EQ(key.key_id(), expected);
  EXPECT_EQ(key.public_key().key_id(), expected);
  EXPECT_EQ(KeyIdOf(raw_bytes), expected);
}

TEST(SigningKeyTest, KeyIdOfRfc8032PublicKey) {
  // sha256sum of the 32 raw bytes of RFC 8032's TEST 1 public key begins 21fe31dfa154a261.
  ASSERT_OK_AND_ASSIGN(PublicKey key,
                       PublicKey::FromPem(PublicPemOfRaw(Unhex(kRfc8032[0].public_key))));
  EXPECT_EQ(key.key_id(), "21fe31dfa154a261");
  EXPECT_EQ(KeyIdOf(key.raw()), "21fe31dfa154a261");
}

TEST(SigningKeyTest, RsaAndEcKeysAreRejected) {
  const ForeignPem keys[] = {
      ForeignKey(EVP_PKEY_Q_keygen(nullptr, nullptr, "RSA", static_cast<size_t>(1024))),
      ForeignKey(EVP_PKEY_Q_keygen(nullptr, nullptr, "EC", "P-256")),
  };
  for (const ForeignPem& key : keys) {
    ASSERT_THAT(key.private_pem, StartsWith("-----BEGIN PRIVATE KEY-----"));
    absl::StatusOr<SigningKey> signing = SigningKey::FromPem(key.private_pem);
    EXPECT_THAT(signing, StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("Ed25519")));
    absl::StatusOr<PublicKey> verifying = PublicKey::FromPem(key.public_pem);
    EXPECT_THAT(verifying, StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("Ed25519")));
  }
}

TEST(SigningKeyTest, WrongPemKindAndGarbageAreRejected) {
  ASSERT_OK_AND_ASSIGN(SigningKey key, SigningKey::Generate());
  EXPECT_THAT(SigningKey::FromPem(key.public_key().Pem()),
              StatusIs(absl::StatusCode::kInvalidArgument));
  EXPECT_THAT(PublicKey::FromPem(key.PrivatePem()),
              StatusIs(absl::StatusCode::kInvalidArgument));
  EXPECT_THAT(SigningKey::FromPem("not a key"), StatusIs(absl::StatusCode::kInvalidArgument));
  EXPECT_THAT(PublicKey::FromPem(""), StatusIs(absl::StatusCode::kInvalidArgument));
}

TEST(SigningKeyTest, EncryptedPrivateKeyIsRejectedWithoutAPassphrasePrompt) {
  ASSERT_OK_AND_ASSIGN(SigningKey key, SigningKey::Generate());
  EVP_PKEY* parsed = ParsePem(key.PrivatePem(), /*is_private=*/true);
  ASSERT_NE(parsed, nullptr);
  BIO* out = BIO_new(BIO_s_mem());
  char passphrase[] = "correct horse";
  ASSERT_EQ(PEM_write_bio_PKCS8PrivateKey(out, parsed, EVP_aes_256_cbc(), passphrase,
                                          sizeof(passphrase) - 1, nullptr, nullptr),
            1);
  EVP_PKEY_free(parsed);
  const std::string encrypted = TakeBioText(out);
  ASSERT_THAT(encrypted, StartsWith("-----BEGIN ENCRYPTED PRIVATE KEY-----"));
  EXPECT_THAT(SigningKey::FromPem(encrypted), StatusIs(absl::StatusCode::kInvalidArgument));
}

TEST(SigningKeyTest, ErrorMessagesNeverContainKeyMaterial) {
  ASSERT_OK_AND_ASSIGN(SigningKey key, SigningKey::Generate());
  const ForeignPem rsa =
      ForeignKey(EVP_PKEY_Q_keygen(nullptr, nullptr, "RSA", static_cast<size_t>(1024)));
  const struct {
    std::string pem;
    absl::Status status;
  } cases[] = {
      {rsa.private_pem, SigningKey::FromPem(rsa.private_pem).status()},
      {rsa.public_pem, PublicKey::FromPem(rsa.public_pem).status()},
      {key.PrivatePem(), PublicKey::FromPem(key.PrivatePem()).status()},
  };
  for (const auto& rejected : cases) {
    ASSERT_FALSE(rejected.status.ok());
    const std::string message(rejected.status.message());
    EXPECT_THAT(message, Not(HasSubstr("-----")));
    for (absl::string_view line : absl::StrSplit(rejected.pem, '\n', absl::SkipEmpty())) {
      if (absl::StartsWith(line, "-----")) continue;
      EXPECT_THAT(message, Not(HasSubstr(std::string(line.substr(0, 12)))));
    }
  }
}

TEST(SigningKeyTest, LoadFileReadsPemFiles) {
  TempDir dir;
  ASSERT_OK_AND_ASSIGN(SigningKey key, SigningKey::Generate());
  WriteFile(dir.path() / "key.pem", key.PrivatePem());
  WriteFile(dir.path() / "key.pub.pem", key.public_key().Pem());
  ASSERT_OK_AND_ASSIGN(SigningKey loaded, SigningKey::LoadFile(dir.path() / "key.pem"));
  ASSERT_OK_AND_ASSIGN(PublicKey public_key, PublicKey::LoadFile(dir.path() / "key.pub.pem"));
  EXPECT_EQ(loaded.key_id(), key.key_id());
  EXPECT_EQ(public_key.raw(), key.public_key().raw());
}

TEST(SigningKeyTest, LoadFileOfAMissingFileIsNotFoundAndNamesTheFile) {
  TempDir dir;
  const std::string missing = (dir.path() / "absent.pem").string();
  EXPECT_THAT(SigningKey::LoadFile(missing),
              StatusIs(absl::StatusCode::kNotFound, HasSubstr(missing)));
  EXPECT_THAT(PublicKey::LoadFile(missing),
              StatusIs(absl::StatusCode::kNotFound, HasSubstr(missing)));
}

TEST(SigningKeyTest, LoadFileOfAFolderIsFailedPrecondition) {
  TempDir dir;
  EXPECT_THAT(SigningKey::LoadFile(dir.path()),
              StatusIs(absl::StatusCode::kFailedPrecondition, HasSubstr(dir.path().string())));
  EXPECT_THAT(PublicKey::LoadFile(dir.path()),
              StatusIs(absl::StatusCode::kFailedPrecondition, HasSubstr(dir.path().string())));
}

TEST(SigningKeyTest, LoadFileOfABadKeyNamesTheFile) {
  TempDir dir;
  const std::filesystem::path path = dir.path() / "bad.pem";
  WriteFile(path, "not a key\n");
  EXPECT_THAT(SigningKey::LoadFile(path),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr(path.string())));
  EXPECT_THAT(PublicKey::LoadFile(path),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr(path.string())));
}

TEST(SigningKeyTest, KeysOfTheOpensslCommandLineLoadAndVerifyOurSignatures) {
  TempDir dir;
  ASSERT_EQ(Openssl(dir, "genpkey -algorithm ed25519 -out key.pem"), 0)
      << ReadFile(dir.path() / "openssl.log");
  ASSERT_EQ(Openssl(dir, "pkey -in key.pem -pubout -out key.pub.pem"), 0)
      << ReadFile(dir.path() / "openssl.log");
  ASSERT_OK_AND_ASSIGN(SigningKey key, SigningKey::LoadFile(dir.path() / "key.pem"));
  ASSERT_OK_AND_ASSIGN(PublicKey public_key, PublicKey::LoadFile(dir.path() / "key.pub.pem"));
  EXPECT_EQ(public_key.key_id(), key.key_id());
  EXPECT_EQ(public_key.Pem(), ReadFile(dir.path() / "key.pub.pem"));
  EXPECT_EQ(key.PrivatePem(), ReadFile(dir.path() / "key.pem"));

  const std::string message = "signed by credledger";
  ASSERT_OK_AND_ASSIGN(std::string signature, key.Sign(message));
  WriteFile(dir.path() / "message", message);
  WriteFile(dir.path() / "signature", signature);
  EXPECT_EQ(Openssl(dir, "pkeyutl -verify -pubin -inkey key.pub.pem -rawin -in message "
                         "-sigfile signature"),
            0)
      << ReadFile(dir.path() / "openssl.log");

  signature[0] ^= 0x01;
  WriteFile(dir.path() / "signature", signature);
  EXPECT_NE(Openssl(dir, "pkeyutl -verify -pubin -inkey key.pub.pem -rawin -in message "
                         "-sigfile signature"),
            0);
}

TEST(SigningKeyTest, OurKeysSignForTheOpensslCommandLineAndBack) {
  TempDir dir;
  ASSERT_OK_AND_ASSIGN(SigningKey key, SigningKey::Generate());
  WriteFile(dir.path() / "key.pem", key.PrivatePem());
  WriteFile(dir.path() / "key.pub.pem", key.public_key().Pem());
  const std::string message = "signed by openssl";
  WriteFile(dir.path() / "message", message);

  ASSERT_EQ(Openssl(dir, "pkeyutl -sign -inkey key.pem -rawin -in message -out signature"), 0)
      << ReadFile(dir.path() / "openssl.log");
  const std::string signature = ReadFile(dir.path() / "signature");
  EXPECT_TRUE(key.public_key().Verify(message, signature));
  EXPECT_FALSE(key.public_key().Verify("signed by someone else", signature));
  // Ed25519 is deterministic: the command line and our code sign the same bytes alike.
  ASSERT_OK_AND_ASSIGN(std::string ours, key.Sign(message));
  EXPECT_EQ(ours, signature);

  ASSERT_EQ(Openssl(dir, "pkey -in key.pem -pubout -out derived.pub.pem"), 0)
      << ReadFile(dir.path() / "openssl.log");
  EXPECT_EQ(ReadFile(dir.path() / "derived.pub.pem"), key.public_key().Pem());
}

}  // namespace signing_key_test
}  // namespace credledger::audit
