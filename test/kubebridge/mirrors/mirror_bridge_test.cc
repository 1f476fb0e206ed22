// MirrorBridge against the test API server (docs/mirrors.md, "Conflicts and safety" and
// "Conditions"): a namespace left waiting on a cause no watch reports is retried with the work
// queue's backoff, not at the resync. The identity is known to the bridge's IdentityProjector
// from a real SQLite log and its state and outcomes live in a FakeIdentityLog; the queue and
// the resync run on a FakeClock.
#include "kubebridge/mirrors/mirror_bridge.h"

#include <atomic>
#include <functional>
#include <memory>
#include <string>
#include <thread>

#include "absl/strings/escaping.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "common/clock.h"
#include "gmock/gmock.h"
#include "kubebridge/client/json_util.h"
#include "kubebridge/clusters/cluster_connector.h"
#include "kubebridge/clusters/secret_resolver.h"
#include "kubebridge/credentials/agent_objects.h"
#include "kubebridge/mirrors/mirror_objects.h"
#include "kubebridge/model/connection_errors.h"
#include "projections/identity_projector.h"
#include "projections/identity_state.h"
#include "store/event_codec.h"
#include "store/sqlite_event_store.h"
#include "test/kubebridge/api_server_fixture.h"
#include "test/kubebridge/mirrors/fake_identity_log.h"
#include "test/kubebridge/mirrors/mirror_test_objects.h"

namespace credledger::kubebridge {
namespace mirror_bridge_test {

using ::testing::HasSubstr;

constexpr char kIdentity[] = "cloud";
constexpr char kMirror[] = "captf-creds-cloud";
// Far beyond any fake time a test advances: a pass seen here is never the resync's.
constexpr absl::Duration kNoResync = absl::Hours(24 * 365);

// Returns true once `done` holds; false after `limit` of real time. Yields between checks.
bool Eventually(const std::function<bool()>& done, absl::Duration limit = absl::Seconds(20)) {
  const absl::Time give_up = absl::Now() + limit;
  while (!done()) {
    if (absl::Now() >= give_up) return false;
    std::this_thread::yield();
  }
  return true;
}

class MirrorBridgeTest : public ApiServerFixture {
 protected:
  void SetUp() override {
    kubeapi::ApiServerOptions options = ServerOptions();
    options.namespaces = {"ops", "team-a"};
    StartServer(std::move(options));
    ASSERT_OK(client_->Create(SecretResource("ops"),
                              {{"apiVersion", "v1"},
                               {"kind", "Secret"},
                               {"metadata", {{"name", "cloud-src"}}},
                               {"data", {{"password", absl::Base64Escape("pa55-Wq9-zzT")}}}}));
    auto opened = store::SqliteEventStore::Open({.path = dir_.path() / "log.db"});
    ASSERT_OK(opened);
    store_ = *std::move(opened);
  }

  void TearDown() override {
    if (bridge_ != nullptr) bridge_->Stop();
    bridge_.reset();
    projector_.reset();
    ApiServerFixture::TearDown();
  }

  // Appends `event` to the identity's stream, both in the SQLite log the projector follows
  // and in the FakeIdentityLog the bridge loads states from and records outcomes to.
  void Append(const v1::Event& event) {
    v1::EventMetadata metadata;
    metadata.set_actor("alice");
    ASSERT_OK_AND_ASSIGN(store::NewEvent encoded,
                         store::EventCodec::Default().Encode(event, metadata));
    store::AppendRequest request;
    request.request_id = absl::StrCat("r", ++requests_);
    request.streams.push_back({projections::IdentityStream(kIdentity),
                               store::ExpectedVersion::Any(),
                               {std::move(encoded)}});
    ASSERT_OK(store_->Append(std::move(request)));
    log_.Append(event);
  }

