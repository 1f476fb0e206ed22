// Tests of mirror names, source hashes and source fingerprints (docs/mirrors.md, "The mirror",
// "Source hash" and "Source fingerprint").
// The expected values were computed outside credledger (Python's hashlib over the byte layouts
// written out below), not by running this code.
//
// Golden vectors. LP(x) = 8-byte big-endian length of x, then x; pairs in key byte order.
//   data {}                          -> input (nothing)
//     e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855
//   data {"a": "1"}                  -> LP("a") LP("1")
//     = 0000000000000001 61 0000000000000001 31
//     0e9c3156ac694b081269e7631db910df955a4df29e20086134d7aa57f4e54795
//   data {"b": "2", "a": "1"}        -> LP("a") LP("1") LP("b") LP("2")
//     = 0000000000000001 61 0000000000000001 31 0000000000000001 62 0000000000000001 32
//     63662dceceaac3caee9e43ac15aa0c4c567225916cd9af28900e1dd71438b73e
//   data {"blob": "a\0b\0"}          -> LP("blob") LP(61 00 62 00)
//     = 0000000000000004 626c6f62 0000000000000004 61006200
//     e4584a385dee72f87355b1c59911722f18ce739b8576c33fb159f38f699eb10b
//   data {"z": "1", "\xc3\xa9": "2", "B": "3"}  -> keys in byte order 42 < 7a < c3a9:
//     = 0000000000000001 42 0000000000000001 33 0000000000000001 7a 0000000000000001 31
//       0000000000000002 c3a9 0000000000000001 32
//     2575b6a77812fb464f5bfa70dbf3d7eb89cd8a74abb58a9c681606c1c3d84e02
//   fingerprint key 000102...1f (32 bytes):
//     key id = first 16 hex of SHA-256("credledger-fingerprint-key-id-v1" 00 000102...1f)
//            = ee30c76ed9b7b33b
//     data {}         -> HMAC-SHA-256(key, nothing)
//       d38b42096d80f45f826b44a9d5607de72496a415d3f4a1a8c88e3bb9da8dc1cb
//     data {"a": "1"} -> HMAC-SHA-256(key, LP("a") LP("1"))
//       b665cf4207c31fde1d307de66078a6de4282d99d37fa1186fb5c4e2f1da6eaa8
//   mirror name of "a" x 241         -> "captf-creds-" + "a" x 241 (253 characters)
//   mirror name of "a" x 242         -> "captf-creds-" + first 16 hex of SHA-256("a" x 242)
//     = captf-creds-8fded59c427b2e68
#include "projections/mirror_naming.h"

#include <string>
#include <utility>
#include <vector>

#include "common/fingerprint_key.h"
#include "credledger/v1/events.pb.h"
#include "gtest/gtest.h"

