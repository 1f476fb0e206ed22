// Sealed snapshots at the projector (docs/audit.md, "Snapshots"): whoever holds the database
// file can rewrite a snapshot row, but a snapshot whose seal does not verify is never loaded,
// neither at start (Projector::Follow) nor by as-of replay (AsOf, AsOfTogether). The
// projection then starts from the nearest earlier snapshot that verifies, or from seq 1; the
// refusal is logged (projection, seq, reason; never the state) and counted.
//
// The attack: 11 Targets registered and demo/t3 revoked under a projector that snapshots every
// 5 events; then the newest credential snapshot is decoded, t3's revocation undone, a Target
// demo/ghost added, and the row updated on a separate SQLite connection.
#include "projections/snapshot_guard.h"

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "audit/snapshot_seal.h"
#include "common/sha256.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "projections/credential_projector.h"
#include "projections/status_projector.h"
#include "test/projections/fleet_log.h"
#include "test/support/captured_log.h"
#include "test/support/recording_event_store.h"
#include "test/support/snapshot_tampering.h"
#include "test/support/status_matchers.h"
#include "test/support/test_snapshot_guard.h"

namespace credledger::projections {
namespace snapshot_guard_test {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Not;

constexpr int64_t kSnapshotEvery = 5;
constexpr int kTargets = 11;
constexpr absl::Duration kWait = absl::Seconds(30);  // only reached when a test fails
constexpr char kRefused[] =
    "projection snapshot refused: it does not verify; folding from an earlier one";

// The pages a catch-up read (a PageReader's reads of the fields a fold needs), in order.
std::vector<testing::RecordingEventStore::Read> CatchUpPages(
    const testing::RecordingEventStore& recording) {
  std::vector<testing::RecordingEventStore::Read> pages;
  for (const testing::RecordingEventStore::Read& read : recording.reads()) {
    if (read.fields == store::EventFields::kForFolding) pages.push_back(read);
  }
  return pages;
}

// Registers demo/<prefix>1..11 through `driver`.
void RegisterTargets(testing::FleetDriver& driver, const std::string& prefix) {
  for (int i = 1; i <= kTargets; ++i) {
    EXPECT_OK(driver.Do(
        "demo", absl::StrCat(prefix, i),
        service::RegisterTarget{absl::StrFormat("00000000-0000-4000-8000-%012d", i), true}));
  }
}

// Public: the forgeries of SnapshotForgeryTest use it.
class SnapshotGuardTest : public testing::FleetLogTest {
 public:
  void SetUp() override {
    FleetLogTest::SetUp();
    ASSERT_OK_AND_ASSIGN(guard_, testing::TestSnapshotGuard::Create());
    ASSERT_OK(driver_->SetCredentialsEnabled(true));
  }

  std::filesystem::path db() const { return dir_.path() / "events.db"; }

  // A credential projector on `store` with the guard, or without one when `guarded` is false.
  std::unique_ptr<CredentialProjector> Start(store::EventStore* store, bool guarded = true) {
    auto projector = CredentialProjector::Start(
        store, {.snapshot_every = kSnapshotEvery, .snapshots = guarded ? guard_->get() : nullptr});
    EXPECT_OK(projector);
    return projector.ok() ? *std::move(projector) : nullptr;
  }

  // Registers demo/t1..t11 and revokes demo/t3 while a guarded projector follows and writes
  // snapshots; returns the seq of the revocation.
  int64_t RegisterAndRevokeWithSnapshots() {
    std::unique_ptr<CredentialProjector> projector = Start(store_.get());
    EXPECT_NE(projector, nullptr);
    if (projector == nullptr) return 0;
    RegisterTargets(*driver_, "t");
    EXPECT_OK(driver_->Do("demo", "t3", service::Revoke{"laptop lost"}));
    const int64_t revoked_at = store_->HeadSeq();
    // One more snapshot interval (rotations of the others), so that a snapshot holds the
    // revocation.
    for (int i = 1; i <= kTargets && store_->HeadSeq() < revoked_at + kSnapshotEvery; ++i) {
      if (i == 3) continue;
      EXPECT_OK(driver_->Do("demo", absl::StrCat("t", i), service::RequestRotation{"r"}));
    }
    EXPECT_GE(store_->HeadSeq(), revoked_at + kSnapshotEvery);
    EXPECT_TRUE(projector->WaitForSeq(store_->HeadSeq(), kWait));
    EXPECT_OK(projector->status());
    return revoked_at;
  }  // stopping the projector finishes its last snapshot write