  // Creates identity "cloud" (source ops/cloud-src, allowed in team-a, mirrored into the
  // registered cluster `cluster` when not empty), binds it there, and starts the projector
  // and the bridge.
  void StartBridge(const std::string& cluster = "") {
    v1::Event created;
    created.mutable_identity_created()->set_name(kIdentity);
    v1::IdentitySpec* spec = created.mutable_identity_created()->mutable_spec();
    spec->mutable_secret_ref()->set_namespace_("ops");
    spec->mutable_secret_ref()->set_name("cloud-src");
    spec->mutable_allowed_namespaces()->add_list("team-a");
    spec->set_cluster(cluster);
    Append(created);
    // The bound object exists on the home cluster, which stands in for "edge" where a test
    // reaches a registered cluster.
    absl::StatusOr<v1::OwnerReference> owner = CreateOwner(*client_, "team-a", "c1");
    ASSERT_OK(owner.status());
    owner_ = *owner;
    v1::Event bound;
    bound.mutable_identity_bound()->set_namespace_("team-a");
    *bound.mutable_identity_bound()->mutable_owner() = owner_;
    Append(bound);

    auto projector = projections::IdentityProjector::Start(
        store_.get(), {.snapshot_every = 0, .change_history = projections::kIdentityChangeHistory});
    ASSERT_OK(projector);
    projector_ = *std::move(projector);
    ASSERT_TRUE(projector_->WaitForSeq(store_->HeadSeq(), absl::Seconds(20)));
    options_.resync_period = kNoResync;
    options_.workers = 1;
    bridge_ = MirrorBridge::Start(client_.get(), &log_, projector_.get(), &fingerprint_key_,
                                  &clock_, options_);
  }

  // The failure recorded for team-a; UNSPECIFIED when there is none.
  v1::MirrorFailureKind TeamAFailure() {
    const v1::IdentityState state = log_.state();
    const v1::IdentityNamespaceState* entry = projections::FindIdentityNamespace(state, "team-a");
    return entry == nullptr ? v1::MIRROR_FAILURE_KIND_UNSPECIFIED : entry->failure().kind();
  }
  bool TeamAMirrored() {
    const v1::IdentityState state = log_.state();
    const v1::IdentityNamespaceState* entry = projections::FindIdentityNamespace(state, "team-a");
    return entry != nullptr && entry->has_mirror() &&
           entry->credentials_mirrored().reason() == projections::kReasonMirrored;
  }
  // The worker has gone to sleep until a delayed key is due (the resync loop is the other
  // sleeper on the clock).
  bool WorkerAwaitsARetry() { return clock_.Sleepers() >= 2; }

