// Tests of projections::WorkingSet and PackedState (projections/working_set.h,
// projections/packed_state.h): items beyond the bound are encoded with every change kept, the
// clock passes over a member opened again, an unbounded set keeps every item decoded until
// Compact, a summary follows the state in either form, and an item appended as a field gives
// the bytes of the enclosing message's own serialization.
#include "projections/working_set.h"

#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "credledger/v1/state.pb.h"
#include "gtest/gtest.h"
#include "projections/packed_state.h"
#include "store/event_codec.h"

namespace credledger::projections {
namespace working_set_test {

// The length of a condition's reason: a summary taken when the condition is encoded.
struct ReasonLength {
  static ReasonLength Of(const v1::Condition& condition) { return {condition.reason().size()}; }
  size_t length = 0;
};

using PackedCondition = PackedState<v1::Condition, ReasonLength>;

size_t Decoded(const std::vector<PackedCondition>& items) {
  size_t decoded = 0;
  for (const PackedCondition& item : items) decoded += item.decoded() ? 1 : 0;
  return decoded;
}

TEST(WorkingSetTest, ItemsOpenedBeyondTheBoundAreEncodedWithEveryChange) {
  std::vector<PackedCondition> items(10);
  WorkingSet<PackedCondition> working(3);
  for (int round = 0; round < 3; ++round) {
    for (size_t i = 0; i < items.size(); ++i) {
      v1::Condition& condition = working.Open(items[i]);
      condition.set_reason(absl::StrCat(condition.reason(), "r", round, "-", i, ";"));
      ASSERT_LE(working.size(), 3u);
    }
  }
  EXPECT_EQ(Decoded(items), 3u);
  for (size_t i = 0; i < items.size(); ++i) {
    EXPECT_EQ(items[i].Copy().reason(), absl::StrCat("r0-", i, ";r1-", i, ";r2-", i, ";")) << i;
  }
}

TEST(WorkingSetTest, TheClockPassesOverAMemberOpenedAgainOnce) {
  std::vector<PackedCondition> items(4);
  WorkingSet<PackedCondition> working(2);
  working.Open(items[0]);
  working.Open(items[1]);
  working.Open(items[0]);  // used again: kept when the next one comes in
  working.Open(items[2]);
  EXPECT_TRUE(items[0].decoded());
  EXPECT_FALSE(items[1].decoded());
  EXPECT_TRUE(items[2].decoded());
  // Its second chance spent, it goes next.
  working.Open(items[3]);
  EXPECT_FALSE(items[0].decoded());
  EXPECT_TRUE(items[2].decoded());
  EXPECT_TRUE(items[3].decoded());
}

TEST(WorkingSetTest, AnUnboundedSetKeepsEveryItemDecodedUntilCompactBoundsItAgain) {
  std::vector<PackedCondition> items(10);
  WorkingSet<PackedCondition> working(3);
  working.Unbound();
  for (size_t i = 0; i < items.size(); ++i) working.Open(items[i]).set_status(absl::StrCat(i));
  EXPECT_EQ(working.size(), 10u);
  EXPECT_EQ(Decoded(items), 10u);

  working.Compact();
  EXPECT_FALSE(working.unbounded());
  EXPECT_EQ(working.size(), 0u);
  EXPECT_EQ(Decoded(items), 0u);
  for (size_t i = 0; i < items.size(); ++i) EXPECT_EQ(items[i].Copy().status(), absl::StrCat(i));

  for (PackedCondition& item : items) working.Open(item);
  EXPECT_EQ(working.size(), 3u);
  EXPECT_EQ(Decoded(items), 3u);
}

TEST(WorkingSetTest, TheSummaryIsTheStatesDecodedOrEncoded) {
  std::vector<PackedCondition> items(2);
  WorkingSet<PackedCondition> working(1);
  working.Open(items[0]).set_reason("four");
  EXPECT_EQ(items[0].summary().length, 4u);
  working.Open(items[0]).set_reason("seven!!");
  EXPECT_EQ(items[0].summary().length, 7u);
  working.Open(items[1]);  // encodes items[0]
  ASSERT_FALSE(items[0].decoded());
  EXPECT_EQ(items[0].summary().length, 7u);
}

TEST(WorkingSetTest, ItemsAppendedAsFieldsAreTheEnclosingMessagesBytes) {
  std::vector<PackedState<v1::TargetStatus>> items(5);
  WorkingSet<PackedState<v1::TargetStatus>> working(2);
  v1::StatusFleetState fleet;
  for (size_t i = 0; i < items.size(); ++i) {
    v1::TargetStatus& status = working.Open(items[i]);
    status.set_namespace_("fleet-a");
    // Names of growing length, one past 127 bytes: a length prefix of two bytes.
    status.set_name(std::string(40 * i, 'x'));
    status.set_active(i % 2 == 0);
    status.mutable_reporting()->set_status("True");
    *fleet.add_targets() = status;
  }
  fleet.set_seq(77);
  ASSERT_EQ(working.size(), 2u);  // encoded and decoded items both

  std::string bytes;
  for (const auto& item : items) {
    item.AppendAsField(v1::StatusFleetState::kTargetsFieldNumber, bytes);
  }
  v1::StatusFleetState tail;
  tail.set_seq(77);
  bytes += store::SerializeDeterministic(tail);
  EXPECT_EQ(bytes, store::SerializeDeterministic(fleet));
}

TEST(WorkingSetTest, ANewItemHoldsTheEmptyState) {
  PackedState<v1::TargetStatus> item;
  EXPECT_EQ(item.Copy().ByteSizeLong(), 0u);
  std::string bytes;
  item.AppendAsField(1, bytes);
  EXPECT_EQ(bytes, std::string("\x0a\x00", 2));
}

}  // namespace working_set_test
}  // namespace credledger::projections
