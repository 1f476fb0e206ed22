// The environment `credledger exec` builds (docs/mirrors.md, "Delivery to workloads"): files
// become variables and win over inherited ones; TF_ and KUBE_ variables are removed, inherited
// or not, and reported by origin, except TF_IN_AUTOMATION, TF_INPUT and KUBE_NAMESPACE, whose
// values come only from the caller (their files are reported as ignored); names that cannot be
// variables are skipped.
#include "cli/credentials_env.h"

#include <string>
#include <utility>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace credledger::cli {
namespace credentials_env_test {

using ::testing::ElementsAre;
using ::testing::ElementsAreArray;
using ::testing::IsEmpty;
using Files = std::vector<std::pair<std::string, std::string>>;

struct Case {
  std::string name;
  std::vector<std::string> inherited;
  Files files;
  std::vector<std::string> env;  // expected, ordered by name
  // Expected reports: removed variables a file held, removed inherited ones, and files of
  // the caller-set names that were ignored.
  std::vector<std::string> removed_from_files = {};
  std::vector<std::string> removed_inherited = {};
  std::vector<std::string> ignored_files = {};
};

class CredentialsEnvironmentTest : public ::testing::TestWithParam<Case> {};

TEST_P(CredentialsEnvironmentTest, BuildsTheCommandsEnvironment) {
  const Case& c = GetParam();
  const CredentialsEnvironment got = BuildCredentialsEnvironment(c.inherited, c.files);
  EXPECT_THAT(got.env, ElementsAreArray(c.env));
  EXPECT_THAT(got.removed_from_files, ElementsAreArray(c.removed_from_files));
  EXPECT_THAT(got.removed_inherited, ElementsAreArray(c.removed_inherited));
  EXPECT_THAT(got.ignored_files, ElementsAreArray(c.ignored_files));
  EXPECT_THAT(got.skipped, IsEmpty());
}

INSTANTIATE_TEST_SUITE_P(
    Rules, CredentialsEnvironmentTest,
    ::testing::Values(
        Case{"FilesBecomeVariables",
             {"HOME=/home/runner", "PATH=/usr/bin"},
             {{"AWS_SECRET_ACCESS_KEY", "s3cr3t"}, {"AWS_ACCESS_KEY_ID", "AKIA"}},
             {"AWS_ACCESS_KEY_ID=AKIA", "AWS_SECRET_ACCESS_KEY=s3cr3t", "HOME=/home/runner",
              "PATH=/usr/bin"}},
        Case{"AFileOverridesTheInheritedVariable",
             {"REGION=eu-west-1"},
             {{"REGION", "us-east-1"}},
             {"REGION=us-east-1"}},
        Case{"TfVarFromAFileIsRemoved",
             {},
             {{"TF_VAR_x", "1"}, {"TOKEN", "t"}},
             {"TOKEN=t"},
             {"TF_VAR_x"}},
        Case{"InheritedTfAndKubeVariablesAreRemovedToo",
             {"TF_WORKSPACE=prod", "KUBECONFIG=/k", "KUBE_CONFIG_PATH=/k", "USER=runner"},
             {},
             {"KUBECONFIG=/k", "USER=runner"},
             {},
             {"KUBE_CONFIG_PATH", "TF_WORKSPACE"}},
        Case{"TheThreeCallerSetVariablesKeepTheirInheritedValues",
             {"TF_IN_AUTOMATION=1", "TF_INPUT=0", "KUBE_NAMESPACE=team-a"},
             {},
             {"KUBE_NAMESPACE=team-a", "TF_INPUT=0", "TF_IN_AUTOMATION=1"}},
        // Regression: these names were reported as dropped keys although the caller's
        // values were passed on; only the files are ignored.
        Case{"AFileCannotSetTheCallerSetVariablesAndIsReportedAsIgnored",
             {"TF_INPUT=0", "KUBE_NAMESPACE=team-a"},
             {{"TF_INPUT", "1"}, {"KUBE_NAMESPACE", "kube-system"}, {"TF_IN_AUTOMATION", "x"}},
             {"KUBE_NAMESPACE=team-a", "TF_INPUT=0"},
             {},
             {},
             {"KUBE_NAMESPACE", "TF_INPUT", "TF_IN_AUTOMATION"}},
        Case{"ANameInheritedAndInAFileIsReportedAsBoth",
             {"TF_WORKSPACE=a"},
             {{"TF_WORKSPACE", "b"}},
             {},
             {"TF_WORKSPACE"},
             {"TF_WORKSPACE"}},
        // Regression: inherited variables and file keys were reported in one list, as
        // "dropped keys"; each now says where it came from.
        Case{"RemovedVariablesAreToldApartByOrigin",
             {"TF_LOG=debug", "HOME=/h"},
             {{"TF_VAR_region", "eu"}, {"KUBE_TOKEN", "k"}},
             {"HOME=/h"},
             {"KUBE_TOKEN", "TF_VAR_region"},
             {"TF_LOG"}},
        Case{"OnlyThePrefixesCount",
             {"MY_TF_VAR=1", "TF=2", "KUBE=3"},
             {{"XTF_Y", "4"}},
             {"KUBE=3", "MY_TF_VAR=1", "TF=2", "XTF_Y=4"}},
        Case{"AnEmptyValueIsKept", {}, {{"EMPTY", ""}}, {"EMPTY="}},
        Case{"InheritedEntriesWithoutANameAreLeftOut",
             {"NOEQUALS", "=value", "A=1", "A=2"},
             {},
             {"A=1"}}),
    [](const ::testing::TestParamInfo<Case>& info) { return info.param.name; });

TEST(CredentialsEnvironmentSkipTest, NamesThatCannotBeVariablesAreSkipped) {
  const CredentialsEnvironment got =
      BuildCredentialsEnvironment({"KEEP=1"}, {{"", "empty name"},
                                               {"A=B", "equals"},
                                               {std::string("N\0L", 3), "nul in name"},
                                               {"BINARY", std::string("a\0b", 3)},
                                               {"GOOD", "ok"}});
  EXPECT_THAT(got.env, ElementsAre("GOOD=ok", "KEEP=1"));
  EXPECT_THAT(got.skipped, ElementsAre("", "A=B", "BINARY", std::string("N\0L", 3)));
  EXPECT_THAT(got.removed_from_files, IsEmpty());
  EXPECT_THAT(got.ignored_files, IsEmpty());
}

}  // namespace credentials_env_test
}  // namespace credledger::cli
