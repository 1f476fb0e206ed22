// The spec-file reader shared by the `-f` of identity, cluster and source commands: limits
// first, exactly one non-empty document, yaml-cpp's exceptions turned into statuses, and
// file errors naming the file.
#include "cli/framework/spec_file.h"

#include <fstream>
#include <string>

#include "cli/framework/yaml_fields.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "test/support/status_matchers.h"
#include "test/support/temp_dir.h"

namespace credledger::cli {
namespace spec_file_test {

using ::testing::HasSubstr;
using testing::StatusIs;

// The test spec: the string under key `name` of a mapping with only that key.
absl::StatusOr<std::string> ParseName(const YAML::Node& root) {
  absl::Status keys = YamlCheckKeys(root, "", {"name"});
  if (!keys.ok()) return keys;
  return YamlString(root["name"], "name");
}

TEST(SpecFileTest, OneDocumentIsHandedToTheParser) {
  ASSERT_OK_AND_ASSIGN(const std::string plain, ParseSpecYaml("name: a\n", &ParseName));
  EXPECT_EQ(plain, "a");
  // A leading `---` and a closing `...` still make one document.
  ASSERT_OK_AND_ASSIGN(const std::string marked,
                       ParseSpecYaml("# the spec\n---\nname: b\n...\n", &ParseName));
  EXPECT_EQ(marked, "b");
}

// Regression: yaml-cpp's Load takes the first document and drops the rest without a word.
TEST(SpecFileTest, MoreThanOneDocumentIsRefusedWithTheCount) {
  EXPECT_THAT(ParseSpecYaml("name: a\n---\nname: b\n", &ParseName),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       "2 YAML documents found (separated by ---); one is expected"));
  EXPECT_THAT(ParseSpecYaml("name: a\n---\nname: b\n---\nname: c\n", &ParseName),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("3 YAML documents found")));
  // Empty documents between them are not counted.
  EXPECT_THAT(ParseSpecYaml("name: a\n---\n# nothing\n---\nname: b\n---\n", &ParseName),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("2 YAML documents found")));
}

// Regression: a file ending in `---` (or `---` and comments), as editors and generators
// leave them, was refused as "2 YAML documents found".
TEST(SpecFileTest, EmptyDocumentsBesideTheSpecAreSkipped) {
  for (const char* text : {"name: a\n---\n", "name: a\n---\n# end\n", "name: a\n---\n---\n",
                           "---\n---\nname: a\n", "name: a\n--- ~\n"}) {
    const absl::StatusOr<std::string> name = ParseSpecYaml(text, &ParseName);
    ASSERT_TRUE(name.ok()) << text << ": " << name.status();
    EXPECT_EQ(*name, "a") << text;
  }
}

TEST(SpecFileTest, NoDocumentOrAnEmptyOneIsRefused) {
  for (const char* empty : {"", "# only a comment\n", "\n\n"}) {
    EXPECT_THAT(ParseSpecYaml(empty, &ParseName),
                StatusIs(absl::StatusCode::kInvalidArgument,
                         "no YAML document found; one is expected"))
        << empty;
  }
  for (const char* null : {"---\n", "~\n", "null\n", "---\n---\n# only comments\n"}) {
    EXPECT_THAT(ParseSpecYaml(null, &ParseName),
                StatusIs(absl::StatusCode::kInvalidArgument,
                         "the document is empty; one mapping is expected"))
        << null;
  }
}

TEST(SpecFileTest, LimitsMalformedYamlAndParserErrorsBecomeInvalidArgument) {
  EXPECT_THAT(ParseSpecYaml(std::string(2 << 20, '#'), &ParseName),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("larger than the limit")));
  EXPECT_THAT(ParseSpecYaml(std::string(600, '[') + std::string(600, ']'), &ParseName),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       "nested deeper than the limit of 499 levels"));
  EXPECT_THAT(ParseSpecYaml("name: [a\n", &ParseName),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("not valid YAML at line 2, column 1: ")));
  // Invalid UTF-8 is named as such, not left to yaml-cpp's reading of the bytes.
  EXPECT_THAT(
      ParseSpecYaml("name: \xff\xfe\n", &ParseName),
      StatusIs(absl::StatusCode::kInvalidArgument, "not valid UTF-8; a spec file is UTF-8 text"));
  EXPECT_OK(ParseSpecYaml("name: caf\xc3\xa9\n", &ParseName));
  EXPECT_THAT(ParseSpecYaml("nme: a\n", &ParseName),
              StatusIs(absl::StatusCode::kInvalidArgument, "nme: unknown key"));
  // A mapping used as a key makes yaml-cpp throw inside the parser (key.as<std::string>()).
  EXPECT_THAT(ParseSpecYaml("? {a: b}\n: c\n", &ParseName),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("not valid YAML: ")));
}

TEST(SpecFileTest, FileErrorsNameTheFile) {
  credledger::testing::TempDir dir;
  const std::string good = (dir.path() / "good.yaml").string();
  std::ofstream(good) << "name: a\n";
  ASSERT_OK_AND_ASSIGN(const std::string name, ReadSpecFile(good, &ParseName));
  EXPECT_EQ(name, "a");

  const std::string two = (dir.path() / "two.yaml").string();
  std::ofstream(two) << "name: a\n---\nname: b\n";
  EXPECT_THAT(ReadSpecFile(two, &ParseName),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       "\"" + two + "\": 2 YAML documents found (separated by ---); one is "
                                    "expected"));
  const std::string absent = (dir.path() / "absent.yaml").string();
  EXPECT_THAT(ReadSpecFile(absent, &ParseName),
              StatusIs(absl::StatusCode::kNotFound, HasSubstr(absent)));
}

}  // namespace spec_file_test
}  // namespace credledger::cli
