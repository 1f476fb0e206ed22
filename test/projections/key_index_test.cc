// Tests of projections::KeyIndex (projections/key_index.h): keys across many blocks and longer
// than a block are found, Set replaces, a moved index keeps every key and the one moved from is
// empty and usable.
#include "projections/key_index.h"

#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"

namespace credledger::projections {
namespace {

TEST(KeyIndexTest, FindsEveryKeySetAcrossBlocksAndAfterAMove) {
  std::vector<int> items(20000);
  std::vector<std::string> keys;
  for (size_t i = 0; i < items.size(); ++i) {
    // Keys of 20 to 40 bytes fill several blocks; one is longer than a block.
    keys.push_back(
        i == 7000 ? std::string(200 * 1024, 'k')
                  : absl::StrCat("target/fleet-", i % 20, "/edge-", i, std::string(i % 21, 'x')));
  }
  KeyIndex<int> index;
  for (size_t i = 0; i < items.size(); ++i) index.Set(keys[i], &items[i]);
  for (size_t i = 0; i < items.size(); ++i) ASSERT_EQ(index.Find(keys[i]), &items[i]) << i;
  EXPECT_EQ(index.Find("target/fleet-0/edge-20000"), nullptr);
  EXPECT_EQ(index.Find(""), nullptr);

  int other = 0;
  index.Set(keys[3], &other);
  EXPECT_EQ(index.Find(keys[3]), &other);

  KeyIndex<int> moved = std::move(index);
  EXPECT_EQ(moved.Find(keys[3]), &other);
  for (size_t i = 0; i < items.size(); ++i) {
    if (i == 3) continue;
    ASSERT_EQ(moved.Find(keys[i]), &items[i]) << i;
  }
}

TEST(KeyIndexTest, AMovedFromIndexIsEmptyAndUsable) {
  int first = 0;
  int second = 0;
  KeyIndex<int> index;
  index.Set("target/fleet-a/edge-1", &first);
  KeyIndex<int> moved = std::move(index);
  EXPECT_EQ(index.Find("target/fleet-a/edge-1"), nullptr);  // NOLINT(bugprone-use-after-move)
  index.Set("target/fleet-a/edge-2", &second);
  EXPECT_EQ(index.Find("target/fleet-a/edge-2"), &second);
  EXPECT_EQ(moved.Find("target/fleet-a/edge-1"), &first);
  EXPECT_EQ(moved.Find("target/fleet-a/edge-2"), nullptr);
}

TEST(KeyIndexTest, TheEmptyKeyIsAKeyLikeAnyOther) {
  int item = 0;
  KeyIndex<int> index;
  index.Set("", &item);
  EXPECT_EQ(index.Find(""), &item);
  EXPECT_EQ(index.Find("a"), nullptr);
}

}  // namespace
}  // namespace credledger::projections
