// Strict reading of spec-file fields: booleans.
#include "cli/framework/yaml_fields.h"

#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "test/support/status_matchers.h"

namespace credledger::cli {
namespace yaml_fields_test {

using testing::StatusIs;

absl::StatusOr<bool> BoolOf(const std::string& value_yaml) {
  return YamlBool(YAML::Load("flag: " + value_yaml)["flag"], "tls.flag");
}

TEST(YamlBoolTest, OnlyPlainTrueAndFalseAreBooleans) {
  ASSERT_OK_AND_ASSIGN(const bool yes, BoolOf("true"));
  EXPECT_TRUE(yes);
  ASSERT_OK_AND_ASSIGN(const bool no, BoolOf("false"));
  EXPECT_FALSE(no);
}

// Regression: yaml-cpp's conversion took YAML 1.1 spellings (yes, on, y, ...) and quoted
// strings ("true") for booleans.
TEST(YamlBoolTest, OtherSpellingsQuotedStringsAndNonScalarsAreRefused) {
  for (const char* value : {"yes", "no", "on", "off", "y", "n", "True", "TRUE", "False", "1",
                            "\"true\"", "'false'", "[true]", "{a: true}", "~", "maybe"}) {
    EXPECT_THAT(BoolOf(value), StatusIs(absl::StatusCode::kInvalidArgument,
                                        "tls.flag: must be true or false (unquoted)"))
        << value;
  }
}

}  // namespace yaml_fields_test
}  // namespace credledger::cli
