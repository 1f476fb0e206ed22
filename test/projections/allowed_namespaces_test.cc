// Tests of an identity's spec rules (docs/mirrors.md, "Allowed namespaces", "Access review" and
// "Revocation"): which namespaces a spec allows, how specs and selectors are validated, and
// which changes need an access review.
#include "projections/allowed_namespaces.h"

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "test/support/status_matchers.h"

namespace credledger::projections {
namespace allowed_namespaces_test {

using ::credledger::testing::StatusIs;
using ::testing::HasSubstr;
using Verdict = Allowance::Verdict;
using Labels = std::vector<std::pair<std::string, std::string>>;

v1::LabelSelectorRequirement Requirement(std::string key, std::string op,
                                         std::vector<std::string> values = {}) {
  v1::LabelSelectorRequirement r;
  r.set_key(std::move(key));
  r.set_operator_(std::move(op));
  for (std::string& v : values) r.add_values(std::move(v));
  return r;
}

v1::LabelSelector Selector(Labels match_labels,
                           std::vector<v1::LabelSelectorRequirement> expressions = {}) {
  v1::LabelSelector s;
  for (auto& [k, v] : match_labels) {
    v1::Label* l = s.add_match_labels();
    l->set_key(k);
    l->set_value(v);
  }
  for (v1::LabelSelectorRequirement& r : expressions) *s.add_match_expressions() = std::move(r);
  return s;
}

v1::IdentitySpec Spec() {
  v1::IdentitySpec spec;
  spec.mutable_secret_ref()->set_namespace_("capi-system");
  spec.mutable_secret_ref()->set_name("aws-creds");
  return spec;
}

v1::IdentitySpec ListSpec(std::vector<std::string> list) {
  v1::IdentitySpec spec = Spec();
  v1::AllowedNamespaces* allowed = spec.mutable_allowed_namespaces();
  for (std::string& ns : list) allowed->add_list(std::move(ns));
  return spec;
}

v1::IdentitySpec SelectorSpec(v1::LabelSelector selector, std::vector<std::string> list = {}) {
  v1::IdentitySpec spec = ListSpec(std::move(list));
  *spec.mutable_allowed_namespaces()->mutable_selector() = std::move(selector);
  return spec;
}

// A namespace entry; `labels` unset means not observed yet.
v1::IdentityNamespaceState Namespace(std::string name, std::optional<Labels> labels) {
  v1::IdentityNamespaceState ns;
  ns.set_namespace_(std::move(name));
  if (labels.has_value()) {
    ns.set_labels_observed(true);
    ns.set_namespace_found(true);
    for (auto& [k, v] : *labels) {
      v1::Label* l = ns.add_labels();
      l->set_key(k);
      l->set_value(v);
    }
  }
  return ns;
}

// A namespace entry whose namespace was observed not to exist.
v1::IdentityNamespaceState MissingNamespace(std::string name) {
  v1::IdentityNamespaceState ns;
  ns.set_namespace_(std::move(name));
  ns.set_labels_observed(true);
  ns.set_namespace_found(false);
  return ns;
}

// --- EvaluateAllowed ---

struct AllowedCase {
  std::string name;
  v1::IdentitySpec spec;
  v1::IdentityNamespaceState ns;
  Verdict verdict;
  std::string message;  // expected exactly
};

class EvaluateAllowedTest : public ::testing::TestWithParam<AllowedCase> {};

TEST_P(EvaluateAllowedTest, GivesTheVerdictAndSaysWhy) {
  const AllowedCase& c = GetParam();
  const Allowance a = EvaluateAllowed(c.spec, c.ns);
  EXPECT_EQ(a.verdict, c.verdict);
  EXPECT_EQ(a.message, c.message);
}

const Labels kProd = {{"env", "prod"}, {"team", "a"}};

std::vector<AllowedCase> AllowedCases() {
  const std::string no_match =
      "namespace team-b is not in allowedNamespaces.list and its labels do not match the "
      "selector";
  const std::string match = "the labels of namespace team-b match allowedNamespaces.selector";
  return {
      {"UnsetAllowsNothing", Spec(), Namespace("team-a", kProd), Verdict::kNotAllowed,
       "identity allows no namespace (allowedNamespaces is unset)"},
      {"ListedIsAllowedWithoutLabels", ListSpec({"team-a", "team-c"}),
       Namespace("team-a", std::nullopt), Verdict::kAllowed,
       "namespace team-a is listed in allowedNamespaces.list"},
      {"NotListedWithoutSelector", ListSpec({"team-a"}), Namespace("team-b", kProd),
       Verdict::kNotAllowed,
       "namespace team-b is not in allowedNamespaces.list and there is no selector"},
      {"StoredEmptyObjectAllowsNothing", ListSpec({}), Namespace("team-b", kProd),
       Verdict::kNotAllowed,
       "namespace team-b is not in allowedNamespaces.list and there is no selector"},
      {"EmptySelectorAllowsEveryNamespace", SelectorSpec(Selector({})),
       Namespace("team-b", Labels{}), Verdict::kAllowed, match},
      {"SelectorWaitsForLabels", SelectorSpec(Selector({})), Namespace("team-b", std::nullopt),
       Verdict::kUnknown, "waiting for the labels of namespace team-b"},
      // Regression: a namespace observed not to exist has no labels, and an empty selector
      // or a NotIn/DoesNotExist requirement matched it, reporting it allowed.
      {"SelectorAllowsNoMissingNamespace", SelectorSpec(Selector({})), MissingNamespace("team-b"),
       Verdict::kNotAllowed, "namespace team-b does not exist"},
      {"MissingNamespaceUnderDoesNotExist",
       SelectorSpec(Selector({}, {Requirement("tier", "DoesNotExist")})),
       MissingNamespace("team-b"), Verdict::kNotAllowed, "namespace team-b does not exist"},
      {"ListedMissingNamespaceStaysAllowed", SelectorSpec(Selector({}), {"team-b"}),
       MissingNamespace("team-b"), Verdict::kAllowed,
       "namespace team-b is listed in allowedNamespaces.list"},
      {"ListWinsWhileLabelsAreUnknown", SelectorSpec(Selector({}), {"team-b"}),
       Namespace("team-b", std::nullopt), Verdict::kAllowed,
       "namespace team-b is listed in allowedNamespaces.list"},
      {"ListOrSelectorBySelector", SelectorSpec(Selector({{"env", "prod"}}), {"team-a"}),
       Namespace("team-b", kProd), Verdict::kAllowed, match},
      {"MatchLabelsAllMustHold", SelectorSpec(Selector({{"env", "prod"}, {"team", "b"}})),
       Namespace("team-b", kProd), Verdict::kNotAllowed, no_match},
      {"MatchLabelsMissingKey", SelectorSpec(Selector({{"tier", "gold"}})),
       Namespace("team-b", kProd), Verdict::kNotAllowed, no_match},
      {"InMatches", SelectorSpec(Selector({}, {Requirement("env", "In", {"dev", "prod"})})),
       Namespace("team-b", kProd), Verdict::kAllowed, match},
      {"InOtherValue", SelectorSpec(Selector({}, {Requirement("env", "In", {"dev"})})),
       Namespace("team-b", kProd), Verdict::kNotAllowed, no_match},
      {"InMissingKey", SelectorSpec(Selector({}, {Requirement("tier", "In", {"gold"})})),
       Namespace("team-b", kProd), Verdict::kNotAllowed, no_match},
      {"NotInOtherValue", SelectorSpec(Selector({}, {Requirement("env", "NotIn", {"dev"})})),
       Namespace("team-b", kProd), Verdict::kAllowed, match},
      {"NotInListedValue", SelectorSpec(Selector({}, {Requirement("env", "NotIn", {"prod"})})),
       Namespace("team-b", kProd), Verdict::kNotAllowed, no_match},
      {"NotInMissingKeyMatches",
       SelectorSpec(Selector({}, {Requirement("tier", "NotIn", {"gold"})})),
       Namespace("team-b", kProd), Verdict::kAllowed, match},
      {"ExistsPresent", SelectorSpec(Selector({}, {Requirement("team", "Exists")})),
       Namespace("team-b", kProd), Verdict::kAllowed, match},
      {"ExistsAbsent", SelectorSpec(Selector({}, {Requirement("tier", "Exists")})),
       Namespace("team-b", kProd), Verdict::kNotAllowed, no_match},
      {"DoesNotExistAbsent", SelectorSpec(Selector({}, {Requirement("tier", "DoesNotExist")})),
       Namespace("team-b", kProd), Verdict::kAllowed, match},
      {"DoesNotExistPresent", SelectorSpec(Selector({}, {Requirement("env", "DoesNotExist")})),
       Namespace("team-b", kProd), Verdict::kNotAllowed, no_match},
      {"LabelsAndExpressionsBothHold",
       SelectorSpec(Selector({{"env", "prod"}}, {Requirement("team", "In", {"b"})})),
       Namespace("team-b", kProd), Verdict::kNotAllowed, no_match},
      {"InvalidSelectorAllowsNothing",
       SelectorSpec(Selector({}, {Requirement("env", "Like", {"prod"})})),
       Namespace("team-b", kProd), Verdict::kNotAllowed,
       "allowedNamespaces.selector is invalid (selector.match_expressions[0].operator: \"Like\" "
       "is not one of In, NotIn, Exists, DoesNotExist): it allows nothing"},
      {"InvalidSelectorIsNotWaitedFor", SelectorSpec(Selector({{"Bad Key", "x"}})),
       Namespace("team-b", std::nullopt), Verdict::kNotAllowed,
       "allowedNamespaces.selector is invalid (selector.match_labels[0].key: \"Bad Key\" is not a "
       "label key (an optional DNS-1123 subdomain and '/', then at most 63 characters of "
       "letters, digits, '-', '_' and '.', starting and ending with a letter or digit)): it "
       "allows nothing"},
      {"InvalidSelectorLeavesTheListAlone",
       SelectorSpec(Selector({}, {Requirement("env", "Like", {"prod"})}), {"team-b"}),
       Namespace("team-b", kProd), Verdict::kAllowed,
       "namespace team-b is listed in allowedNamespaces.list"},
  };
}

INSTANTIATE_TEST_SUITE_P(Semantics, EvaluateAllowedTest, ::testing::ValuesIn(AllowedCases()),
                         [](const auto& info) { return info.param.name; });

TEST(SelectorMatchesTest, AnEmptySelectorMatchesAnySetOfLabels) {
  EXPECT_TRUE(SelectorMatches(Selector({}), Namespace("x", Labels{}).labels()));
  EXPECT_TRUE(SelectorMatches(Selector({}), Namespace("x", kProd).labels()));
}

// --- ValidateIdentitySpec and ValidateLabelSelector ---

struct InvalidCase {
  std::string name;
  v1::IdentitySpec spec;
  std::string message;  // a substring naming the field and the rule
};

class InvalidSpecTest : public ::testing::TestWithParam<InvalidCase> {};

TEST_P(InvalidSpecTest, IsRefusedNamingTheFieldAndTheRule) {
  EXPECT_THAT(ValidateIdentitySpec(GetParam().spec),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr(GetParam().message)));
}

v1::IdentitySpec WithRef(std::string ns, std::string name) {
  v1::IdentitySpec spec = ListSpec({"team-a"});
  spec.mutable_secret_ref()->set_namespace_(std::move(ns));
  spec.mutable_secret_ref()->set_name(std::move(name));
  return spec;
}

std::vector<InvalidCase> InvalidCases() {
  const std::string sel = "spec.allowed_namespaces.selector";
  return {
      {"NoSecretNamespace", WithRef("", "aws-creds"), "spec.secret_ref.namespace: required"},
      {"SecretNamespaceNotALabel", WithRef("capi.system", "aws-creds"),
       "spec.secret_ref.namespace: \"capi.system\" is not a DNS-1123 label"},
      {"NoSecretName", WithRef("capi-system", ""), "spec.secret_ref.name: required"},
      {"SecretNameNotASubdomain", WithRef("capi-system", "AWS_creds"),
       "spec.secret_ref.name: \"AWS_creds\" is not a DNS-1123 subdomain"},
      // `{}` and `{list: []}` are the same message; the error names both.
      {"EmptyObjectOrEmptyList", ListSpec({}),
       "spec.allowed_namespaces: present but allows nothing ({} or an empty list) is ambiguous "
       "and refused: write `selector: {}` to allow every namespace, name the namespaces under "
       "`list`, or leave allowed_namespaces unset to allow none"},
      {"ListEntryNotALabel", ListSpec({"team-a", "Team_B"}),
       "spec.allowed_namespaces.list[1]: \"Team_B\" is not a DNS-1123 label"},
      {"ListEntryEmpty", ListSpec({""}), "spec.allowed_namespaces.list[0]: required"},
      {"ListDuplicate", ListSpec({"team-a", "team-b", "team-a"}),
       "spec.allowed_namespaces.list[2]: \"team-a\" is listed twice"},
      {"MatchLabelKeyEmpty", SelectorSpec(Selector({{"", "x"}})),
       sel + ".match_labels[0].key: required"},
      {"MatchLabelKeyCharacters", SelectorSpec(Selector({{"env name", "x"}})),
       sel + ".match_labels[0].key: \"env name\" is not a label key"},
      {"MatchLabelKeyTooLong", SelectorSpec(Selector({{std::string(64, 'k'), "x"}})),
       sel + ".match_labels[0].key: \"kkkk"},
      {"MatchLabelKeyPrefixNotASubdomain", SelectorSpec(Selector({{"Example.com/env", "x"}})),
       sel + ".match_labels[0].key (prefix before '/'): \"Example.com\" is not a DNS-1123 "
             "subdomain"},
      {"MatchLabelKeyEmptyPrefix", SelectorSpec(Selector({{"/env", "x"}})),
       sel + ".match_labels[0].key (prefix before '/'): required"},
      {"MatchLabelKeyTwoSlashes", SelectorSpec(Selector({{"a.io/b/c", "x"}})),
       sel + ".match_labels[0].key: \"a.io/b/c\" is not a label key"},
      {"MatchLabelValue", SelectorSpec(Selector({{"env", "-prod"}})),
       sel + ".match_labels[0].value: \"-prod\" is not a label value"},
      {"MatchLabelValueTooLong", SelectorSpec(Selector({{"env", std::string(64, 'v')}})),
       sel + ".match_labels[0].value: \"vvvv"},
      // Regression: refused values were echoed raw (line breaks and all) and cut silently.
      {"MatchLabelValueIsEscaped", SelectorSpec(Selector({{"env", "a\nb"}})),
       sel + ".match_labels[0].value: \"a\\nb\" is not a label value"},
      {"MatchLabelValueCutSaysSo", SelectorSpec(Selector({{"env", std::string(100, 'v')}})),
       sel + ".match_labels[0].value: \"" + std::string(70, 'v') + "...\" (100 bytes) is not"},
      {"MatchLabelsUnordered", SelectorSpec(Selector({{"team", "a"}, {"env", "prod"}})),
       sel + ".match_labels[1].key: \"env\" does not come after \"team\": match_labels are "
             "ordered by key without duplicates"},
      {"MatchLabelsDuplicate", SelectorSpec(Selector({{"env", "a"}, {"env", "b"}})),
       sel + ".match_labels[1].key: \"env\" does not come after \"env\""},
      {"ExpressionKey", SelectorSpec(Selector({}, {Requirement("-env", "Exists")})),
       sel + ".match_expressions[0].key: \"-env\" is not a label key"},
      {"ExpressionOperator", SelectorSpec(Selector({}, {Requirement("env", "in", {"a"})})),
       sel + ".match_expressions[0].operator: \"in\" is not one of In, NotIn, Exists, "
             "DoesNotExist"},
      {"InWithoutValues", SelectorSpec(Selector({}, {Requirement("env", "In")})),
       sel + ".match_expressions[0].values: required for In"},
      {"NotInWithoutValues",
       SelectorSpec(Selector({}, {Requirement("env", "Exists"), Requirement("env", "NotIn")})),
       sel + ".match_expressions[1].values: required for NotIn"},
      {"ExistsWithValues", SelectorSpec(Selector({}, {Requirement("env", "Exists", {"a"})})),
       sel + ".match_expressions[0].values: must be empty for Exists"},
      {"DoesNotExistWithValues",
       SelectorSpec(Selector({}, {Requirement("env", "DoesNotExist", {"a"})})),
       sel + ".match_expressions[0].values: must be empty for DoesNotExist"},
      {"ExpressionValue", SelectorSpec(Selector({}, {Requirement("env", "In", {"a", "b c"})})),
       sel + ".match_expressions[0].values[1]: \"b c\" is not a label value"},
  };
}

INSTANTIATE_TEST_SUITE_P(EveryRule, InvalidSpecTest, ::testing::ValuesIn(InvalidCases()),
                         [](const auto& info) { return info.param.name; });

TEST(ValidateIdentitySpecTest, AcceptsWhatKubernetesAccepts) {
  EXPECT_OK(ValidateIdentitySpec(Spec()));  // unset: valid, allows nothing
  EXPECT_OK(ValidateIdentitySpec(WithRef("capi-system", "creds.aws.example")));
  EXPECT_OK(ValidateIdentitySpec(ListSpec({"team-b", "team-a"})));  // any order
  EXPECT_OK(ValidateIdentitySpec(SelectorSpec(Selector({}))));
  EXPECT_OK(ValidateIdentitySpec(SelectorSpec(
      Selector({{"example.com/env", "prod"}, {"team", ""}, {"tier", "Gold_1.x"}},
               {Requirement("env", "In", {"prod", "staging"}), Requirement("x", "NotIn", {"y"}),
                Requirement("gpu", "Exists"), Requirement("legacy", "DoesNotExist")}),
      {"team-a"})));
  EXPECT_OK(
      ValidateIdentitySpec(SelectorSpec(Selector({{std::string(63, 'k'), std::string(63, 'v')}}))));
}

TEST(ValidateLabelSelectorTest, NamesTheFieldItIsGiven) {
  EXPECT_THAT(ValidateLabelSelector(Selector({}, {Requirement("env", "Like")}), "where"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("where.match_expressions[0].operator: \"Like\"")));
  EXPECT_OK(ValidateLabelSelector(Selector({{"env", "prod"}}), "where"));
}

// --- NeedsAccessReview ---

struct ReviewCase {
  std::string name;
  v1::IdentitySpec before;
  v1::IdentitySpec after;
  bool needed;
};

class NeedsAccessReviewTest : public ::testing::TestWithParam<ReviewCase> {};

TEST_P(NeedsAccessReviewTest, OnlyForAnotherSecretOrWiderNamespaces) {
  EXPECT_EQ(NeedsAccessReview(GetParam().before, GetParam().after), GetParam().needed);
}

std::vector<ReviewCase> ReviewCases() {
  const v1::LabelSelector prod = Selector({{"env", "prod"}});
  return {
      {"CreateFromNothing", v1::IdentitySpec(), ListSpec({"team-a"}), true},
      {"CreateWithoutNamespaces", v1::IdentitySpec(), Spec(), true},
      {"Unchanged", SelectorSpec(prod, {"team-a"}), SelectorSpec(prod, {"team-a"}), false},
      {"OtherSecretName", ListSpec({"team-a"}), WithRef("capi-system", "gcp-creds"), true},
      {"OtherSecretNamespace", ListSpec({"team-a"}), WithRef("other", "aws-creds"), true},
      {"FirstNamespaces", Spec(), ListSpec({"team-a"}), true},
      {"ListEntryAdded", ListSpec({"team-a"}), ListSpec({"team-a", "team-b"}), true},
      {"ListEntryRemoved", ListSpec({"team-a", "team-b"}), ListSpec({"team-a"}), false},
      {"ListReordered", ListSpec({"team-a", "team-b"}), ListSpec({"team-b", "team-a"}), false},
      {"ListEmptiedToUnset", ListSpec({"team-a"}), Spec(), false},
      {"SelectorAdded", ListSpec({"team-a"}), SelectorSpec(prod, {"team-a"}), true},
      {"SelectorChanged", SelectorSpec(prod), SelectorSpec(Selector({{"env", "dev"}})), true},
      {"SelectorNarrowedStillCounts", SelectorSpec(Selector({})), SelectorSpec(prod), true},
      {"SelectorRemoved", SelectorSpec(prod, {"team-a"}), ListSpec({"team-a"}), false},
  };
}

INSTANTIATE_TEST_SUITE_P(Changes, NeedsAccessReviewTest, ::testing::ValuesIn(ReviewCases()),
                         [](const auto& info) { return info.param.name; });

}  // namespace allowed_namespaces_test
}  // namespace credledger::projections
