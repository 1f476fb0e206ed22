// LivenessBuffer: heartbeats waiting for the next LivenessObserved batch (docs/reports.md,
// "Liveness and staleness").
#include "service/api/liveness_buffer.h"

#include <gtest/gtest.h>

#include "projections/proto_time.h"

namespace credledger::service {
namespace liveness_buffer_test {

const absl::Time kT0 = absl::FromUnixSeconds(1767225600);

v1::LivenessEntry Heartbeat(const std::string& name, const std::string& uid, absl::Time received,
                            absl::Time report_time) {
  v1::LivenessEntry e;
  e.set_namespace_("demo");
  e.set_name(name);
  e.set_target_uid(uid);
  *e.mutable_received_at() = projections::ToProto(received);
  *e.mutable_last_report_time() = projections::ToProto(report_time);
  return e;
}

TEST(LivenessBufferTest, LaterHeartbeatReplacesPendingOneAndDrainOrdersByName) {
  LivenessBuffer buffer;
  buffer.Record(Heartbeat("edge-2", "u2", kT0, kT0));
  buffer.Record(Heartbeat("edge-1", "u1", kT0, kT0));
  buffer.Record(Heartbeat("edge-1", "u1", kT0 + absl::Seconds(30), kT0 + absl::Seconds(29)));
  EXPECT_EQ(buffer.pending(), 2u);
  EXPECT_EQ(buffer.PendingSeenAt("demo", "edge-1"), kT0 + absl::Seconds(30));

  std::vector<v1::LivenessEntry> drained = buffer.Drain();
  ASSERT_EQ(drained.size(), 2u);
  EXPECT_EQ(drained[0].name(), "edge-1");
  EXPECT_EQ(projections::FromProto(drained[0].received_at()), kT0 + absl::Seconds(30));
  EXPECT_EQ(drained[1].name(), "edge-2");
  EXPECT_EQ(buffer.pending(), 0u);
  EXPECT_FALSE(buffer.PendingSeenAt("demo", "edge-1").has_value());
}

TEST(LivenessBufferTest, FloorOutlivesTheDrainAndBelongsToTheIncarnation) {
  LivenessBuffer buffer;
  buffer.Record(Heartbeat("edge-1", "u1", kT0, kT0 + absl::Seconds(5)));
  buffer.Drain();
  EXPECT_EQ(buffer.Floor("demo", "edge-1", "u1"), kT0 + absl::Seconds(5));
  EXPECT_FALSE(buffer.Floor("demo", "edge-1", "other-uid").has_value());
  EXPECT_FALSE(buffer.Floor("demo", "edge-2", "u1").has_value());

  // A re-created Target starts its own floor, even at an earlier agent time.
  buffer.Record(Heartbeat("edge-1", "u9", kT0, kT0));
  EXPECT_EQ(buffer.Floor("demo", "edge-1", "u9"), kT0);
}

TEST(LivenessBufferTest, RestoreKeepsHeartbeatsRecordedSinceTheDrain) {
  LivenessBuffer buffer;
  buffer.Record(Heartbeat("edge-1", "u1", kT0, kT0));
  buffer.Record(Heartbeat("edge-2", "u2", kT0, kT0));
  std::vector<v1::LivenessEntry> batch = buffer.Drain();
  buffer.Record(Heartbeat("edge-1", "u1", kT0 + absl::Seconds(30), kT0 + absl::Seconds(30)));
  buffer.Restore(std::move(batch));
  EXPECT_EQ(buffer.pending(), 2u);
  EXPECT_EQ(buffer.PendingSeenAt("demo", "edge-1"), kT0 + absl::Seconds(30));
  EXPECT_EQ(buffer.PendingSeenAt("demo", "edge-2"), kT0);
}

TEST(LivenessBufferTest, RecordIfNewerRecordsOnlyAboveTheFloorOfTheSameIncarnation) {
  LivenessBuffer buffer;
  EXPECT_TRUE(buffer.RecordIfNewer(Heartbeat("edge-1", "u1", kT0, kT0 + absl::Seconds(5))));
  EXPECT_FALSE(buffer.RecordIfNewer(Heartbeat("edge-1", "u1", kT0, kT0 + absl::Seconds(5))));
  EXPECT_FALSE(buffer.RecordIfNewer(Heartbeat("edge-1", "u1", kT0, kT0 + absl::Seconds(4))));
  EXPECT_EQ(buffer.Floor("demo", "edge-1", "u1"), kT0 + absl::Seconds(5));
  EXPECT_TRUE(buffer.RecordIfNewer(Heartbeat("edge-1", "u9", kT0, kT0)));
  EXPECT_EQ(buffer.Floor("demo", "edge-1", "u9"), kT0);
  EXPECT_EQ(buffer.pending(), 1u);
}

}  // namespace liveness_buffer_test
}  // namespace credledger::service
