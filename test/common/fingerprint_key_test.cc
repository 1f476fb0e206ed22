// The fingerprint key (common/fingerprint_key.h): its file format, its key id, the
// fingerprints it makes, and a new key file's mode and write rules.
#include "common/fingerprint_key.h"

#include <filesystem>
#include <string>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "common/hmac_sha256.h"
#include "common/sha256.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "test/support/file_mode.h"
#include "test/support/file_text.h"
#include "test/support/status_matchers.h"
#include "test/support/temp_dir.h"

namespace credledger::common {
namespace fingerprint_key_test {

using ::credledger::testing::ModeOf;
using ::credledger::testing::ReadText;
using ::credledger::testing::ScopedUmask;
using ::credledger::testing::StatusIs;
using ::credledger::testing::WriteText;
using ::testing::HasSubstr;
using ::testing::Not;

constexpr char kKeyHex[] = "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f";

std::string RawKey() {
  std::string raw;
  EXPECT_TRUE(HexDecode(kKeyHex, &raw));
  return raw;
}

TEST(FingerprintKeyTest, AFingerprintIsTheHmacOfTheBytesNamedByTheKeyId) {
  ASSERT_OK_AND_ASSIGN(FingerprintKey key, FingerprintKey::FromText(absl::StrCat(kKeyHex, "\n")));
  const std::string key_id = Sha256HexPrefix(
      absl::StrCat("credledger-fingerprint-key-id-v1", std::string(1, '\0'), RawKey()), 16);
  EXPECT_EQ(key.key_id(), key_id);
  EXPECT_EQ(key.Fingerprint("data"),
            absl::StrCat("hmac-sha256:", key_id, ":", HexEncode(HmacSha256(RawKey(), "data"))));
  EXPECT_OK(ValidateFingerprint("f", key.Fingerprint("")));
  // Neither the key nor the plain hash of the bytes is in it.
  EXPECT_THAT(key.Fingerprint("data"), Not(HasSubstr(HexEncode(Sha256Of("data")))));
  EXPECT_THAT(key.Fingerprint("data"), Not(HasSubstr(kKeyHex)));
}

TEST(FingerprintKeyTest, GeneratedKeysAreDistinctAndSurviveTheirText) {
  ASSERT_OK_AND_ASSIGN(FingerprintKey a, FingerprintKey::Generate());
  ASSERT_OK_AND_ASSIGN(FingerprintKey b, FingerprintKey::Generate());
  EXPECT_NE(a.key_id(), b.key_id());
  EXPECT_NE(a.Fingerprint("x"), b.Fingerprint("x"));
  EXPECT_EQ(a.Text().size(), 65u);
  ASSERT_OK_AND_ASSIGN(FingerprintKey again, FingerprintKey::FromText(a.Text()));
  EXPECT_EQ(again.key_id(), a.key_id());
  EXPECT_EQ(again.Fingerprint("x"), a.Fingerprint("x"));
}

TEST(FingerprintKeyTest, TextAcceptsUppercaseAndAMissingNewlineAndRefusesAnythingElse) {
  for (const std::string& text : {std::string(kKeyHex), absl::StrCat(kKeyHex, "\r\n"),
                                  absl::AsciiStrToUpper(absl::StrCat(kKeyHex, "\n"))}) {
    ASSERT_OK_AND_ASSIGN(FingerprintKey key, FingerprintKey::FromText(text));
    EXPECT_EQ(key.Text(), absl::StrCat(kKeyHex, "\n"));
  }
  const std::string hex = kKeyHex;
  for (const std::string& text :
       {std::string(), hex.substr(2), absl::StrCat(hex, "00"), absl::StrCat(" ", hex),
        absl::StrCat(hex, "\n\n"), absl::StrCat(hex.substr(1), "g"),
        absl::StrCat(hex.substr(0, 32), "\n", hex.substr(32))}) {
    absl::StatusOr<FingerprintKey> key = FingerprintKey::FromText(text);
    EXPECT_THAT(key, StatusIs(absl::StatusCode::kInvalidArgument,
                              HasSubstr("expected 64 hex digits (32 bytes) on one line")))
        << text;
    if (!text.empty()) {
      EXPECT_THAT(key.status().message(), Not(HasSubstr(hex.substr(8, 16))));
    }
  }
}

TEST(FingerprintKeyTest, ANewKeyFileIsOwnerOnlyAndNeverReplacesAFile) {
  ScopedUmask permissive(0);
  testing::TempDir dir;
  const std::filesystem::path path = dir.path() / "fingerprint-key";
  ASSERT_OK_AND_ASSIGN(FingerprintKey key, WriteNewFingerprintKey(path, "--fingerprint-key"));
  EXPECT_EQ(ModeOf(path), mode_t{0600});
  EXPECT_EQ(ReadText(path), key.Text());
  ASSERT_OK_AND_ASSIGN(FingerprintKey loaded, FingerprintKey::LoadFile(path));
  EXPECT_EQ(loaded.key_id(), key.key_id());

  EXPECT_THAT(WriteNewFingerprintKey(path, "--fingerprint-key"),
              StatusIs(absl::StatusCode::kAlreadyExists, HasSubstr("--fingerprint-key")));
  EXPECT_EQ(ReadText(path), key.Text());
  EXPECT_EQ(std::distance(std::filesystem::directory_iterator(dir.path()),
                          std::filesystem::directory_iterator()),
            1);
}

TEST(FingerprintKeyTest, LoadingNamesTheFileAndNeverItsContent) {
  testing::TempDir dir;
  const std::filesystem::path missing = dir.path() / "missing";
  EXPECT_THAT(FingerprintKey::LoadFile(missing),
              StatusIs(absl::StatusCode::kNotFound, HasSubstr(missing.string())));
  const std::filesystem::path bad = dir.path() / "bad";
  WriteText(bad, "0123456789abcdef-not-a-key\n");
  absl::StatusOr<FingerprintKey> key = FingerprintKey::LoadFile(bad);
  EXPECT_THAT(key, StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr(bad.string())));
  EXPECT_THAT(key.status().message(), Not(HasSubstr("0123456789abcdef")));
  const std::filesystem::path large = dir.path() / "large";
  WriteText(large, std::string(4096, 'a'));
  EXPECT_THAT(FingerprintKey::LoadFile(large),
              StatusIs(absl::StatusCode::kFailedPrecondition, HasSubstr(large.string())));
}

TEST(FingerprintShapeTest, OnlyTheSchemeAKeyIdAndAMacInLowercaseHexPass) {
  const std::string id(16, 'a');
  const std::string mac(64, '0');
  ASSERT_TRUE(ParseFingerprint(absl::StrCat("hmac-sha256:", id, ":", mac)).has_value());
  EXPECT_EQ(ParseFingerprint(absl::StrCat("hmac-sha256:", id, ":", mac))->key_id, id);
  EXPECT_EQ(ParseFingerprint(absl::StrCat("hmac-sha256:", id, ":", mac))->mac, mac);
  for (const std::string& value : {std::string(), mac, absl::StrCat("hmac-sha1:", id, ":", mac),
                                   absl::StrCat("hmac-sha256:", id.substr(1), ":", mac),
                                   absl::StrCat("hmac-sha256:", id, ":", mac.substr(1)),
                                   absl::StrCat("hmac-sha256:", id, ":", mac, "0"),
                                   absl::StrCat("hmac-sha256:", std::string(16, 'A'), ":", mac),
                                   absl::StrCat("hmac-sha256:", id, ":", std::string(64, 'F')),
                                   absl::StrCat("hmac-sha256:", id, mac)}) {
    EXPECT_FALSE(ParseFingerprint(value).has_value()) << value;
    EXPECT_THAT(ValidateFingerprint("outcomes[0].source_fingerprint", value),
                StatusIs(absl::StatusCode::kInvalidArgument,
                         HasSubstr("outcomes[0].source_fingerprint: not a fingerprint")))
        << value;
  }
}

}  // namespace fingerprint_key_test
}  // namespace credledger::common
