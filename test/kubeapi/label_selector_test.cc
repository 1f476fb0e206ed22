// Unit tests of label and field selector parsing and matching.
#include "gtest/gtest.h"
#include "test/kubeapi/field_selector.h"
#include "test/kubeapi/label_selector.h"

namespace credledger::kubeapi {
namespace label_selector_test {

bool Matches(const std::string& selector, const nlohmann::json& labels) {
  absl::StatusOr<LabelSelector> s = LabelSelector::Parse(selector);
  EXPECT_TRUE(s.ok()) << selector << ": " << s.status();
  return s.ok() && s->Matches(labels);
}

TEST(LabelSelectorTest, EmptySelectorMatchesEverything) {
  EXPECT_TRUE(Matches("", nullptr));
  EXPECT_TRUE(Matches("  ", {{"a", "b"}}));
}

TEST(LabelSelectorTest, EqualityAndInequality) {
  nlohmann::json labels = {{"app", "db"}, {"tier", "backend"}};
  EXPECT_TRUE(Matches("app=db", labels));
  EXPECT_TRUE(Matches("app == db", labels));
  EXPECT_FALSE(Matches("app=web", labels));
  EXPECT_TRUE(Matches("app!=web", labels));
  EXPECT_TRUE(Matches("missing!=x", labels)) << "!= matches objects without the key";
  EXPECT_TRUE(Matches("app=db,tier=backend", labels));
  EXPECT_FALSE(Matches("app=db,tier=frontend", labels));
}

TEST(LabelSelectorTest, SetBasedAndExistence) {
  nlohmann::json labels = {{"app", "db"}};
  EXPECT_TRUE(Matches("app in (web, db)", labels));
  EXPECT_FALSE(Matches("app notin (web,db)", labels));
  EXPECT_TRUE(Matches("other notin (x)", labels));
  EXPECT_TRUE(Matches("app", labels));
  EXPECT_FALSE(Matches("!app", labels));
  EXPECT_TRUE(Matches("!other", labels));
  EXPECT_TRUE(Matches("solar.opendefense.cloud/release", {{"solar.opendefense.cloud/release", "r1"}}));
}

TEST(LabelSelectorTest, IntegerComparisons) {
  EXPECT_TRUE(Matches("replicas>2", {{"replicas", "3"}}));
  EXPECT_FALSE(Matches("replicas<2", {{"replicas", "3"}}));
  EXPECT_FALSE(LabelSelector::Parse("replicas>x").ok());
}

TEST(LabelSelectorTest, MalformedSelectorsAreRejected) {
  for (const char* bad : {"app in", "app in (a", "a b", "=x", "app=bad value!", "-bad=x"}) {
    EXPECT_FALSE(LabelSelector::Parse(bad).ok()) << bad;
  }
}

TEST(FieldSelectorTest, MatchesDottedPathsAndReportsRequiredName) {
  absl::StatusOr<FieldSelector> s = FieldSelector::Parse("metadata.name=a,type!=Opaque");
  ASSERT_TRUE(s.ok());
  EXPECT_TRUE(s->Matches({{"metadata", {{"name", "a"}}}, {"type", "kubernetes.io/tls"}}));
  EXPECT_FALSE(s->Matches({{"metadata", {{"name", "a"}}}, {"type", "Opaque"}}));
  EXPECT_EQ(s->RequiredName(), "a");
  EXPECT_FALSE(FieldSelector::Parse("nonsense").ok());
}

}  // namespace label_selector_test
}  // namespace credledger::kubeapi