  // The newest credential snapshot at or before `max_seq`, as stored.
  store::Snapshot StoredSnapshot(int64_t max_seq) {
    absl::StatusOr<std::optional<store::Snapshot>> snapshot =
        store_->LoadSnapshot(kCredentialProjectionName, max_seq);
    EXPECT_OK(snapshot);
    EXPECT_TRUE(snapshot.ok() && snapshot->has_value());
    return snapshot.ok() && snapshot->has_value() ? **snapshot : store::Snapshot{};
  }

  // `snapshot` with the attack's state: t3 not revoked, demo/ghost added.
  store::Snapshot WithForgedState(store::Snapshot snapshot) {
    absl::StatusOr<std::string> forged =
        testing::ForgeCredentialFleet(snapshot.state, "demo", "t3", "ghost");
    EXPECT_OK(forged);
    snapshot.state = forged.ok() ? *forged : "";
    return snapshot;
  }

  // Expects `p` to show the log as it is: t3 revoked, no ghost, every Target.
  void ExpectTheTrueFleet(const CredentialProjection& p) {
    EXPECT_FALSE(p.Get("demo", "ghost").has_value());
    std::optional<v1::TargetState> t3 = p.Get("demo", "t3");
    ASSERT_TRUE(t3.has_value());
    EXPECT_TRUE(t3->revoked());
    EXPECT_EQ(p.List("demo", /*include_finalized=*/true).size(), static_cast<size_t>(kTargets));
  }

