#include "kubebridge/client/yaml_limits.h"

#include <string>

#include "gtest/gtest.h"
#include "test/support/status_matchers.h"

namespace credledger::kubebridge {
namespace yaml_limits_test {

std::string BlockNesting(int levels) {
  std::string yaml;
  for (int i = 0; i < levels; ++i) yaml += std::string(i, ' ') + "k:\n";
  return yaml;
}

TEST(YamlLimitsTest, OrdinaryKubeconfigShapesPass) {
  const char* yaml = R"(apiVersion: v1
clusters:
- name: a
  cluster:
    server: "https://x:6443" # comment [ with { brackets
    certificate-authority-data: abc
users:
- name: u
  user: {token: 't[o{k', args: [a, [b, c]]}
)";
  EXPECT_OK(CheckYamlLimits(yaml, 1 << 20, 8));
}

TEST(YamlLimitsTest, TooLargeInputFails) {
  absl::Status status = CheckYamlLimits(std::string(101, 'a'), 100, 64);
  EXPECT_EQ(status.message(), "larger than the limit of 100 bytes");
}

TEST(YamlLimitsTest, BlockNestingIsCountedByIndentation) {
  EXPECT_OK(CheckYamlLimits(BlockNesting(10), 1 << 20, 10));
  absl::Status status = CheckYamlLimits(BlockNesting(11), 1 << 20, 10);
  EXPECT_EQ(status.message(), "nested deeper than 10 levels (line 11)");
}

TEST(YamlLimitsTest, CompactSequencesCountOneLevelPerDash) {
  EXPECT_OK(CheckYamlLimits("- - - x\n", 100, 4));
  EXPECT_FALSE(CheckYamlLimits("- - - - - x\n", 100, 4).ok());
}

TEST(YamlLimitsTest, FlowNestingAcrossLinesIsCounted) {
  EXPECT_FALSE(CheckYamlLimits("a: [[[\n[[[\n]]]]]]\n", 100, 5).ok());
  EXPECT_OK(CheckYamlLimits("a: [[\n[]]]\n", 100, 5));
}

TEST(YamlLimitsTest, BracketsInsideQuotesAndBlockScalarsDoNotCount) {
  std::string brackets(50, '[');
  EXPECT_OK(CheckYamlLimits("a: \"" + brackets + "\"\nb: '" + brackets + "'\n", 1000, 4));
  EXPECT_OK(CheckYamlLimits("a: |\n  " + brackets + "\n  more\nb: c\n", 1000, 4));
}

}  // namespace yaml_limits_test
}  // namespace credledger::kubebridge