namespace credledger::projections {
namespace mirror_naming_test {

using Data = std::vector<std::pair<std::string, std::string>>;

common::FingerprintKey GoldenKey() {
  return *common::FingerprintKey::FromText(
      "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f\n");
}

TEST(SourceHashTest, EmptyDataHashesToTheSha256OfNothing) {
  EXPECT_EQ(SourceHash({}), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
}

TEST(SourceHashTest, OneKeyIsLengthPrefixedKeyThenValue) {
  EXPECT_EQ(SourceHash({{"a", "1"}}),
            "0e9c3156ac694b081269e7631db910df955a4df29e20086134d7aa57f4e54795");
}

TEST(SourceHashTest, KeysGivenOutOfOrderAreHashedInByteOrder) {
  const std::string expected = "63662dceceaac3caee9e43ac15aa0c4c567225916cd9af28900e1dd71438b73e";
  EXPECT_EQ(SourceHash({{"b", "2"}, {"a", "1"}}), expected);
  EXPECT_EQ(SourceHash({{"a", "1"}, {"b", "2"}}), expected);
}

TEST(SourceHashTest, ByteOrderPutsUppercaseBeforeLowercaseAndNonAsciiLast) {
  // A signed-char or locale-aware comparison would put "\xc3\xa9" first or "B" after "z".
  EXPECT_EQ(SourceHash({{"z", "1"}, {"\xc3\xa9", "2"}, {"B", "3"}}),
            "2575b6a77812fb464f5bfa70dbf3d7eb89cd8a74abb58a9c681606c1c3d84e02");
}

TEST(SourceHashTest, ValuesAreRawBytesIncludingNul) {
  EXPECT_EQ(SourceHash({{"blob", std::string("a\0b\0", 4)}}),
            "e4584a385dee72f87355b1c59911722f18ce739b8576c33fb159f38f699eb10b");
}

TEST(SourceHashTest, LengthPrefixesKeepKeyAndValueBoundariesApart) {
  // Concatenated without lengths, both would be "abc".
  EXPECT_NE(SourceHash({{"ab", "c"}}), SourceHash({{"a", "bc"}}));
  EXPECT_EQ(SourceHash({{"ab", "c"}}),
            "601d5476e2ccfe2c87a2bba7a322659734a05749d5b5aa781f513e4912db0d5f");
}

TEST(MirrorSecretNameTest, IsThePrefixAndTheIdentityName) {
  EXPECT_EQ(MirrorSecretName("aws"), "captf-creds-aws");
}

TEST(MirrorSecretNameTest, ANameOfExactly253CharactersKeepsThePlainForm) {
  const std::string identity(241, 'a');
  const std::string name = MirrorSecretName(identity);
  EXPECT_EQ(name.size(), 253u);
  EXPECT_EQ(name, "captf-creds-" + identity);
}

TEST(MirrorSecretNameTest, ANameThatWouldPass253CharactersIsHashed) {
  EXPECT_EQ(MirrorSecretName(std::string(242, 'a')), "captf-creds-8fded59c427b2e68");
}

TEST(SourceFingerprintTest, IsTheKeysHmacOverTheBytesTheHashIsOver) {
  EXPECT_EQ(SourceFingerprint(GoldenKey(), {}),
            "hmac-sha256:ee30c76ed9b7b33b:"
            "d38b42096d80f45f826b44a9d5607de72496a415d3f4a1a8c88e3bb9da8dc1cb");
  EXPECT_EQ(SourceFingerprint(GoldenKey(), {{"a", "1"}}),
            "hmac-sha256:ee30c76ed9b7b33b:"
            "b665cf4207c31fde1d307de66078a6de4282d99d37fa1186fb5c4e2f1da6eaa8");
  EXPECT_EQ(SourceFingerprint(GoldenKey(), {{"b", "2"}, {"a", "1"}}),
            SourceFingerprint(GoldenKey(), {{"a", "1"}, {"b", "2"}}));
}

TEST(SourceDigestOfTest, TakesTheFingerprintElseThePlainHashOfAVersion1Record) {
  v1::MirrorWritten written;
  EXPECT_EQ(SourceDigestOf(written), "");
  written.set_source_hash(std::string(64, 'a'));
  EXPECT_EQ(SourceDigestOf(written), std::string(64, 'a'));
  written.clear_source_hash();
  written.set_source_fingerprint("hmac-sha256:ee30c76ed9b7b33b:" + std::string(64, 'a'));
  EXPECT_EQ(SourceDigestOf(written), written.source_fingerprint());
}

TEST(ShortSourceDigestTest, ShowsTwelveHexCharactersOfTheMacOrOfAPlainHashOrNone) {
  EXPECT_EQ(ShortSourceDigest("e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"),
            "e3b0c44298fc");
  EXPECT_EQ(ShortSourceDigest("hmac-sha256:ee30c76ed9b7b33b:"
                              "b665cf4207c31fde1d307de66078a6de4282d99d37fa1186fb5c4e2f1da6eaa8"),
            "b665cf4207c3");
  EXPECT_EQ(ShortSourceDigest(""), "none");
}

TEST(SourceDigestWordsTest, NamesAFingerprintsKeyAndCallsAPlainHashAHash) {
  EXPECT_EQ(SourceDigestWords("hmac-sha256:ee30c76ed9b7b33b:"
                              "b665cf4207c31fde1d307de66078a6de4282d99d37fa1186fb5c4e2f1da6eaa8"),
            "fingerprint b665cf4207c3 (key ee30c76ed9b7b33b)");
  EXPECT_EQ(SourceDigestWords(std::string(64, 'e')), "hash eeeeeeeeeeee");
  EXPECT_EQ(SourceDigestWords(""), "none");
}

}  // namespace mirror_naming_test
}  // namespace credledger::projections
