// LoadYaml and LoadAllYaml: untrusted text is bounded in bytes, deep nesting (flow and block)
// is refused by yaml-cpp's own depth guard as kInvalidArgument instead of exhausting the
// stack, and malformed text becomes kInvalidArgument naming the line.
#include "common/yaml_text.h"

#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "test/support/status_matchers.h"

namespace credledger::common {
namespace yaml_text_test {

using ::credledger::testing::StatusIs;
using ::testing::HasSubstr;

constexpr size_t kLimit = size_t{1} << 20;
constexpr char kTooDeep[] = "nested deeper than the limit of 499 levels";

// `levels` nested flow sequences: "[[[...]]]".
std::string FlowSequences(int levels) {
  return std::string(levels, '[') + std::string(levels, ']');
}

// `levels` nested flow mappings around a scalar: "{a: {a: ... x}}".
std::string FlowMappings(int levels) {
  std::string text;
  for (int i = 0; i < levels; ++i) text += "{a: ";
  return text + "x" + std::string(levels, '}');
}

// `levels` compact block sequences on one line around a scalar: "- - - x".
std::string CompactBlockSequences(int levels) {
  std::string text;
  for (int i = 0; i < levels; ++i) text += "- ";
  return text + "x\n";
}

// `levels` block mappings, each indented one column deeper than its parent.
std::string IndentedBlockMappings(int levels) {
  std::string text;
  for (int i = 0; i < levels; ++i) text += std::string(i, ' ') + "a:\n";
  return text + std::string(levels, ' ') + "x\n";
}

TEST(YamlTextTest, HundredThousandNestedFlowSequencesAreRefusedAsInvalidArgument) {
  EXPECT_THAT(LoadYaml(FlowSequences(100000), kLimit),
              StatusIs(absl::StatusCode::kInvalidArgument, kTooDeep));
  // Unclosed brackets too: the depth guard fires before the missing "]" is noticed.
  EXPECT_THAT(LoadYaml("contexts: " + std::string(100000, '['), kLimit),
              StatusIs(absl::StatusCode::kInvalidArgument, kTooDeep));
}

TEST(YamlTextTest, DeepFlowMappingsAreRefusedAsInvalidArgument) {
  EXPECT_THAT(LoadYaml(FlowMappings(10000), kLimit),
              StatusIs(absl::StatusCode::kInvalidArgument, kTooDeep));
}

TEST(YamlTextTest, DeepBlockNestingIsRefusedAsInvalidArgument) {
  EXPECT_THAT(LoadYaml(CompactBlockSequences(100000), kLimit),
              StatusIs(absl::StatusCode::kInvalidArgument, kTooDeep));
  EXPECT_THAT(LoadYaml(IndentedBlockMappings(600), kLimit),
              StatusIs(absl::StatusCode::kInvalidArgument, kTooDeep));
}

TEST(YamlTextTest, NestingUpToTheLimitLoadsAndOneLevelMoreIsRefused) {
  // A collection and the value inside it each count one level, so kMaxYamlDepth flow
  // sequences fit, and kMaxYamlDepth - 1 block sequences around a scalar.
  ASSERT_OK_AND_ASSIGN(YAML::Node flow, LoadYaml(FlowSequences(kMaxYamlDepth), kLimit));
  EXPECT_TRUE(flow.IsSequence());
  EXPECT_THAT(LoadYaml(FlowSequences(kMaxYamlDepth + 1), kLimit),
              StatusIs(absl::StatusCode::kInvalidArgument, kTooDeep));
  ASSERT_OK_AND_ASSIGN(YAML::Node block,
                       LoadYaml(CompactBlockSequences(kMaxYamlDepth - 1), kLimit));
  EXPECT_TRUE(block.IsSequence());
  EXPECT_THAT(LoadYaml(CompactBlockSequences(kMaxYamlDepth), kLimit),
              StatusIs(absl::StatusCode::kInvalidArgument, kTooDeep));
}

TEST(YamlTextTest, TextOverTheByteLimitIsRefusedBeforeParsing) {
  const std::string text = "a: " + std::string(97, 'x');  // 100 bytes
  ASSERT_OK_AND_ASSIGN(YAML::Node root, LoadYaml(text, 100));
  EXPECT_EQ(root["a"].Scalar(), std::string(97, 'x'));
  // One byte more; the unclosed bracket shows that yaml-cpp never sees the text.
  EXPECT_THAT(LoadYaml(text + "[", 100),
              StatusIs(absl::StatusCode::kInvalidArgument, "larger than the limit of 100 bytes"));
  EXPECT_THAT(LoadAllYaml(text + "[", 100),
              StatusIs(absl::StatusCode::kInvalidArgument, "larger than the limit of 100 bytes"));
}

TEST(YamlTextTest, MalformedYamlIsInvalidArgumentNamingTheLine) {
  EXPECT_THAT(LoadYaml("a: 1\nb: [x\n", kLimit),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       "not valid YAML at line 3, column 1: end of sequence flow not found"));
  EXPECT_THAT(LoadAllYaml("a: 1\n---\nb: {x\n", kLimit),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("not valid YAML at line ")));
}

TEST(YamlTextTest, LoadYamlReturnsTheFirstDocumentAndNullForEmptyText) {
  ASSERT_OK_AND_ASSIGN(YAML::Node first, LoadYaml("a: 1\n---\na: 2\n", kLimit));
  EXPECT_EQ(first["a"].Scalar(), "1");
  ASSERT_OK_AND_ASSIGN(YAML::Node empty, LoadYaml("", kLimit));
  EXPECT_TRUE(empty.IsNull());
}

TEST(YamlTextTest, LoadAllYamlReturnsEveryDocumentAndRefusesADeepLaterOne) {
  ASSERT_OK_AND_ASSIGN(std::vector<YAML::Node> documents,
                       LoadAllYaml("a: 1\n---\na: 2\n", kLimit));
  ASSERT_EQ(documents.size(), 2u);
  EXPECT_EQ(documents[1]["a"].Scalar(), "2");
  ASSERT_OK_AND_ASSIGN(std::vector<YAML::Node> none, LoadAllYaml("", kLimit));
  EXPECT_TRUE(none.empty());
  EXPECT_THAT(LoadAllYaml("a: 1\n---\n" + FlowSequences(100000), kLimit),
              StatusIs(absl::StatusCode::kInvalidArgument, kTooDeep));
}

}  // namespace yaml_text_test
}  // namespace credledger::common
