// HeartbeatIndex: the baselines heartbeats are decided against without the writer, and the
// Writes that keep them current (docs/reports.md, "How a heartbeat is decided").
#include "service/api/heartbeat_index.h"

#include <optional>
#include <string>
#include <utility>

#include "gtest/gtest.h"
#include "projections/proto_time.h"

namespace credledger::service {
namespace heartbeat_index_test {

const absl::Time kT0 = absl::FromUnixSeconds(1767225600);
constexpr char kUid[] = "6f1c2a9e-0b7d-4e52-9c3a-1d2e3f405162";

// The fold of an active Target whose last report, of `revision`, was taken at `report_time`,
// with its target stream at `target_version`.
ReportFolds Fold(const std::string& revision, absl::Time report_time, int64_t target_version = 0) {
  ReportFolds folds;
  folds.state.set_target_uid(kUid);
  folds.state.set_phase(v1::TargetState::PHASE_ACTIVE);
  folds.state.set_stream_version(target_version);
  v1::TargetReportSpec& report = *folds.status.mutable_last_report();
  *report.mutable_last_report_time() = projections::ToProto(report_time);
  v1::ReleaseStatus& release = *report.add_releases();
  release.set_name("podinfo");
  release.set_namespace_("apps");
  release.set_phase(v1::RELEASE_PHASE_READY);
  release.set_revision(revision);
  *folds.status.mutable_last_report_time() = projections::ToProto(report_time);
  return folds;
}

// Runs one Write of demo/edge-1 that decides `after` (nothing: a failed command).
void Decide(HeartbeatIndex& index, const std::optional<ReportFolds>& after) {
  HeartbeatIndex::Write write = index.Begin("demo", "edge-1");
  if (after.has_value()) write.Decided(*after);
}

v1::LivenessEntry Heartbeat(absl::Time report_time) {
  v1::LivenessEntry entry;
  entry.set_namespace_("demo");
  entry.set_name("edge-1");
  entry.set_target_uid(kUid);
  *entry.mutable_received_at() = projections::ToProto(report_time);
  *entry.mutable_last_report_time() = projections::ToProto(report_time);
  return entry;
}

TEST(HeartbeatIndexTest, AWriteInstallsTheBaselineOfTheFoldItDecided) {
  HeartbeatIndex index;
  EXPECT_FALSE(index.Find("demo", "edge-1").has_value());
  const ReportFolds after = Fold("1.0.0", kT0, 3);
  Decide(index, after);
  std::optional<HeartbeatIndex::Snapshot> found = index.Find("demo", "edge-1");
  ASSERT_TRUE(found.has_value());
  EXPECT_EQ(found->baseline.last_report, ReportContentDigest(after.status.last_report()));
  EXPECT_EQ(found->baseline.last_report_time, kT0);
  EXPECT_EQ(found->baseline.newest_report_time, kT0);
  EXPECT_EQ(found->target_uid, kUid);
  EXPECT_EQ(found->target_version, 3);
  EXPECT_FALSE(index.Find("demo", "edge-2").has_value());
}

TEST(HeartbeatIndexTest, AUidShorterThanAUuidIsKeptAsItIs) {
  for (const std::string uid : {"", "u1", "sixteen-bytes-ab"}) {
    HeartbeatIndex index;
    ReportFolds after = Fold("1.0.0", kT0);
    after.state.set_target_uid(uid);
    Decide(index, after);
    std::optional<HeartbeatIndex::Snapshot> found = index.Find("demo", "edge-1");
    ASSERT_TRUE(found.has_value()) << uid;
    EXPECT_EQ(found->target_uid, uid);
  }
}

TEST(HeartbeatIndexTest, NoBaselineWhileAWriteRunsAndAHeartbeatFoundBeforeItCannotCommit) {
  HeartbeatIndex index;
  LivenessBuffer liveness;
  Decide(index, Fold("1.0.0", kT0));
  std::optional<HeartbeatIndex::Snapshot> before = index.Find("demo", "edge-1");
  ASSERT_TRUE(before.has_value());
  {
    HeartbeatIndex::Write write = index.Begin("demo", "edge-1");
    EXPECT_FALSE(index.Find("demo", "edge-1").has_value());
    EXPECT_FALSE(index.Commit(*before, Heartbeat(kT0 + absl::Seconds(1)), liveness));
  }
  // Ended without a decision (the command failed): the baseline is the same, but a heartbeat
  // found before the Write began still cannot commit.
  EXPECT_FALSE(index.Commit(*before, Heartbeat(kT0 + absl::Seconds(1)), liveness));
  EXPECT_EQ(liveness.pending(), 0u);
  std::optional<HeartbeatIndex::Snapshot> after = index.Find("demo", "edge-1");
  ASSERT_TRUE(after.has_value());
  EXPECT_EQ(after->baseline.last_report, before->baseline.last_report);
  EXPECT_TRUE(index.Commit(*after, Heartbeat(kT0 + absl::Seconds(1)), liveness));
  EXPECT_EQ(liveness.PendingSeenAt("demo", "edge-1"), kT0 + absl::Seconds(1));
}

TEST(HeartbeatIndexTest, OfTwoHeartbeatsFoundTogetherTheOlderCannotCommitAfterTheNewer) {
  HeartbeatIndex index;
  LivenessBuffer liveness;
  Decide(index, Fold("1.0.0", kT0));
  std::optional<HeartbeatIndex::Snapshot> found = index.Find("demo", "edge-1");
  ASSERT_TRUE(found.has_value());
  EXPECT_TRUE(index.Commit(*found, Heartbeat(kT0 + absl::Seconds(2)), liveness));
  EXPECT_FALSE(index.Commit(*found, Heartbeat(kT0 + absl::Seconds(1)), liveness));
  EXPECT_EQ(liveness.Floor("demo", "edge-1", kUid), kT0 + absl::Seconds(2));
}

TEST(HeartbeatIndexTest, OverlappingWritesLeaveNoBaseline) {
  HeartbeatIndex index;
  Decide(index, Fold("1.0.0", kT0));
  {
    HeartbeatIndex::Write first = index.Begin("demo", "edge-1");
    HeartbeatIndex::Write second = index.Begin("demo", "edge-1");
    // Their folds may have been taken in either order: neither is known to be the newest.
    second.Decided(Fold("1.0.2", kT0 + absl::Seconds(2)));
    first.Decided(Fold("1.0.1", kT0 + absl::Seconds(1)));
  }
  EXPECT_FALSE(index.Find("demo", "edge-1").has_value());
  EXPECT_EQ(index.size(), 0u);
  Decide(index, Fold("1.0.3", kT0 + absl::Seconds(3)));
  ASSERT_TRUE(index.Find("demo", "edge-1").has_value());
}

TEST(HeartbeatIndexTest, AFoldAHeartbeatCannotBeDecidedAgainstOutsideTheWriterLeavesNone) {
  ReportFolds deleting = Fold("1.0.0", kT0);
  deleting.state.set_phase(v1::TargetState::PHASE_DELETING);
  ReportFolds skewed = Fold("1.0.0", kT0);
  skewed.status.mutable_clock_skew()->set_target_uid(kUid);
  ReportFolds no_report = Fold("1.0.0", kT0);
  no_report.status.clear_last_report();
  ReportFolds long_uid = Fold("1.0.0", kT0);
  long_uid.state.set_target_uid("6F1C2A9E-0B7D-4E52-9C3A-1D2E3F405162");  // not lowercase
  ReportFolds invalid = Fold("1.0.0", kT0);  // accepted under rules that have since changed
  invalid.status.mutable_last_report()->mutable_releases(0)->set_name("Not_A_Label");
  for (const ReportFolds& after : {deleting, skewed, no_report, long_uid, invalid}) {
    HeartbeatIndex index;
    Decide(index, Fold("1.0.0", kT0));
    Decide(index, after);
    EXPECT_FALSE(index.Find("demo", "edge-1").has_value());
    EXPECT_EQ(index.size(), 0u);
  }
}

}  // namespace heartbeat_index_test
}  // namespace credledger::service
