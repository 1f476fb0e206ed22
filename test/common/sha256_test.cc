#include "common/sha256.h"

#include <string>

#include "gtest/gtest.h"

namespace credledger::common {
namespace sha256_test {

// Known-answer vectors from FIPS 180-2.
TEST(Sha256Test, EmptyInputMatchesKnownAnswer) {
  EXPECT_EQ(HexEncode(Sha256Of("")),
            "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
}

TEST(Sha256Test, AbcMatchesKnownAnswer) {
  EXPECT_EQ(HexEncode(Sha256Of("abc")),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
}

TEST(Sha256Test, IncrementalUpdatesEqualOneShotAndHasherIsReusable) {
  Sha256 h;
  h.Update("a");
  h.Update("bc");
  EXPECT_EQ(h.Finish(), Sha256Of("abc"));
  h.Update("");
  EXPECT_EQ(h.Finish(), Sha256Of(""));
}

TEST(Sha256Test, HexPrefixTakesLeadingCharacters) {
  EXPECT_EQ(Sha256HexPrefix("abc", 10), "ba7816bf8f");
}

TEST(HexTest, RoundTripsAllByteValues) {
  std::string bytes;
  for (int i = 0; i < 256; ++i) bytes.push_back(static_cast<char>(i));
  std::string hex = HexEncode(bytes);
  ASSERT_EQ(hex.size(), 512u);
  EXPECT_EQ(hex.substr(0, 6), "000102");
  std::string back;
  ASSERT_TRUE(HexDecode(hex, &back));
  EXPECT_EQ(back, bytes);
}

TEST(HexTest, DecodeRejectsOddLengthAndNonHex) {
  std::string out;
  EXPECT_FALSE(HexDecode("abc", &out));
  EXPECT_FALSE(HexDecode("zz", &out));
  EXPECT_TRUE(HexDecode("ABff", &out));
  EXPECT_EQ(out, std::string("\xab\xff"));
}

}  // namespace sha256_test
}  // namespace credledger::common
