// AuditApi's as-of answers and a forged projection snapshot (docs/audit.md, "Snapshots";
// docs/forensics.md): the server's api, which checks snapshots with the service's key, refuses
// it and starts from an earlier one that verifies; the api of the offline --db commands, which
// has no key, loads no snapshot at all. Neither shows the forged state.
#include <memory>
#include <optional>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "projections/credential_projector.h"
#include "projections/status_projector.h"
#include "service/offline/audit_api.h"
#include "test/projections/fleet_log.h"
#include "test/support/snapshot_tampering.h"
#include "test/support/status_matchers.h"
#include "test/support/test_snapshot_guard.h"

namespace credledger::service {
namespace audit_api_snapshots_test {

using ::testing::HasSubstr;
using ::testing::Not;

constexpr absl::Duration kWait = absl::Seconds(30);  // only reached when a test fails

class AuditApiSnapshotsTest : public testing::FleetLogTest {
 protected:
  void SetUp() override {
    FleetLogTest::SetUp();
    ASSERT_OK_AND_ASSIGN(guard_, testing::TestSnapshotGuard::Create());
    // Projectors following the log write snapshots every 5 events.
    ASSERT_OK_AND_ASSIGN(auto credentials,
                         projections::CredentialProjector::Start(
                             store_.get(), {.snapshot_every = 5, .snapshots = guard_->get()}));
    ASSERT_OK_AND_ASSIGN(auto statuses,
                         projections::StatusProjector::Start(
                             store_.get(), {.snapshot_every = 5, .snapshots = guard_->get()}));
    ASSERT_OK(driver_->RunPhaseOne());
    ASSERT_TRUE(credentials->WaitForSeq(store_->HeadSeq(), kWait));
    ASSERT_TRUE(statuses->WaitForSeq(store_->HeadSeq(), kWait));
  }

  std::unique_ptr<testing::TestSnapshotGuard> guard_;
};

TEST_F(AuditApiSnapshotsTest, StateAtAndDiffNeverShowAForgedSnapshot) {
  const int64_t head = store_->HeadSeq();
  ASSERT_OK_AND_ASSIGN(std::optional<store::Snapshot> snapshot,
                       store_->LoadSnapshot(projections::kCredentialProjectionName, head));
  ASSERT_TRUE(snapshot.has_value());
  ASSERT_OK_AND_ASSIGN(snapshot->state, testing::ForgeCredentialFleet(snapshot->state, "fleet-a",
                                                                      "edge-1", "ghost"));
  ASSERT_OK(testing::OverwriteSnapshotRow(dir_.path() / "events.db", *snapshot));
  ASSERT_OK_AND_ASSIGN(projections::CredentialProjection rebuilt,
                       testing::FoldFromSeqOne(*store_, snapshot->seq));

  AuditApi served(store_.get(), nullptr, &clock_, guard_->get());
  AuditApi offline(store_.get(), nullptr, &clock_, /*snapshots=*/nullptr);
  for (AuditApi* api : {&served, &offline}) {
    v1::GetStateAtRequest at;
    at.mutable_as_of()->set_seq(snapshot->seq);
    ASSERT_OK_AND_ASSIGN(v1::GetStateAtResponse state, api->GetStateAt(at));
    EXPECT_EQ(state.targets_size(),
              static_cast<int>(rebuilt.List("", /*include_finalized=*/true).size()));
    EXPECT_THAT(state.ShortDebugString(), Not(HasSubstr("ghost")));

    v1::DiffRequest diff;
    diff.mutable_from()->set_seq(0);
    diff.mutable_to()->set_seq(head);
    ASSERT_OK_AND_ASSIGN(v1::DiffResponse changes, api->Diff(diff));
    EXPECT_THAT(changes.ShortDebugString(), Not(HasSubstr("ghost")));
  }
  // The served api refused it twice (the state at its seq, and the diff's end); the offline
  // one never loaded it.
  EXPECT_EQ(guard_->get()->Rejected().at(projections::kCredentialProjectionName), 2);
}

}  // namespace audit_api_snapshots_test
}  // namespace credledger::service
