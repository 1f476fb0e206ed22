// Tests of ReadSnapshotItems (projections/snapshot_items.h): a fleet snapshot read item by item,
// its other fields parsed into the head, malformed bytes refused.
#include "projections/snapshot_items.h"

#include <string>
#include <vector>

#include "credledger/v1/state.pb.h"
#include "gtest/gtest.h"
#include "store/event_codec.h"

namespace credledger::projections {
namespace snapshot_items_test {

constexpr int kTargets = v1::CredentialFleetState::kTargetsFieldNumber;

v1::CredentialFleetState Fleet() {
  v1::CredentialFleetState fleet;
  fleet.mutable_service()->set_agent_token_ttl_seconds(3600);
  for (const char* name : {"edge-1", "edge-2", "edge-3"}) {
    v1::TargetState* target = fleet.add_targets();
    target->set_namespace_("fleet");
    target->set_name(name);
  }
  fleet.set_seq(42);
  return fleet;
}

TEST(SnapshotItemsTest, ItemsArePassedInOrderAndTheOtherFieldsParsedIntoTheHead) {
  const v1::CredentialFleetState fleet = Fleet();
  v1::CredentialFleetState head;
  std::vector<std::string> items;
  ASSERT_TRUE(ReadSnapshotItems(store::SerializeDeterministic(fleet), kTargets, head,
                                [&items](absl::string_view item) {
                                  items.emplace_back(item);
                                  return true;
                                }));
  ASSERT_EQ(items.size(), 3u);
  for (int i = 0; i < 3; ++i) {
    EXPECT_EQ(items[i], store::SerializeDeterministic(fleet.targets(i))) << i;
  }
  EXPECT_EQ(head.targets_size(), 0);
  EXPECT_EQ(head.seq(), 42);
  EXPECT_EQ(head.service().agent_token_ttl_seconds(), 3600);
}

TEST(SnapshotItemsTest, AnItemRefusedStopsTheRead) {
  int seen = 0;
  v1::CredentialFleetState head;
  EXPECT_FALSE(ReadSnapshotItems(store::SerializeDeterministic(Fleet()), kTargets, head,
                                 [&seen](absl::string_view) { return ++seen < 2; }));
  EXPECT_EQ(seen, 2);
}

TEST(SnapshotItemsTest, MalformedBytesAreRefused) {
  const std::string whole = store::SerializeDeterministic(Fleet());
  const std::vector<std::string> malformed = {
      whole.substr(0, whole.size() - 3),           // the last item cut short
      std::string("\x12\xff\xff\xff\xff\xff", 6),  // an item's length beyond any varint32
      std::string("\x00\x01", 2),                  // tag 0
      whole + std::string("\x0a\x05\x08", 3),      // the head's field cut short
  };
  for (const std::string& bytes : malformed) {
    v1::CredentialFleetState head;
    EXPECT_FALSE(ReadSnapshotItems(bytes, kTargets, head, [](absl::string_view) { return true; }))
        << ::testing::PrintToString(bytes);
  }
}

TEST(SnapshotItemsTest, NoItemsIsAHeadAlone) {
  v1::CredentialFleetState fleet;
  fleet.set_seq(7);
  v1::CredentialFleetState head;
  int seen = 0;
  ASSERT_TRUE(ReadSnapshotItems(store::SerializeDeterministic(fleet), kTargets, head,
                                [&seen](absl::string_view) { return ++seen > 0; }));
  EXPECT_EQ(seen, 0);
  EXPECT_EQ(head.seq(), 7);
  v1::CredentialFleetState empty;
  ASSERT_TRUE(ReadSnapshotItems("", kTargets, empty, [](absl::string_view) { return true; }));
  EXPECT_EQ(empty.seq(), 0);
}

}  // namespace snapshot_items_test
}  // namespace credledger::projections
