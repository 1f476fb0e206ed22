#include "common/dns_label.h"

#include <string>

#include "absl/strings/str_cat.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "test/support/status_matchers.h"

namespace credledger::common {
namespace dns_label_test {

using ::credledger::testing::StatusIs;
using ::testing::HasSubstr;

TEST(ValidateDnsLabelTest, AcceptsLabelsUpToSixtyThreeCharacters) {
  EXPECT_OK(ValidateDnsLabel("name", "edge-1"));
  EXPECT_OK(ValidateDnsLabel("name", std::string(63, 'a')));
  EXPECT_OK(ValidateDnsLabel("name", "0"));
}

TEST(ValidateDnsLabelTest, RejectsWhatKubernetesRejectsNamingTheField) {
  EXPECT_THAT(ValidateDnsLabel("name", ""),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("name: required")));
  EXPECT_THAT(ValidateDnsLabel("name", std::string(64, 'a')),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("at most 63")));
  for (const char* bad : {"Edge", "-edge", "edge-", "ed_ge", "ed.ge", "ed ge"}) {
    EXPECT_THAT(ValidateDnsLabel("namespace", bad),
                StatusIs(absl::StatusCode::kInvalidArgument,
                         HasSubstr("namespace: \"" + std::string(bad) + "\" is not a DNS-1123")))
        << bad;
  }
}

// Regression: a 64-character name was echoed whole and followed by "...", as if it had
// been cut.
TEST(ValidateDnsLabelTest, ATooLongNameIsShownByItsFirstTwentyBytesAndItsLength) {
  const std::string name = "edge-" + std::string(59, 'x');
  ASSERT_EQ(name.size(), 64u);
  EXPECT_THAT(ValidateDnsLabel("name", name),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       "name: \"edge-xxxxxxxxxxxxxxx...\" (64 bytes) is too long; a DNS-1123 "
                       "label has at most 63 bytes"));
  EXPECT_THAT(ValidateDnsSubdomain("spec.name", std::string(254, 'b')),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       "spec.name: \"bbbbbbbbbbbbbbbbbbbb...\" (254 bytes) is too long; a "
                       "DNS-1123 subdomain has at most 253 bytes"));
}

// Regression: the length was counted in bytes and called characters: 32 two-byte
// characters (64 bytes) were "64 characters".
TEST(ValidateDnsLabelTest, TheLengthRuleCountsBytesAndSaysSo) {
  std::string name;
  for (int i = 0; i < 32; ++i) name += "\xc3\xa9";  // "é", two bytes in UTF-8
  EXPECT_THAT(ValidateDnsLabel("name", name),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("(64 bytes) is too long; a DNS-1123 label has at most 63 bytes")));
}

// Regression: a refused value was echoed raw, so escape sequences and line breaks in it
// reached the terminal that printed the error.
TEST(ValidateDnsLabelTest, ARefusedValueIsEchoedEscaped) {
  EXPECT_THAT(ValidateDnsLabel("namespace", "a\x1b[31mb"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("namespace: \"a\\x1b[31mb\" is not a DNS-1123 label")));
  EXPECT_THAT(ValidateDnsSubdomain("secret_name", "a\nb\"c"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("secret_name: \"a\\nb\\\"c\" is not a DNS-1123 subdomain")));
}

// Regression: a refused subdomain of the wrong shape was echoed whole, up to 253 bytes.
TEST(ValidateDnsSubdomainTest, ALongValueOfTheWrongShapeIsCutWithItsLength) {
  const std::string name = std::string(100, 'a') + "_" + std::string(152, 'b');
  EXPECT_THAT(ValidateDnsSubdomain("name", name),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr(absl::StrCat("name: \"", std::string(80, 'a'),
                                              "...\" (253 bytes) is not a DNS-1123 subdomain"))));
}

TEST(ValidateDnsSubdomainTest, AcceptsDottedLabelsUpToTwoHundredFiftyThreeCharacters) {
  EXPECT_OK(ValidateDnsSubdomain("name", "aws-creds"));
  EXPECT_OK(ValidateDnsSubdomain("name", "creds.team-a.example"));
  EXPECT_OK(ValidateDnsSubdomain("name", "0"));
  // Kubernetes limits the whole name, not each part, to 253.
  EXPECT_OK(ValidateDnsSubdomain("name", std::string(100, 'a') + "." + std::string(152, 'b')));
}

TEST(ValidateDnsSubdomainTest, RejectsWhatKubernetesRejectsNamingTheField) {
  EXPECT_THAT(ValidateDnsSubdomain("spec.name", ""),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("spec.name: required")));
  EXPECT_THAT(ValidateDnsSubdomain("spec.name", std::string(254, 'a')),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("(254 bytes) is too long; a DNS-1123 subdomain has at most "
                                 "253 bytes")));
  for (const char* bad :
       {"Creds", ".creds", "creds.", "a..b", "a.-b", "a-.b", "a_b", "a b", "-creds", "creds-"}) {
    EXPECT_THAT(
        ValidateDnsSubdomain("spec.name", bad),
        StatusIs(absl::StatusCode::kInvalidArgument,
                 HasSubstr("spec.name: \"" + std::string(bad) + "\" is not a DNS-1123 subdomain")))
        << bad;
  }
}

}  // namespace dns_label_test
}  // namespace credledger::common