  std::unique_ptr<testing::TestSnapshotGuard> guard_;
};

// The attack at the projector: without the seal the restarted projector showed demo/ghost and
// an unrevoked t3, and so did every as-of answer from that snapshot.
TEST_F(SnapshotGuardTest, AForgedCredentialSnapshotIsNeverLoaded) {
  RegisterAndRevokeWithSnapshots();
  const int64_t head = store_->HeadSeq();
  const store::Snapshot genuine = StoredSnapshot(head);
  ASSERT_OK(testing::OverwriteSnapshotRow(db(), WithForgedState(genuine)));
  testing::CapturedLog log;

  std::unique_ptr<CredentialProjector> restarted = Start(store_.get());
  ASSERT_NE(restarted, nullptr);
  EXPECT_EQ(restarted->seq(), head);
  EXPECT_FALSE(restarted->Get("demo", "ghost").has_value());
  ASSERT_TRUE(restarted->Get("demo", "t3").has_value());
  EXPECT_TRUE(restarted->Get("demo", "t3")->revoked());
  ASSERT_OK_AND_ASSIGN(CredentialProjection rebuilt, testing::FoldFromSeqOne(*store_, head));
  ASSERT_NO_FATAL_FAILURE(ExpectTheTrueFleet(rebuilt));
  std::vector<v1::TargetState> listed = restarted->List("", true, nullptr);
  EXPECT_EQ(listed.size(), rebuilt.List("", true).size());

  for (int64_t seq : {genuine.seq, head}) {
    SCOPED_TRACE(seq);
    ASSERT_OK_AND_ASSIGN(CredentialProjection as_of,
                         CredentialProjector::AsOf(store_.get(), seq, guard_->get()));
    ASSERT_NO_FATAL_FAILURE(ExpectTheTrueFleet(as_of));
    auto together =
        AsOfTogether<CredentialProjection, StatusProjection>(store_.get(), seq, guard_->get());
    ASSERT_OK(together);
    ASSERT_NO_FATAL_FAILURE(ExpectTheTrueFleet(together->first));
  }

  // Refused at the start and at each of the four as-of answers, each time logged and counted.
  EXPECT_EQ(guard_->get()->Rejected(),
            (std::map<std::string, int64_t>{{kCredentialProjectionName, 5}}));
  std::vector<nlohmann::json> refused = log.Lines(kRefused);
  ASSERT_EQ(refused.size(), 5u);
  for (const nlohmann::json& line : refused) {
    EXPECT_EQ(line.value("level", ""), "warning");
    EXPECT_EQ(line.value("projection", ""), kCredentialProjectionName);
    EXPECT_EQ(line.value("seq", ""), absl::StrCat(genuine.seq));
    EXPECT_THAT(line.value("reason", ""), HasSubstr("its state hashes to"));
    EXPECT_THAT(line.dump(), Not(HasSubstr("ghost")));
  }
}

// One way to forge a snapshot, and what the refusal says.
struct Forgery {
  std::string name;
  // Changes the stored snapshot (or, through `test`, the log under it).
  std::function<void(SnapshotGuardTest& test, store::Snapshot& snapshot)> forge;
  std::string reason;
};

// Names a forgery in test output.
void PrintTo(const Forgery& forgery, std::ostream* out) { *out << forgery.name; }

class SnapshotForgeryTest : public SnapshotGuardTest,
                            public ::testing::WithParamInterface<Forgery> {};

// Each forgery of the newest snapshot is refused, and the projector starts from the one
// before it (which the recording store proves: that snapshot is the last one loaded, and the
// catch-up reads the events after its seq).
TEST_P(SnapshotForgeryTest, TheNewestIsRefusedAndTheNearestEarlierOneThatVerifiesIsUsed) {
  RegisterAndRevokeWithSnapshots();
  const int64_t head = store_->HeadSeq();
  store::Snapshot snapshot = StoredSnapshot(head);
  const int64_t newest = snapshot.seq;
  ASSERT_GT(newest, kSnapshotEvery);
  GetParam().forge(*this, snapshot);
  if (HasFatalFailure()) return;
  ASSERT_OK(testing::OverwriteSnapshotRow(db(), snapshot));
  testing::CapturedLog log;

  testing::RecordingEventStore recording(store_.get());
  std::unique_ptr<CredentialProjector> restarted = Start(&recording);
  ASSERT_NE(restarted, nullptr);
  EXPECT_EQ(restarted->seq(), head);
  restarted.reset();

  EXPECT_THAT(recording.loaded_snapshots(), ElementsAre(newest, newest - kSnapshotEvery));
  const std::vector<testing::RecordingEventStore::Read> pages = CatchUpPages(recording);
  ASSERT_FALSE(pages.empty());
  EXPECT_EQ(pages.front().after_seq, newest - kSnapshotEvery);
  int64_t folded = 0;
  for (const testing::RecordingEventStore::Read& page : pages) folded += page.events;
  EXPECT_EQ(folded, head - (newest - kSnapshotEvery));

  EXPECT_EQ(guard_->get()->Rejected().at(kCredentialProjectionName), 1);
  std::vector<nlohmann::json> refused = log.Lines(kRefused);
  ASSERT_EQ(refused.size(), 1u);
  EXPECT_EQ(refused[0].value("seq", ""), absl::StrCat(newest));
  EXPECT_THAT(refused[0].value("reason", ""), HasSubstr(GetParam().reason));
}

// A seal made with `key` over `snapshot` as it now is, for the event at its seq with
// `chain_hash`.
void Reseal(const audit::SigningKey& key, const std::string& chain_hash,
            store::Snapshot& snapshot) {
  ASSERT_OK(audit::SealSnapshot(key, chain_hash, snapshot));
}

INSTANTIATE_TEST_SUITE_P(
    Forgeries, SnapshotForgeryTest,
    ::testing::Values(
        Forgery{"StateBytes",
                [](SnapshotGuardTest& test, store::Snapshot& s) { s = test.WithForgedState(s); },
                "its state hashes to"},
        Forgery{"StateAndItsHash",
                [](SnapshotGuardTest& test, store::Snapshot& s) {
                  s = test.WithForgedState(s);
                  s.state_sha256 = std::string(common::AsBytes(common::Sha256Of(s.state)));
                },
                ": bad signature"},
        Forgery{"ChainHashColumn",
                [](SnapshotGuardTest&, store::Snapshot& s) { s.chain_hash[0] ^= 1; },
                ": bad signature"},
        // Signed by the right key, but for a history in which the event at its seq differs
        // (a snapshot of another log, or of this one before it was rewritten).
        Forgery{"SealedForAnotherChainHash",
                [](SnapshotGuardTest& test, store::Snapshot& s) {
                  std::string other = s.chain_hash;
                  other[0] ^= 1;
                  Reseal(test.guard_->key(), other, s);
                },
                "states chain hash"},
        Forgery{"ForeignKey",
                [](SnapshotGuardTest&, store::Snapshot& s) {
                  ASSERT_OK_AND_ASSIGN(audit::SigningKey other, audit::SigningKey::Generate());
                  Reseal(other, s.chain_hash, s);
                },
                "not by the given public key"},
        Forgery{"SignatureOfAnotherSnapshot",
                [](SnapshotGuardTest& test, store::Snapshot& s) {
                  s.signature = test.StoredSnapshot(s.seq - kSnapshotEvery).signature;
                },
                ": bad signature"},
        // The snapshot is genuine, but the event at its seq was rewritten afterwards.
        Forgery{"EventRewritten",
                [](SnapshotGuardTest& test, store::Snapshot& s) {
                  ASSERT_OK(testing::RawExec(
                      test.db(), absl::StrCat("DROP TRIGGER events_refuse_update; UPDATE events "
                                              "SET chain_hash = randomblob(32) WHERE seq = ",
                                              s.seq)));
                },
                "states chain hash"}),
    [](const ::testing::TestParamInfo<Forgery>& info) { return info.param.name; });

// With every snapshot forged the projection is folded from seq 1.
TEST_F(SnapshotGuardTest, WhenNoSnapshotVerifiesTheFoldStartsAtSeqOne) {
  RegisterAndRevokeWithSnapshots();
  const int64_t head = store_->HeadSeq();
  int forged = 0;
  for (int64_t seq = kSnapshotEvery; seq <= head; seq += kSnapshotEvery) {
    store::Snapshot snapshot = StoredSnapshot(seq);
    snapshot.state += "!";
    ASSERT_OK(testing::OverwriteSnapshotRow(db(), snapshot));
    ++forged;
  }
  testing::RecordingEventStore recording(store_.get());
  ASSERT_OK_AND_ASSIGN(CredentialProjection as_of,
                       CredentialProjector::AsOf(&recording, head, guard_->get()));
  ASSERT_NO_FATAL_FAILURE(ExpectTheTrueFleet(as_of));
  EXPECT_EQ(static_cast<int>(recording.loaded_snapshots().size()), forged);
  const std::vector<testing::RecordingEventStore::Read> pages = CatchUpPages(recording);
  ASSERT_FALSE(pages.empty());
  EXPECT_EQ(pages.front().after_seq, 0);
  EXPECT_EQ(guard_->get()->Rejected().at(kCredentialProjectionName), forged);
}

// A projector without a guard cannot vouch for snapshots: it writes none and loads none.
TEST_F(SnapshotGuardTest, WithoutAGuardNoSnapshotIsWrittenOrLoaded) {
  {
    std::unique_ptr<CredentialProjector> unguarded = Start(store_.get(), /*guarded=*/false);
    ASSERT_NE(unguarded, nullptr);
    RegisterTargets(*driver_, "u");
    ASSERT_GT(store_->HeadSeq(), kSnapshotEvery);
    ASSERT_TRUE(unguarded->WaitForSeq(store_->HeadSeq(), kWait));
  }
  ASSERT_OK_AND_ASSIGN(std::vector<store::SnapshotId> none, store_->ListSnapshots());
  EXPECT_TRUE(none.empty());

  RegisterAndRevokeWithSnapshots();  // a guarded projector writes some
  ASSERT_OK_AND_ASSIGN(std::vector<store::SnapshotId> some, store_->ListSnapshots());
  ASSERT_FALSE(some.empty());
  testing::RecordingEventStore recording(store_.get());
  std::unique_ptr<CredentialProjector> unguarded = Start(&recording, /*guarded=*/false);
  ASSERT_NE(unguarded, nullptr);
  unguarded.reset();
  EXPECT_TRUE(recording.loaded_snapshots().empty());
  const std::vector<testing::RecordingEventStore::Read> pages = CatchUpPages(recording);
  ASSERT_FALSE(pages.empty());
  EXPECT_EQ(pages.front().after_seq, 0);
}

}  // namespace snapshot_guard_test
}  // namespace credledger::projections
