// Unit tests of the ES256 JWT signer and the base64 codecs it relies on.
#include "absl/strings/str_split.h"
#include "gtest/gtest.h"
#include "test/kubeapi/encoding.h"
#include "test/kubeapi/jwt.h"

namespace credledger::kubeapi {
namespace jwt_test {

TEST(Base64Test, StandardAndUrlAlphabetsRoundTrip) {
  const std::string bytes("\xfb\xff\x00hello", 8);
  EXPECT_EQ(Base64Encode("hunter2"), "aHVudGVyMg==");
  EXPECT_EQ(Base64Decode("aHVudGVyMg=="), "hunter2");
  EXPECT_EQ(Base64Decode(Base64Encode(bytes)), bytes);
  EXPECT_EQ(Base64UrlEncode("\xfb\xff"), "-_8");
  EXPECT_EQ(Base64UrlDecode(Base64UrlEncode(bytes)), bytes);
}

TEST(Base64Test, StrictDecodingRejectsMalformedInput) {
  for (const char* bad : {"abc", "ab=c", "a===", "not base64!", "aGk=\n"}) {
    EXPECT_FALSE(Base64Decode(bad).has_value()) << bad;
  }
  EXPECT_FALSE(Base64UrlDecode("ab=").has_value());
  EXPECT_FALSE(Base64UrlDecode("a").has_value());
}

TEST(JwtSignerTest, SignedTokenVerifiesAndCarriesHeaderAndClaims) {
  absl::StatusOr<JwtSigner> signer = JwtSigner::Generate();
  ASSERT_TRUE(signer.ok()) << signer.status();
  absl::StatusOr<std::string> token = signer->Sign({{"sub", "x"}, {"exp", 10}});
  ASSERT_TRUE(token.ok());
  std::vector<std::string> parts = absl::StrSplit(*token, '.');
  ASSERT_EQ(parts.size(), 3u);
  nlohmann::json header = nlohmann::json::parse(*Base64UrlDecode(parts[0]));
  EXPECT_EQ(header["alg"], "ES256");
  EXPECT_EQ(header["kid"], signer->key_id());
  EXPECT_EQ(Base64UrlDecode(parts[2])->size(), 64u) << "JWS ECDSA signatures are r||s";
  absl::StatusOr<nlohmann::json> claims = signer->Verify(*token);
  ASSERT_TRUE(claims.ok()) << claims.status();
  EXPECT_EQ((*claims)["sub"], "x");
}

TEST(JwtSignerTest, TokensOfAnotherKeyOrAlteredClaimsAreRejected) {
  absl::StatusOr<JwtSigner> a = JwtSigner::Generate();
  absl::StatusOr<JwtSigner> b = JwtSigner::Generate();
  ASSERT_TRUE(a.ok() && b.ok());
  std::string token = *a->Sign({{"sub", "x"}});
  EXPECT_EQ(b->Verify(token).status().code(), absl::StatusCode::kUnauthenticated);
  std::vector<std::string> parts = absl::StrSplit(token, '.');
  std::string altered = parts[0] + "." + Base64UrlEncode("{\"sub\":\"y\"}") + "." + parts[2];
  EXPECT_EQ(a->Verify(altered).status().code(), absl::StatusCode::kUnauthenticated);
  EXPECT_EQ(a->Verify("a.b").status().code(), absl::StatusCode::kUnauthenticated);
}

}  // namespace jwt_test
}  // namespace credledger::kubeapi