  v1::OwnerReference owner_;
  common::FakeClock clock_;
  MirrorBridgeOptions options_;
  std::unique_ptr<store::SqliteEventStore> store_;
  std::unique_ptr<projections::IdentityProjector> projector_;
  FakeIdentityLog log_;
  const common::FingerprintKey fingerprint_key_ = *common::FingerprintKey::Generate();
  std::unique_ptr<MirrorBridge> bridge_;
  int requests_ = 0;
};

// Regression: a conflict was retried only at the resync (10 minutes): removing a foreign
// Secret that held the mirror's name is seen by no watch (the mirror watch follows labelled
// Secrets only), and the pass that recorded the conflict counted as a success.
TEST_F(MirrorBridgeTest, RemovingAConflictingSecretIsNoticedByTheRetryBeforeAnyResync) {
  ASSERT_OK_AND_ASSIGN(nlohmann::json theirs,
                       client_->Create(SecretResource("team-a"), ForeignSecret(kMirror)));
  StartBridge();
  ASSERT_NE(bridge_, nullptr);

  ASSERT_TRUE(Eventually([&] {
    return TeamAFailure() == v1::MIRROR_FAILURE_KIND_CONFLICT && bridge_->Retries(kIdentity) >= 1 &&
           WorkerAwaitsARetry();
  })) << "failure "
      << TeamAFailure() << ", retries " << bridge_->Retries(kIdentity);
  {
    const v1::IdentityState state = log_.state();
    EXPECT_THAT(projections::FindIdentityNamespace(state, "team-a")->failure().message(),
                HasSubstr("rename or remove it"));
  }
  ASSERT_OK_AND_ASSIGN(nlohmann::json untouched, client_->Get(SecretResource("team-a", kMirror)));
  EXPECT_EQ(untouched, theirs);

  ASSERT_OK(client_->Delete(SecretResource("team-a", kMirror)));
  // Each pass waits at most the backoff's cap; move the fake clock on by that whenever the
  // worker has gone back to sleep after another pass.
  size_t advanced_after_calls = 0;
  absl::Duration advanced = absl::ZeroDuration();
  ASSERT_TRUE(Eventually([&] {
    if (TeamAMirrored() && bridge_->Retries(kIdentity) == 0) return true;
    const size_t calls = log_.calls().size();
    if (WorkerAwaitsARetry() && calls != advanced_after_calls) {
      advanced_after_calls = calls;
      clock_.Advance(options_.retry.max_delay);
      advanced += options_.retry.max_delay;
    }
    return false;
  })) << "failure "
      << TeamAFailure() << ", retries " << bridge_->Retries(kIdentity);
  EXPECT_LT(advanced, kNoResync);
  // Waiting on a conflict is no failed pass (metrics).
  EXPECT_EQ(bridge_->reconcile_errors(), 0);

  ASSERT_OK_AND_ASSIGN(nlohmann::json mirror, client_->Get(SecretResource("team-a", kMirror)));
  EXPECT_TRUE(IsMirrorOf(mirror, kIdentity));
  EXPECT_EQ(mirror["metadata"]["ownerReferences"], nlohmann::json::array({OwnerJson(owner_)}));
  const v1::IdentityState state = log_.state();
  EXPECT_EQ(projections::FindIdentityNamespace(state, "team-a")->mirror().secret().uid(),
            StringAt(mirror, {"metadata", "uid"}));
}

// Regression: a mirror that Kubernetes' garbage collector deleted as soon as it was written
// was re-created at once, every second, forever, recording a deletion and a write each time.
// Now each re-creation waits 1 s, 2 s, 4 s, ... after the deletion; each deletion is
// recorded once and each re-creation once, and passes in between record nothing.
TEST_F(MirrorBridgeTest, AMirrorDeletedAgainAndAgainIsReCreatedAfterAGrowingHold) {
  StartBridge();
  ASSERT_NE(bridge_, nullptr);
  ASSERT_TRUE(Eventually([&] { return TeamAMirrored(); }));
  auto count = [&](bool (v1::Event::*has)() const) {
    int n = 0;
    for (const v1::Event& e : log_.events()) n += (e.*has)() ? 1 : 0;
    return n;
  };
  auto mirror_exists = [&] { return client_->Get(SecretResource("team-a", kMirror)).ok(); };
  // The last deletion comes after ten quiet minutes: its hold starts over.
  const absl::Duration holds[] = {absl::Seconds(1), absl::Seconds(2), absl::Seconds(4),
                                  absl::Seconds(1)};
  for (int i = 0; i < 4; ++i) {
    const absl::Duration hold = holds[i];
    if (i == 3) clock_.Advance(absl::Minutes(10));
    ASSERT_OK(client_->Delete(SecretResource("team-a", kMirror)));  // the collector
    ASSERT_TRUE(Eventually([&] {
      return count(&v1::Event::has_mirror_deleted_externally) == i + 1 && WorkerAwaitsARetry();
    })) << "deletion "
        << i;
    // Just before the hold ends nothing is written.
    clock_.Advance(hold - absl::Milliseconds(1));
    ASSERT_TRUE(bridge_->WaitIdle(absl::Seconds(20)));
    EXPECT_FALSE(mirror_exists()) << "deletion " << i;
    clock_.Advance(absl::Milliseconds(1));
    ASSERT_TRUE(Eventually([&] { return TeamAMirrored() && mirror_exists(); })) << "deletion " << i;
    ASSERT_TRUE(bridge_->WaitIdle(absl::Seconds(20)));
  }
  EXPECT_EQ(count(&v1::Event::has_mirror_deleted_externally), 4);
  EXPECT_EQ(count(&v1::Event::has_mirror_written), 5);
  EXPECT_EQ(count(&v1::Event::has_mirror_failed), 0);
  EXPECT_EQ(bridge_->reconcile_errors(), 0);
}

// docs/mirrors.md, "How a change propagates": the mirror watch reports the bridge's own
// update of a mirror back to it; that echo alone runs no further pass (which would read the
// source and list every mirror again for nothing), while someone else's edit does.
TEST_F(MirrorBridgeTest, ARotationRunsOnePassAndItsOwnMirrorUpdateRunsNoOther) {
  StartBridge();
  ASSERT_NE(bridge_, nullptr);
  ASSERT_TRUE(Eventually([&] { return TeamAMirrored(); }));
  ASSERT_TRUE(bridge_->WaitIdle(absl::Seconds(20)));
  auto observes_since = [&](size_t from) {
    int n = 0;
    const auto calls = log_.calls();
    for (size_t i = from; i < calls.size(); ++i) {
      n += absl::EndsWith(calls[i].first, "/observe") ? 1 : 0;
    }
    return n;
  };
  auto mirror_fingerprint = [&] {
    const v1::IdentityState state = log_.state();
    return projections::FindIdentityNamespace(state, "team-a")->mirror().source_fingerprint();
  };

  // Rotates the source to `password` and waits until the mirror was rewritten, the watch
  // reported that update back, and the bridge is idle.
  auto rotate = [&](const std::string& password) {
    const int64_t changes = bridge_->mirror_changes();
    const std::string old_fingerprint = mirror_fingerprint();
    absl::StatusOr<nlohmann::json> source = client_->Get(SecretResource("ops", "cloud-src"));
    ASSERT_OK(source.status());
    (*source)["data"]["password"] = absl::Base64Escape(password);
    ASSERT_OK(client_->Update(SecretResource("ops"), *source));
    ASSERT_TRUE(Eventually([&] {
      return mirror_fingerprint() != old_fingerprint && bridge_->mirror_changes() > changes;
    }));
    ASSERT_TRUE(bridge_->WaitIdle(absl::Seconds(20)));
  };
  // The first rotation also waits out the first lists of the watches (each queues a pass).
  rotate("r0tated-1");
  const size_t before = log_.calls().size();
  rotate("r0tated-Lk2-Vv");
  EXPECT_EQ(observes_since(before), 1);

  // Someone else's edit of the mirror is repaired by another pass.
  const size_t before_edit = log_.calls().size();
  ASSERT_OK_AND_ASSIGN(nlohmann::json mirror, client_->Get(SecretResource("team-a", kMirror)));
  mirror["data"]["password"] = absl::Base64Escape("edited");
  ASSERT_OK(client_->Update(SecretResource("team-a"), mirror));
  ASSERT_TRUE(Eventually([&] {
    absl::StatusOr<nlohmann::json> live = client_->Get(SecretResource("team-a", kMirror));
    return live.ok() && (*live)["data"]["password"] == absl::Base64Escape("r0tated-Lk2-Vv");
  }));
  ASSERT_TRUE(bridge_->WaitIdle(absl::Seconds(20)));
  EXPECT_EQ(observes_since(before_edit), 1);
}

// docs/connections.md, "Mirrors into a registered cluster": a cluster whose configuration
// cannot work is recorded once and not retried; one that cannot be reached is retried with
// backoff until it can, and then gets its mirrors.
TEST_F(MirrorBridgeTest, AnUnsupportedClusterIsRecordedAndNotRetried) {
  std::atomic<int> connects = 0;
  options_.cluster_clients = [&](const std::string& cluster, Cancellation*) {
    ++connects;
    EXPECT_EQ(cluster, "edge");
    return absl::StatusOr<std::unique_ptr<KubeClient>>(
        UnsupportedError("cluster \"edge\": auth type \"oidc\" is not supported"));
  };
  StartBridge("edge");
  ASSERT_TRUE(Eventually([&] {
    return TeamAFailure() == v1::MIRROR_FAILURE_KIND_CLUSTER_UNSUPPORTED &&
           bridge_->WaitIdle(absl::Milliseconds(1));
  })) << "failure "
      << TeamAFailure();
  EXPECT_EQ(bridge_->Retries(kIdentity), 0);
  const v1::IdentityState state = log_.state();
  EXPECT_EQ(projections::FindIdentityNamespace(state, "team-a")->failure().message(),
            "cluster \"edge\": auth type \"oidc\" is not supported");
  // No retry is scheduled: the worker does not sleep on a delayed key, unlike after a
  // CLUSTER_UNREACHABLE (next test).
  ASSERT_TRUE(bridge_->WaitIdle(absl::Seconds(20)));
  EXPECT_FALSE(WorkerAwaitsARetry());
  EXPECT_EQ(bridge_->Retries(kIdentity), 0);
  // A change of its cluster (its spec fixed, say) tries again at once.
  const int before = connects.load();
  bridge_->ClusterChanged("edge");
  ASSERT_TRUE(Eventually([&] { return connects.load() > before; }));
  // Nothing was written to the home cluster.
  EXPECT_THAT(client_->Get(SecretResource("team-a", kMirror)),
              ::credledger::testing::StatusIs(absl::StatusCode::kNotFound));
}

TEST_F(MirrorBridgeTest, AnUnreachableClusterIsRetriedWithBackoffUntilItAnswers) {
  std::atomic<bool> reachable = false;
  options_.cluster_clients = [&](const std::string&, Cancellation*) {
    if (!reachable) {
      return absl::StatusOr<std::unique_ptr<KubeClient>>(
          absl::UnavailableError("cluster \"edge\": GET /version: connection refused"));
    }
    // The test API server stands in for the registered cluster.
    return KubeClient::New(config_, ClientOptions());
  };
  StartBridge("edge");
  ASSERT_TRUE(Eventually([&] {
    return TeamAFailure() == v1::MIRROR_FAILURE_KIND_CLUSTER_UNREACHABLE &&
           bridge_->Retries(kIdentity) >= 1 && WorkerAwaitsARetry();
  })) << "failure "
      << TeamAFailure() << ", retries " << bridge_->Retries(kIdentity);
  // Each pass that could not reach the cluster failed (metrics).
  EXPECT_GE(bridge_->reconcile_errors(), bridge_->Retries(kIdentity));

  reachable = true;
  size_t advanced_after_calls = 0;
  ASSERT_TRUE(Eventually([&] {
    if (TeamAMirrored() && bridge_->Retries(kIdentity) == 0) return true;
    const size_t calls = log_.calls().size();
    if (WorkerAwaitsARetry() && calls != advanced_after_calls) {
      advanced_after_calls = calls;
      clock_.Advance(options_.retry.max_delay);
    }
    return false;
  })) << "failure "
      << TeamAFailure() << ", retries " << bridge_->Retries(kIdentity);
  ASSERT_OK_AND_ASSIGN(nlohmann::json mirror, client_->Get(SecretResource("team-a", kMirror)));
  EXPECT_TRUE(IsMirrorOf(mirror, kIdentity));
}

// Regression: the connector named the cluster in its errors and the bridge named it again
// (`cluster "edge": cluster "edge": ...`) in the failure recorded for every bound namespace.
TEST_F(MirrorBridgeTest, AClusterThatCannotBeConnectedToIsNamedOnceInTheFailure) {
  SecretResolver resolver(*client_);
  std::unique_ptr<ClusterAuthRegistry> registry = DefaultClusterAuthRegistry();
  ClusterConnector connector(config_, &resolver, registry.get());
  v1::ClusterState edge;
  edge.set_name("edge");
  edge.set_phase(v1::ClusterState::PHASE_ACTIVE);
  v1::ClusterSpec& spec = *edge.mutable_spec();
  spec.set_namespace_("ops");
  spec.set_connection_mode(v1::CLUSTER_CONNECTION_MODE_AGENTLESS);
  spec.mutable_agentless()->set_server(config_.server);
  spec.mutable_agentless()->mutable_auth()->set_type(kAuthToken);
  spec.mutable_agentless()->mutable_auth()->mutable_token()->mutable_secret_ref()->set_name(
      "edge-token");  // no such Secret
  options_.cluster_clients = [&](const std::string&, Cancellation* cancel) {
    return connector.NewClient(edge, ClientOptions(), cancel);
  };
  StartBridge("edge");
  ASSERT_TRUE(Eventually([&] {
    return TeamAFailure() == v1::MIRROR_FAILURE_KIND_CLUSTER_UNREACHABLE;
  })) << "failure "
      << TeamAFailure();
  const v1::IdentityState state = log_.state();
  EXPECT_EQ(projections::FindIdentityNamespace(state, "team-a")->failure().message(),
            "cluster \"edge\": Secret \"ops/edge-token\" not found (key \"token\")");
  bridge_->Stop();  // before the connector it calls goes away
}

}  // namespace mirror_bridge_test
}  // namespace credledger::kubebridge
