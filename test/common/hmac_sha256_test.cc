// HMAC-SHA-256 (common/hmac_sha256.h) against the known answers of RFC 4231.
#include "common/hmac_sha256.h"

#include <string>

#include "gtest/gtest.h"

namespace credledger::common {
namespace hmac_sha256_test {

TEST(HmacSha256Test, MatchesRfc4231TestCase1) {
  EXPECT_EQ(HexEncode(HmacSha256(std::string(20, '\x0b'), "Hi There")),
            "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7");
}

TEST(HmacSha256Test, MatchesRfc4231TestCase2WithAShortKey) {
  EXPECT_EQ(HexEncode(HmacSha256("Jefe", "what do ya want for nothing?")),
            "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843");
}

TEST(HmacSha256Test, MatchesRfc4231TestCase6WithAKeyLongerThanABlock) {
  EXPECT_EQ(HexEncode(HmacSha256(std::string(131, '\xaa'),
                                 "Test Using Larger Than Block-Size Key - Hash Key First")),
            "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54");
}

TEST(HmacSha256Test, AnotherKeyGivesAnotherMacThanThePlainHash) {
  EXPECT_NE(HmacSha256("key-1", "data"), HmacSha256("key-2", "data"));
  EXPECT_NE(HmacSha256("key-1", "data"), Sha256Of("data"));
}

}  // namespace hmac_sha256_test
}  // namespace credledger::common
