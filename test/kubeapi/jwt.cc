#include "test/kubeapi/jwt.h"

#include <openssl/bn.h>
#include <openssl/ec.h>
#include <openssl/err.h>

#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "common/sha256.h"
#include "common/status_macros.h"
#include "test/kubeapi/encoding.h"
#include "test/kubeapi/json_util.h"

namespace credledger::kubeapi {
namespace {

constexpr size_t kCoordinateBytes = 32;  // P-256

struct MdCtxDeleter {
  void operator()(EVP_MD_CTX* c) const { EVP_MD_CTX_free(c); }
};
using MdCtxPtr = std::unique_ptr<EVP_MD_CTX, MdCtxDeleter>;

struct EcdsaSigDeleter {
  void operator()(ECDSA_SIG* s) const { ECDSA_SIG_free(s); }
};
using EcdsaSigPtr = std::unique_ptr<ECDSA_SIG, EcdsaSigDeleter>;

// DER ECDSA-Sig-Value -> JWS r||s (two 32-byte big-endian integers).
absl::StatusOr<std::string> DerToJose(const std::string& der) {
  const unsigned char* p = reinterpret_cast<const unsigned char*>(der.data());
  EcdsaSigPtr sig(d2i_ECDSA_SIG(nullptr, &p, static_cast<long>(der.size())));
  if (!sig) return OpenSslError("decoding ECDSA signature");
  const BIGNUM* r = nullptr;
  const BIGNUM* s = nullptr;
  ECDSA_SIG_get0(sig.get(), &r, &s);
  std::string out(2 * kCoordinateBytes, '\0');
  unsigned char* o = reinterpret_cast<unsigned char*>(out.data());
  if (BN_bn2binpad(r, o, kCoordinateBytes) < 0 ||
      BN_bn2binpad(s, o + kCoordinateBytes, kCoordinateBytes) < 0) {
    return OpenSslError("encoding ECDSA signature");
  }
  return out;
}

// JWS r||s -> DER; nullopt-like empty string when the size is wrong.
std::string JoseToDer(const std::string& jose) {
  if (jose.size() != 2 * kCoordinateBytes) return "";
  const unsigned char* in = reinterpret_cast<const unsigned char*>(jose.data());
  BIGNUM* r = BN_bin2bn(in, kCoordinateBytes, nullptr);
  BIGNUM* s = BN_bin2bn(in + kCoordinateBytes, kCoordinateBytes, nullptr);
  EcdsaSigPtr sig(ECDSA_SIG_new());
  if (r == nullptr || s == nullptr || !sig || ECDSA_SIG_set0(sig.get(), r, s) != 1) {
    BN_free(r);
    BN_free(s);
    return "";
  }
  unsigned char* der = nullptr;
  int len = i2d_ECDSA_SIG(sig.get(), &der);
  if (len <= 0) return "";
  std::string out(reinterpret_cast<char*>(der), static_cast<size_t>(len));
  OPENSSL_free(der);
  return out;
}

absl::Status Unauthenticated(absl::string_view why) {
  return absl::UnauthenticatedError(absl::StrCat("jwt: ", why));
}

}  // namespace

absl::StatusOr<JwtSigner> JwtSigner::Generate() {
  JwtSigner signer;
  ASSIGN_OR_RETURN(signer.key_, GenerateP256Key());
  ASSIGN_OR_RETURN(std::string der, PublicKeyDer(signer.key_.get()));
  signer.key_id_ = Base64UrlEncode(common::AsBytes(common::Sha256Of(der)));
  ASSIGN_OR_RETURN(signer.public_key_pem_, PublicKeyPem(signer.key_.get()));
  return signer;
}

absl::StatusOr<std::string> JwtSigner::Sign(const nlohmann::json& claims) const {
  if (!claims.is_object()) return absl::InvalidArgumentError("jwt: claims must be an object");
  nlohmann::json header = {{"alg", "ES256"}, {"kid", key_id_}, {"typ", "JWT"}};
  std::string signing_input =
      absl::StrCat(Base64UrlEncode(header.dump()), ".", Base64UrlEncode(claims.dump()));
  MdCtxPtr ctx(EVP_MD_CTX_new());
  size_t sig_len = 0;
  if (!ctx ||
      EVP_DigestSignInit_ex(ctx.get(), nullptr, "SHA256", nullptr, nullptr, key_.get(),
                            nullptr) != 1 ||
      EVP_DigestSign(ctx.get(), nullptr, &sig_len,
                     reinterpret_cast<const unsigned char*>(signing_input.data()),
                     signing_input.size()) != 1) {
    return OpenSslError("ES256 sign init");
  }
  std::string der(sig_len, '\0');
  if (EVP_DigestSign(ctx.get(), reinterpret_cast<unsigned char*>(der.data()), &sig_len,
                     reinterpret_cast<const unsigned char*>(signing_input.data()),
                     signing_input.size()) != 1) {
    return OpenSslError("ES256 sign");
  }
  der.resize(sig_len);
  ASSIGN_OR_RETURN(std::string jose, DerToJose(der));
  return absl::StrCat(signing_input, ".", Base64UrlEncode(jose));
}

absl::StatusOr<nlohmann::json> JwtSigner::Verify(absl::string_view token) const {
  std::vector<absl::string_view> parts = absl::StrSplit(token, '.');
  if (parts.size() != 3) return Unauthenticated("token is not a compact JWS");
  std::optional<std::string> header_text = Base64UrlDecode(parts[0]);
  std::optional<std::string> claims_text = Base64UrlDecode(parts[1]);
  std::optional<std::string> signature = Base64UrlDecode(parts[2]);
  if (!header_text || !claims_text || !signature) return Unauthenticated("bad base64url");
  nlohmann::json header = nlohmann::json::parse(*header_text, nullptr, false);
  nlohmann::json claims = nlohmann::json::parse(*claims_text, nullptr, false);
  if (!header.is_object() || !claims.is_object()) return Unauthenticated("bad JSON segment");
  if (StringField(header, "alg") != "ES256") return Unauthenticated("unexpected alg");
  if (StringField(header, "kid") != key_id_) return Unauthenticated("unknown kid");
  std::string der = JoseToDer(*signature);
  if (der.empty()) return Unauthenticated("bad signature encoding");
  std::string signing_input = absl::StrCat(parts[0], ".", parts[1]);
  MdCtxPtr ctx(EVP_MD_CTX_new());
  if (!ctx || EVP_DigestVerifyInit_ex(ctx.get(), nullptr, "SHA256", nullptr, nullptr,
                                      key_.get(), nullptr) != 1) {
    return OpenSslError("ES256 verify init");
  }
  int ok = EVP_DigestVerify(ctx.get(), reinterpret_cast<const unsigned char*>(der.data()),
                            der.size(),
                            reinterpret_cast<const unsigned char*>(signing_input.data()),
                            signing_input.size());
  ERR_clear_error();
  if (ok != 1) return Unauthenticated("signature does not verify");
  return claims;
}

}  // namespace credledger::kubeapi
