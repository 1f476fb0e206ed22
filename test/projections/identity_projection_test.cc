// Tests of the identity read model and its projector (docs/design.md, "Projections",
// "Snapshots" and "As-of replay"): Apply folds only identity streams and names the changed one;
// reads by name; a full rebuild from seq 1, as-of replay, snapshot round trips and restarts all
// give the same bytes as the incremental path; listeners get every changed identity. The log is
// a real SQLite store in a temp dir.
#include "projections/identity_projection.h"

#include <memory>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "common/clock.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "projections/identity_projector.h"
#include "projections/identity_state.h"
#include "store/event_codec.h"
#include "store/sqlite_event_store.h"
#include "test/support/recorded_events.h"
#include "test/support/status_matchers.h"
#include "test/support/temp_dir.h"
#include "test/support/test_snapshot_guard.h"

namespace credledger::projections {
namespace identity_projection_test {

using ::credledger::testing::StatusIs;
using ::testing::ElementsAre;
using ::testing::IsEmpty;
using v1::Event;

constexpr int64_t kSnapshotEvery = 5;
constexpr absl::Duration kWait = absl::Seconds(30);  // only reached when a test fails
constexpr char kHash1[] = "3f2a9c01d4e5b6a7c8d9e0f1a2b3c4d5e6f708192a3b4c5d6e7f8091a2b3c4d5";
constexpr char kHash2[] = "9a8b7c6d5e4f30211203f4e5d6c7b8a99a8b7c6d5e4f30211203f4e5d6c7b8a9";

Event Created(const std::string& name, const std::string& ns) {
  Event e;
  v1::IdentityCreated* c = e.mutable_identity_created();
  c->set_name(name);
  c->mutable_spec()->mutable_secret_ref()->set_namespace_("capi-system");
  c->mutable_spec()->mutable_secret_ref()->set_name(name + "-creds");
  c->mutable_spec()->mutable_allowed_namespaces()->add_list(ns);
  c->mutable_access_review()->set_user("alice");
  c->mutable_access_review()->set_allowed(true);
  return e;
}

Event Bound(const std::string& ns, const std::string& uid) {
  Event e;
  e.mutable_identity_bound()->set_namespace_(ns);
  v1::OwnerReference* o = e.mutable_identity_bound()->mutable_owner();
  o->set_api_version("infrastructure.cluster.x-k8s.io/v1beta1");
  o->set_kind("TerraformCluster");
  o->set_name("demo");
  o->set_uid(uid);
  return e;
}

Event Source(const std::string& hash) {
  Event e;
  e.mutable_source_secret_observed()->set_found(true);
  e.mutable_source_secret_observed()->set_source_hash(hash);
  e.mutable_source_secret_observed()->add_keys("AWS_ACCESS_KEY_ID");
  return e;
}

Event Written(const std::string& ns, const std::string& name, const std::string& hash) {
  Event e;
  e.mutable_mirror_written()->set_namespace_(ns);
  e.mutable_mirror_written()->mutable_secret()->set_name("captf-creds-" + name);
  e.mutable_mirror_written()->mutable_secret()->set_uid("uid-" + ns);
  e.mutable_mirror_written()->set_source_hash(hash);
  e.mutable_mirror_written()->set_kind(v1::MIRROR_WRITE_KIND_CREATED);
  return e;
}

Event Unbound(const std::string& ns) {
  const v1::OwnerReference owner = Bound(ns, "").identity_bound().owner();
  Event e;
  e.mutable_identity_unbound()->set_namespace_(ns);
  *e.mutable_identity_unbound()->mutable_owner() = owner;
  return e;
}

Event Deleted() {
  Event e;
  e.mutable_identity_deleted();
  return e;
}

Event ServiceConfigured() {
  Event e;
  e.mutable_service_configured()->set_agent_token_ttl_seconds(3600);
  return e;
}

// An event as the store would hand it over, without hashes (the projection reads none).
store::RecordedEvent Recorded(int64_t seq, const std::string& stream, int64_t version,
                              const Event& event) {
  return ::credledger::testing::StoredEvent(seq, stream, version,
                                            1'767'225'600'000'000 + seq * 1'000'000, event);
}

// --- IdentityProjection on hand-made events ---

TEST(IdentityProjectionTest, ApplyFoldsIdentityStreamsAndNamesTheChangedOne) {
  IdentityProjection p;
  ASSERT_OK_AND_ASSIGN(std::vector<std::string> changed,
                       p.Apply(Recorded(1, "identity/aws", 0, Created("aws", "team-a"))));
  EXPECT_THAT(changed, ElementsAre("identity/aws"));
  ASSERT_OK_AND_ASSIGN(changed, p.Apply(Recorded(2, "service", 0, ServiceConfigured())));
  EXPECT_THAT(changed, IsEmpty());
  ASSERT_OK_AND_ASSIGN(changed, p.Apply(Recorded(3, "identity/aws", 1, Bound("team-a", "u1"))));
  EXPECT_THAT(changed, ElementsAre("identity/aws"));
  EXPECT_EQ(p.seq(), 3);

  std::optional<v1::IdentityState> aws = p.GetIdentity("aws");
  ASSERT_TRUE(aws.has_value());
  EXPECT_EQ(aws->seq(), 3);
  EXPECT_EQ(aws->stream_version(), 1);
  EXPECT_EQ(aws->updated_at().seconds(), 1'767'225'601);  // recorded with seq 1
  ASSERT_EQ(aws->namespaces_size(), 1);
  EXPECT_EQ(aws->namespaces(0).identity_allowed().status(), "True");
}

TEST(IdentityProjectionTest, ApplyRefusesAGapAndAnUndecodableIdentityEvent) {
  IdentityProjection p;
  EXPECT_THAT(p.Apply(Recorded(2, "identity/aws", 0, Created("aws", "team-a"))),
              StatusIs(absl::StatusCode::kDataLoss));
  store::RecordedEvent garbage = Recorded(1, "identity/aws", 0, Created("aws", "team-a"));
  garbage.payload = "\xff\xff\xff";
  EXPECT_THAT(p.Apply(garbage), StatusIs(absl::StatusCode::kDataLoss));
  EXPECT_EQ(p.seq(), 0);
  EXPECT_FALSE(p.GetIdentity("aws").has_value());
}

TEST(IdentityProjectionTest, ReadsByNameIgnoringTheNamespaceAndListsInNameOrder) {
  IdentityProjection p;
  int64_t seq = 0;
  auto apply = [&](const std::string& stream, int64_t version, const Event& e) {
    ASSERT_OK(p.Apply(Recorded(++seq, stream, version, e)));
  };
  apply("identity/gcp", 0, Created("gcp", "team-a"));
  apply("identity/aws", 0, Created("aws", "team-a"));
  apply("identity/old", 0, Created("old", "team-a"));
  apply("identity/old", 1, Deleted());

  ASSERT_TRUE(p.GetIdentity("gcp").has_value());
  EXPECT_EQ(p.GetIdentity("gcp")->name(), "gcp");
  EXPECT_FALSE(p.GetIdentity("azure").has_value());
  ASSERT_TRUE(p.Get("any-namespace", "aws").has_value());
  EXPECT_EQ(p.Get("any-namespace", "aws")->name(), "aws");
  ASSERT_TRUE(p.GetStream("identity/aws").has_value());
  EXPECT_FALSE(p.GetStream("target/aws").has_value());

  std::vector<std::string> names;
  for (const v1::IdentityState& s : p.List(/*include_deleted=*/false)) names.push_back(s.name());
  EXPECT_THAT(names, ElementsAre("aws", "gcp"));
  names.clear();
  for (const v1::IdentityState& s : p.List(/*include_deleted=*/true)) names.push_back(s.name());
  EXPECT_THAT(names, ElementsAre("aws", "gcp", "old"));
}

TEST(IdentityProjectionTest, SnapshotsRoundTripByteForByte) {
  IdentityProjection p;
  int64_t seq = 0;
  for (const auto& [stream, version, event] : std::vector<std::tuple<std::string, int64_t, Event>>{
           {"identity/aws", 0, Created("aws", "team-a")},
           {"identity/aws", 1, Source(kHash1)},
           {"identity/aws", 2, Bound("team-a", "u1")},
           {"identity/aws", 3, Written("team-a", "aws", kHash1)},
           // A stream without IdentityCreated (outcomes after a delete) keeps its name.
           {"identity/gone", 0, Source(kHash2)},
       }) {
    ASSERT_OK(p.Apply(Recorded(++seq, stream, version, event)));
  }
  const std::string bytes = p.Serialize();
  ASSERT_OK_AND_ASSIGN(IdentityProjection loaded, IdentityProjection::Deserialize(bytes));
  EXPECT_EQ(loaded.Serialize(), bytes);
  EXPECT_EQ(loaded.seq(), 5);
  ASSERT_TRUE(loaded.GetIdentity("gone").has_value());
  EXPECT_EQ(loaded.GetIdentity("gone")->source().source_hash(), kHash2);

  // It also goes on folding like the original.
  ASSERT_OK(p.Apply(Recorded(6, "identity/aws", 4, Source(kHash2))));
  ASSERT_OK(loaded.Apply(Recorded(6, "identity/aws", 4, Source(kHash2))));
  EXPECT_EQ(loaded.Serialize(), p.Serialize());

  EXPECT_THAT(IdentityProjection::Deserialize("\xff\xff not a snapshot"),
              StatusIs(absl::StatusCode::kDataLoss));
}

// --- IdentityProjector on a real log ---

class IdentityProjectorTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto opened = store::SqliteEventStore::Open({.path = dir_.path() / "log.db", .clock = &clock_});
    ASSERT_OK(opened);
    store_ = *std::move(opened);
    ASSERT_OK_AND_ASSIGN(guard_, testing::TestSnapshotGuard::Create());
  }

  // Appends `event` to `stream` one second after the previous append.
  void Append(const std::string& stream, const Event& event) {
    clock_.Advance(absl::Seconds(1));
    v1::EventMetadata metadata;
    metadata.set_actor("credledger");
    ASSERT_OK_AND_ASSIGN(store::NewEvent encoded,
                         store::EventCodec::Default().Encode(event, metadata));
    store::AppendRequest request;
    request.request_id = absl::StrCat("r", ++requests_);
    request.streams.push_back({stream, store::ExpectedVersion::Any(), {std::move(encoded)}});
    ASSERT_OK(store_->Append(std::move(request)));
  }

  // Two identities through binding, rotation, revocation by unbind and deletion, with events
  // of other streams in between.
  void WriteHistory() {
    Append("service", ServiceConfigured());
    Append("identity/aws", Created("aws", "team-a"));
    Append("identity/gcp", Created("gcp", "team-b"));
    Append("identity/aws", Source(kHash1));
    Append("identity/aws", Bound("team-a", "u1"));
    Append("identity/gcp", Bound("team-b", "u2"));
    Append("identity/aws", Written("team-a", "aws", kHash1));
    Append("identity/aws", Source(kHash2));
    Append("identity/aws", Written("team-a", "aws", kHash2));
    Append("identity/gcp", Unbound("team-b"));
    Append("identity/gcp", Deleted());
    Append("identity/azure", Created("azure", "team-c"));
  }

  std::unique_ptr<IdentityProjector> Start() {
    auto projector = IdentityProjector::Start(
        store_.get(), {.snapshot_every = kSnapshotEvery, .snapshots = guard_->get()});
    EXPECT_OK(projector);
    return projector.ok() ? *std::move(projector) : nullptr;
  }

  void CatchUp(const IdentityProjector& projector) {
    ASSERT_TRUE(projector.WaitForSeq(store_->HeadSeq(), kWait));
    ASSERT_OK(projector.status());
  }

  // A projection folded from seq 1 to `until_seq`, event by event.
  std::string RebuildBytes(int64_t until_seq) {
    IdentityProjection p;
    for (int64_t after = 0; after < until_seq;) {
      absl::StatusOr<std::vector<store::RecordedEvent>> page = store_->ReadAll(after, 3);
      EXPECT_OK(page);
      if (!page.ok() || page->empty()) break;
      for (const store::RecordedEvent& e : *page) {
        if (e.seq > until_seq) break;
        EXPECT_OK(p.Apply(e));
        after = e.seq;
      }
    }
    return p.Serialize();
  }

  // The live projector's identities in the form of IdentityProjection::Serialize.
  static std::string ProjectorBytes(const IdentityProjector& projector) {
    v1::IdentityFleetState fleet;
    int64_t seq = 0;
    for (v1::IdentityState& s : projector.List(/*include_deleted=*/true, &seq)) {
      *fleet.add_identities() = std::move(s);
    }
    fleet.set_seq(seq);
    return store::SerializeDeterministic(fleet);
  }

  testing::TempDir dir_;
  common::FakeClock clock_;
  std::unique_ptr<store::SqliteEventStore> store_;
  std::unique_ptr<testing::TestSnapshotGuard> guard_;
  int requests_ = 0;
};

TEST_F(IdentityProjectorTest, TheIncrementalProjectorMatchesAFullRebuildByteForByte) {
  std::unique_ptr<IdentityProjector> projector = Start();
  ASSERT_NE(projector, nullptr);
  WriteHistory();
  CatchUp(*projector);

  const int64_t head = store_->HeadSeq();
  ASSERT_EQ(head, 12);
  const std::string rebuilt = RebuildBytes(head);
  EXPECT_EQ(ProjectorBytes(*projector), rebuilt);
  for (int64_t seq = 0; seq <= head; ++seq) {
    SCOPED_TRACE(seq);
    ASSERT_OK_AND_ASSIGN(IdentityProjection as_of,
                         IdentityProjector::AsOf(store_.get(), seq, guard_->get()));
    EXPECT_EQ(as_of.Serialize(), RebuildBytes(seq));
  }

  std::optional<v1::IdentityState> aws = projector->GetIdentity("aws");
  ASSERT_TRUE(aws.has_value());
  EXPECT_EQ(aws->namespaces(0).credentials_mirrored().reason(), "Mirrored");
  EXPECT_EQ(aws->namespaces(0).mirror().source_hash(), kHash2);
  ASSERT_TRUE(projector->Get("ignored", "gcp").has_value());
  EXPECT_EQ(projector->Get("ignored", "gcp")->phase(), v1::IdentityState::PHASE_DELETED);
  int64_t seq = 0;
  std::vector<std::string> active;
  for (const v1::IdentityState& s : projector->List(/*include_deleted=*/false, &seq)) {
    active.push_back(s.name());
  }
  EXPECT_THAT(active, ElementsAre("aws", "azure"));
  EXPECT_EQ(seq, head);
}

TEST_F(IdentityProjectorTest, ARestartedProjectorLoadsTheNewestSnapshotAndReachesTheSameBytes) {
  {
    std::unique_ptr<IdentityProjector> projector = Start();
    ASSERT_NE(projector, nullptr);
    WriteHistory();
    CatchUp(*projector);
  }  // stopping the projector finishes its last snapshot write
  ASSERT_OK_AND_ASSIGN(std::optional<store::Snapshot> newest,
                       store_->LoadSnapshot(kIdentityProjectionName, store_->HeadSeq()));
  ASSERT_TRUE(newest.has_value());
  EXPECT_EQ(newest->seq, 10);
  EXPECT_EQ(newest->schema_version, kIdentityProjectionVersion);
  EXPECT_EQ(newest->state, RebuildBytes(10));

  // Mark the snapshot so that only a projector that loaded it can show the mark, and seal it
  // again as the service would.
  v1::IdentityFleetState fleet;
  ASSERT_TRUE(fleet.ParseFromString(newest->state));
  ASSERT_GT(fleet.identities_size(), 0);
  ASSERT_EQ(fleet.identities(0).name(), "aws");
  fleet.mutable_identities(0)->mutable_access_review()->set_user("marked-by-the-test");
  newest->state = store::SerializeDeterministic(fleet);
  ASSERT_OK(guard_->get()->Save(*store_, *newest, newest->chain_hash));

  std::unique_ptr<IdentityProjector> restarted = Start();
  ASSERT_NE(restarted, nullptr);
  EXPECT_EQ(restarted->seq(), store_->HeadSeq());
  ASSERT_TRUE(restarted->GetIdentity("aws").has_value());
  EXPECT_EQ(restarted->GetIdentity("aws")->access_review().user(), "marked-by-the-test");
  ASSERT_TRUE(restarted->GetIdentity("azure").has_value());  // folded after the snapshot
}

TEST_F(IdentityProjectorTest, ListenersGetEveryChangedIdentityUntilRemoved) {
  std::unique_ptr<IdentityProjector> projector = Start();
  ASSERT_NE(projector, nullptr);
  Append("identity/aws", Created("aws", "team-a"));
  CatchUp(*projector);

  absl::Mutex mu;
  std::vector<IdentityChange> seen;
  int listener = 0;
  ASSERT_OK_AND_ASSIGN(
      std::vector<IdentityChange> missed,
      projector->Listen(store_->HeadSeq(), &listener, [&](const IdentityChange& c) {
        absl::MutexLock lock(&mu);
        seen.push_back(c);
      }));
  EXPECT_THAT(missed, IsEmpty());

  Append("service", ServiceConfigured());  // not an identity: no change
  Append("identity/aws", Bound("team-a", "u1"));
  Append("identity/gcp", Created("gcp", "team-b"));
  CatchUp(*projector);
  {
    absl::MutexLock lock(&mu);
    ASSERT_EQ(seen.size(), 2u);
    EXPECT_EQ(seen[0].seq, 3);
    EXPECT_EQ(seen[0].state.name(), "aws");
    EXPECT_EQ(seen[0].state.namespaces_size(), 1);
    EXPECT_EQ(seen[1].seq, 4);
    EXPECT_EQ(seen[1].state.name(), "gcp");
  }

  int second = 0;
  ASSERT_OK_AND_ASSIGN(std::vector<IdentityChange> since,
                       projector->Listen(1, &second, [](const IdentityChange&) {}));
  projector->RemoveListener(second);
  ASSERT_EQ(since.size(), 2u);  // the changes after seq 1, from the kept history
  EXPECT_EQ(since[0].seq, 3);
  EXPECT_EQ(since[1].seq, 4);

  projector->RemoveListener(listener);
  Append("identity/aws", Unbound("team-a"));
  CatchUp(*projector);
  absl::MutexLock lock(&mu);
  EXPECT_EQ(seen.size(), 2u);
}

}  // namespace identity_projection_test
}  // namespace credledger::projections
