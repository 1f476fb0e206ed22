// MirrorReconciler against the test API server, reporting into an in-memory identity stream
// folded with projections::EvolveIdentity (docs/mirrors.md, "How a change propagates",
// "Revocation" and "Conflicts and safety").
#include "kubebridge/mirrors/mirror_reconciler.h"

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/escaping.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "common/fingerprint_key.h"
#include "gmock/gmock.h"
#include "kubebridge/client/json_util.h"
#include "kubebridge/credentials/agent_objects.h"
#include "kubebridge/mirrors/mirror_objects.h"
#include "projections/identity_state.h"
#include "test/kubebridge/api_server_fixture.h"
#include "test/kubebridge/mirrors/fake_identity_log.h"
#include "test/kubebridge/mirrors/mirror_reconciler_fixture.h"
#include "test/kubebridge/mirrors/mirror_test_objects.h"
#include "test/support/version1_events.h"

namespace credledger::kubebridge {
namespace mirror_reconciler_test {

using ::credledger::testing::StatusIs;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

// A NamespaceLookup that answers from a map (nullopt for namespaces it does not hold).
class FakeLookup final : public NamespaceLookup {
 public:
  std::optional<NamespaceLabels> Lookup(const std::string& ns) override {
    auto it = known.find(ns);
    if (it == known.end()) return std::nullopt;
    return it->second;
  }
  std::map<std::string, NamespaceLabels> known;
};

v1::Label MakeLabel(const std::string& key, const std::string& value) {
  v1::Label l;
  l.set_key(key);
  l.set_value(value);
  return l;
}

using MirrorReconcilerTest = MirrorReconcilerFixture;

TEST_F(MirrorReconcilerTest, CreatesAMirrorInEachBoundNamespaceWithItsOwnerReferences) {
  c1_ = Bind("team-a", "c1");
  c2_ = Bind("team-b", "c2");
  ASSERT_OK_AND_ASSIGN(MirrorReconcileResult result, Pass());
  EXPECT_TRUE(result.source_found);
  EXPECT_EQ(result.created, 2);
  EXPECT_EQ(result.failed, 0);
  EXPECT_FALSE(result.retry);

  ASSERT_OK_AND_ASSIGN(nlohmann::json source, client_->Get(SecretResource("ops", "cloud-src")));
  const std::map<std::string, nlohmann::json> owners = {{"team-a", OwnerJson(c1_)},
                                                        {"team-b", OwnerJson(c2_)}};
  for (const auto& [ns, owner] : owners) {
    ASSERT_OK_AND_ASSIGN(nlohmann::json mirror, Mirror(ns));
    EXPECT_EQ(mirror["type"], "Opaque");
    EXPECT_EQ(mirror["data"], source["data"]);
    EXPECT_EQ(mirror["metadata"]["labels"],
              nlohmann::json({{"captf.io/mirrored", "true"}, {"captf.io/managed", "true"}}));
    EXPECT_EQ(
        mirror["metadata"]["annotations"],
        nlohmann::json({{"captf.io/source-hash", SourceHash()}, {"captf.io/identity", "cloud"}}));
    EXPECT_EQ(mirror["metadata"]["ownerReferences"], nlohmann::json::array({owner}));
    const v1::IdentityState state = log_.state();
    const v1::IdentityNamespaceState* entry = projections::FindIdentityNamespace(state, ns);
    ASSERT_NE(entry, nullptr);
    EXPECT_EQ(entry->mirror().secret().uid(), mirror["metadata"]["uid"]);
    EXPECT_EQ(entry->mirror().source_fingerprint(), SourceFingerprint());
    EXPECT_EQ(entry->mirror().source_hash(), "");
  }
  int created = 0;
  for (const v1::Event& e : log_.events()) {
    if (e.has_mirror_written()) {
      EXPECT_EQ(e.mirror_written().kind(), v1::MIRROR_WRITE_KIND_CREATED);
      ++created;
    }
  }
  EXPECT_EQ(created, 2);
}

TEST_F(MirrorReconcilerTest, SteadyStateWritesNothingAndRecordsNothing) {
  CreateTwoMirrors();
  const int64_t version = server_->resource_version();
  const size_t events = log_.events().size();
  ASSERT_OK_AND_ASSIGN(MirrorReconcileResult result, Pass());
  EXPECT_EQ(result.created + result.updated + result.adopted + result.deleted + result.failed, 0);
  EXPECT_FALSE(result.retry);
  EXPECT_EQ(server_->resource_version(), version);
  EXPECT_EQ(log_.events().size(), events);
}

TEST_F(MirrorReconcilerTest, SecondBindingAddsAnOwnerReferenceToTheSameSecret) {
  CreateTwoMirrors();
  ASSERT_OK_AND_ASSIGN(nlohmann::json before, Mirror("team-a"));
  ASSERT_OK_AND_ASSIGN(nlohmann::json other_before, Mirror("team-b"));
  const v1::OwnerReference c3 = Bind("team-a", "c3");
  const size_t events = log_.events().size();
  ASSERT_OK_AND_ASSIGN(MirrorReconcileResult result, Pass());
  EXPECT_EQ(result.updated, 1);
  ASSERT_OK_AND_ASSIGN(nlohmann::json after, Mirror("team-a"));
  EXPECT_EQ(after["metadata"]["uid"], before["metadata"]["uid"]);
  EXPECT_EQ(after["metadata"]["ownerReferences"],
            nlohmann::json::array({OwnerJson(c1_), OwnerJson(c3)}));
  ASSERT_OK_AND_ASSIGN(nlohmann::json other_after, Mirror("team-b"));
  EXPECT_EQ(other_after["metadata"]["resourceVersion"],
            other_before["metadata"]["resourceVersion"]);
  std::vector<v1::Event> added = EventsSince(events);
  ASSERT_EQ(added.size(), 1u);
  EXPECT_EQ(added[0].mirror_written().kind(), v1::MIRROR_WRITE_KIND_UPDATED);
  EXPECT_THAT(added[0].mirror_written().changed(), ElementsAre("ownerReferences"));
}

TEST_F(MirrorReconcilerTest, ReferenceToAnOlderUidOfTheSameObjectIsReplaced) {
  CreateTwoMirrors();
  ASSERT_OK(client_->Delete(TerraformClusters("team-a", "c1")));
  const v1::OwnerReference recreated = Bind("team-a", "c1");
  ASSERT_NE(recreated.uid(), c1_.uid());
  ASSERT_OK(Pass());
  ASSERT_OK_AND_ASSIGN(nlohmann::json mirror, Mirror("team-a"));
  EXPECT_EQ(mirror["metadata"]["ownerReferences"], nlohmann::json::array({OwnerJson(recreated)}));
}

TEST_F(MirrorReconcilerTest, RotatedSourceRewritesDataAndHashInEveryNamespace) {
  CreateTwoMirrors();
  const std::string old_hash = SourceHash();
  RotateSource();
  ASSERT_OK_AND_ASSIGN(nlohmann::json source, client_->Get(SecretResource("ops", "cloud-src")));
  const size_t events = log_.events().size();
  ASSERT_OK_AND_ASSIGN(MirrorReconcileResult result, Pass());
  EXPECT_EQ(result.updated, 2);
  ASSERT_NE(SourceHash(), old_hash);
  for (const char* ns : {"team-a", "team-b"}) {
    ASSERT_OK_AND_ASSIGN(nlohmann::json mirror, Mirror(ns));
    EXPECT_EQ(mirror["data"], source["data"]) << ns;
    EXPECT_EQ(mirror["metadata"]["annotations"]["captf.io/source-hash"], SourceHash()) << ns;
  }
  int updated = 0;
  for (const v1::Event& e : EventsSince(events)) {
    if (!e.has_mirror_written()) continue;
    EXPECT_THAT(e.mirror_written().changed(), ElementsAre("data", "annotations"));
    EXPECT_EQ(e.mirror_written().source_fingerprint(), SourceFingerprint());
    ++updated;
  }
  EXPECT_EQ(updated, 2);
}

TEST_F(MirrorReconcilerTest, NarrowedListDeletesThatNamespacesMirrorOnly) {
  CreateTwoMirrors();
  ASSERT_OK_AND_ASSIGN(nlohmann::json kept, Mirror("team-a"));
  ASSERT_OK_AND_ASSIGN(nlohmann::json revoked, Mirror("team-b"));
  SetSpec(Spec({"team-a"}));
  const size_t events = log_.events().size();
  ASSERT_OK_AND_ASSIGN(MirrorReconcileResult result, Pass());
  EXPECT_EQ(result.deleted, 1);
  EXPECT_THAT(Mirror("team-b"), StatusIs(absl::StatusCode::kNotFound));
  ASSERT_OK_AND_ASSIGN(nlohmann::json still, Mirror("team-a"));
  EXPECT_EQ(still["metadata"]["resourceVersion"], kept["metadata"]["resourceVersion"]);
  std::vector<v1::Event> added = EventsSince(events);
  ASSERT_EQ(added.size(), 1u);
  EXPECT_EQ(added[0].mirror_deleted().namespace_(), "team-b");
  EXPECT_EQ(added[0].mirror_deleted().secret().uid(), revoked["metadata"]["uid"]);
  EXPECT_EQ(added[0].mirror_deleted().reason(), v1::MIRROR_DELETION_REASON_NAMESPACE_NOT_ALLOWED);
}

TEST_F(MirrorReconcilerTest, RelabelledNamespaceUnderASelectorLosesItsMirror) {
  v1::IdentitySpec spec = Spec({});
  *spec.mutable_allowed_namespaces()->mutable_selector()->add_match_labels() =
      MakeLabel("env", "dev");
  SetSpec(spec);
  auto label_team_a = [&](const std::string& env) {
    ASSERT_OK_AND_ASSIGN(nlohmann::json ns, client_->Get(Core("namespaces", "team-a", "")));
    ns["metadata"]["labels"]["env"] = env;
    ASSERT_OK(client_->Update(Core("namespaces", "", ""), ns));
  };
  label_team_a("dev");
  Bind("team-a", "c1");
  ASSERT_OK_AND_ASSIGN(MirrorReconcileResult created, Pass());  // labels read from the server
  EXPECT_EQ(created.created, 1);

  label_team_a("prod");
  const size_t events = log_.events().size();
  ASSERT_OK_AND_ASSIGN(MirrorReconcileResult result, Pass());
  EXPECT_EQ(result.deleted, 1);
  EXPECT_THAT(Mirror("team-a"), StatusIs(absl::StatusCode::kNotFound));
  std::vector<v1::Event> added = EventsSince(events);
  ASSERT_EQ(added.size(), 2u);
  EXPECT_EQ(added[0].namespace_labels_observed().namespace_(), "team-a");
  EXPECT_EQ(added[0].namespace_labels_observed().labels(0).value(), "prod");
  EXPECT_EQ(added[1].mirror_deleted().reason(), v1::MIRROR_DELETION_REASON_NAMESPACE_NOT_ALLOWED);
}

TEST_F(MirrorReconcilerTest, NamespaceLabelsComeFromTheLookupWhenItKnowsThem) {
  v1::IdentitySpec spec = Spec({});
  *spec.mutable_allowed_namespaces()->mutable_selector()->add_match_labels() =
      MakeLabel("env", "dev");
  SetSpec(spec);
  Bind("team-a", "c1");
  FakeLookup lookup;  // the server's team-a has no labels; the lookup says env=dev
  lookup.known["team-a"] = NamespaceLabels{true, {MakeLabel("env", "dev")}};
  ASSERT_OK_AND_ASSIGN(MirrorReconcileResult result, Pass(&lookup));
  EXPECT_EQ(result.created, 1);
  lookup.known.clear();  // unknown again: read from the server (no labels)
  ASSERT_OK_AND_ASSIGN(MirrorReconcileResult after, Pass(&lookup));
  EXPECT_EQ(after.deleted, 1);
}

TEST_F(MirrorReconcilerTest, ConflictingSecretIsNeverTouchedAndReported) {
  ASSERT_OK_AND_ASSIGN(nlohmann::json theirs, client_->Create(SecretResource("team-a"),
                                                              ForeignSecret("captf-creds-cloud")));
  const v1::OwnerReference c1 = Bind("team-a", "c1");
  ASSERT_OK_AND_ASSIGN(MirrorReconcileResult result, Pass());
  EXPECT_EQ(result.failed, 1);
  EXPECT_EQ(result.created, 0);
  ASSERT_OK_AND_ASSIGN(nlohmann::json after, Mirror("team-a"));
  EXPECT_EQ(after, theirs);
  const v1::IdentityState state = log_.state();
  const v1::IdentityNamespaceState* entry = projections::FindIdentityNamespace(state, "team-a");
  ASSERT_NE(entry, nullptr);
  EXPECT_EQ(entry->failure().kind(), v1::MIRROR_FAILURE_KIND_CONFLICT);
  EXPECT_THAT(entry->failure().message(), HasSubstr("\"team-a/captf-creds-cloud\""));
  EXPECT_THAT(entry->failure().message(), HasSubstr("rename or remove"));

  // Unbound, it is still not ours to delete.
  Unbind("team-a", c1);
  ASSERT_OK(Pass());
  ASSERT_OK_AND_ASSIGN(nlohmann::json still, Mirror("team-a"));
  EXPECT_EQ(still, theirs);
}

TEST_F(MirrorReconcilerTest, SourceUnderTheMirrorsNameInItsOwnNamespaceIsNeverOverwritten) {
  ASSERT_OK_AND_ASSIGN(
      nlohmann::json source,
      client_->Create(SecretResource("team-a"), {{"apiVersion", "v1"},
                                                 {"kind", "Secret"},
                                                 {"metadata", {{"name", "captf-creds-cloud"}}},
                                                 {"data", {{"user", absl::Base64Escape(kUser)}}}}));
  v1::IdentitySpec spec = Spec({"team-a"});
  spec.mutable_secret_ref()->set_namespace_("team-a");
  spec.mutable_secret_ref()->set_name("captf-creds-cloud");
  SetSpec(spec);
  Bind("team-a", "c1");
  ASSERT_OK_AND_ASSIGN(MirrorReconcileResult result, Pass());
  EXPECT_TRUE(result.source_found);
  EXPECT_EQ(result.failed, 1);
  EXPECT_TRUE(result.retry);
  ASSERT_OK_AND_ASSIGN(nlohmann::json after, Mirror("team-a"));
  EXPECT_EQ(after, source);
  const v1::IdentityState state = log_.state();
  EXPECT_EQ(projections::FindIdentityNamespace(state, "team-a")->failure().kind(),
            v1::MIRROR_FAILURE_KIND_SOURCE_COLLISION);
}

// docs/connections.md, "Mirrors into a registered cluster": the source stays on the home
// cluster; namespaces and mirrors are those of the target cluster.
TEST_F(MirrorReconcilerTest, MirrorsOfARegisteredClusterAreWrittenThereFromTheHomeSource) {
  kubeapi::ApiServerOptions target_options = ServerOptions();
  target_options.state_dir = dir_.path() / "target-apiserver";
  // The target also has the source's namespace: a mirror named like the source there is no
  // collision, since the source lives on the home cluster only.
  target_options.namespaces = {"ops", "team-a"};
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<kubeapi::ApiServer> target_server,
                       kubeapi::ApiServer::Start(std::move(target_options)));
  ASSERT_OK_AND_ASSIGN(ConnectionConfig target_config,
                       LoadKubeconfig(target_server->kubeconfig_path()));
  std::unique_ptr<KubeClient> target = NewClient(target_config, ClientOptions());
  ASSERT_NE(target, nullptr);

  v1::IdentitySpec spec = Spec({"team-a", "ops"});
  spec.mutable_secret_ref()->set_name("captf-creds-cloud");
  ASSERT_OK(client_->Create(SecretResource("ops"), [] {
    nlohmann::json source = SourceSecret(kPassword);
    source["metadata"]["name"] = "captf-creds-cloud";
    return source;
  }()));
  spec.set_cluster("edge");
  SetSpec(spec);
  // The bound objects live where the mirrors do.
  Bind("team-a", "c1", target.get());
  Bind("ops", "c2", target.get());

  MirrorReconciler reconciler(*client_, log_, nullptr, key_);
  ASSERT_OK_AND_ASSIGN(MirrorReconcileResult result,
                       reconciler.Reconcile(log_.state(), nullptr, target.get()));
  EXPECT_TRUE(result.source_found);
  EXPECT_EQ(result.created, 2);
  EXPECT_EQ(result.failed, 0);
  ASSERT_OK_AND_ASSIGN(nlohmann::json home_source,
                       client_->Get(SecretResource("ops", "captf-creds-cloud")));
  for (const std::string ns : {"team-a", "ops"}) {
    ASSERT_OK_AND_ASSIGN(nlohmann::json mirror,
                         target->Get(SecretResource(ns, "captf-creds-cloud")));
    EXPECT_EQ(mirror["data"], home_source["data"]);
  }
  EXPECT_THAT(client_->Get(SecretResource("team-a", "captf-creds-cloud")),
              StatusIs(absl::StatusCode::kNotFound));
  // The home source was read, never written.
  ASSERT_OK_AND_ASSIGN(nlohmann::json after,
                       client_->Get(SecretResource("ops", "captf-creds-cloud")));
  EXPECT_EQ(after, home_source);

  // The cluster goes away: the pass fails and says so in every bound namespace.
  target_server->Stop();
  EXPECT_FALSE(reconciler.Reconcile(log_.state(), nullptr, target.get()).ok());
  const v1::IdentityState state = log_.state();
  for (const std::string ns : {"team-a", "ops"}) {
    const v1::IdentityNamespaceState* entry = projections::FindIdentityNamespace(state, ns);
    ASSERT_NE(entry, nullptr);
    EXPECT_EQ(entry->failure().kind(), v1::MIRROR_FAILURE_KIND_CLUSTER_UNREACHABLE);
    EXPECT_THAT(entry->failure().message(), HasSubstr("cluster \"edge\": "));
  }
  target->Stop();
}

// Regression: a mirror whose removal waited for an unreachable cluster showed no failure.
TEST_F(MirrorReconcilerTest, AClusterFailureIsRecordedInEveryBoundNamespaceAndWhereAMirrorWaits) {
  BindOwner("team-a", Owner("c1", "u1"));
  BindOwner("team-b", Owner("c2", "u2"));
  Unbind("team-b", Owner("c2", "u2"));
  BindOwner("team-c", Owner("c3", "u3"));
  BindOwner("team-d", Owner("c4", "u4"));
  RecordMirrorWritten written;
  written.namespace_name = "team-d";
  written.secret.set_name("captf-creds-cloud");
  written.secret.set_uid("uid-team-d");
  written.source_fingerprint = SourceFingerprint();
  written.kind = v1::MIRROR_WRITE_KIND_CREATED;
  ASSERT_OK(log_.Record(log_.state().name(), {written}, "credledger:test/written").status());
  Unbind("team-d", Owner("c4", "u4"));
  MirrorReconciler reconciler(*client_, log_, nullptr, key_);
  ASSERT_OK(reconciler.RecordClusterFailure(log_.state(),
                                            v1::MIRROR_FAILURE_KIND_CLUSTER_UNREACHABLE,
                                            "cluster \"edge\": connection refused"));
  std::vector<std::string> failed;
  for (const v1::Event& e : log_.events()) {
    if (!e.has_mirror_failed()) continue;
    failed.push_back(e.mirror_failed().namespace_());
    EXPECT_EQ(e.mirror_failed().kind(), v1::MIRROR_FAILURE_KIND_CLUSTER_UNREACHABLE);
    EXPECT_EQ(e.mirror_failed().message(), "cluster \"edge\": connection refused");
  }
  EXPECT_THAT(failed, ElementsAre("team-a", "team-c", "team-d"));
  const v1::IdentityState state = log_.state();
  EXPECT_EQ(projections::FindIdentityNamespace(state, "team-a")->credentials_mirrored().reason(),
            "MirrorFailed");
}

TEST_F(MirrorReconcilerTest, MissingSourceLeavesTheMirrorsAndIsReported) {
  CreateTwoMirrors();
  ASSERT_OK_AND_ASSIGN(nlohmann::json before, Mirror("team-a"));
  ASSERT_OK(client_->Delete(SecretResource("ops", "cloud-src")));
  ASSERT_OK_AND_ASSIGN(MirrorReconcileResult result, Pass());
  EXPECT_FALSE(result.source_found);
  EXPECT_EQ(result.failed, 2);
  EXPECT_EQ(result.deleted, 0);
  ASSERT_OK_AND_ASSIGN(nlohmann::json after, Mirror("team-a"));
  EXPECT_EQ(after["metadata"]["resourceVersion"], before["metadata"]["resourceVersion"]);
  const v1::IdentityState state = log_.state();
  EXPECT_FALSE(state.source().found());
  EXPECT_EQ(projections::FindIdentityNamespace(state, "team-b")->failure().kind(),
            v1::MIRROR_FAILURE_KIND_SOURCE_NOT_FOUND);
}

// Regression: a pass that left a namespace waiting on a Secret holding the mirror's name or
// on a missing source said so nowhere, so nothing ran the identity again before the next
// resync; and a source back with the data it had left its SOURCE_NOT_FOUND failure standing.
TEST_F(MirrorReconcilerTest, APassLeavingANamespaceWaitingAsksForARetryUntilTheCauseIsGone) {
  ASSERT_OK(client_->Create(SecretResource("team-a"), ForeignSecret("captf-creds-cloud")));
  Bind("team-a", "c1");
  ASSERT_OK_AND_ASSIGN(MirrorReconcileResult conflict, Pass());
  EXPECT_EQ(conflict.failed, 1);
  EXPECT_TRUE(conflict.retry);

  ASSERT_OK(client_->Delete(SecretResource("team-a", "captf-creds-cloud")));
  ASSERT_OK_AND_ASSIGN(MirrorReconcileResult created, Pass());
  EXPECT_EQ(created.created, 1);
  EXPECT_FALSE(created.retry);

  ASSERT_OK(client_->Delete(SecretResource("ops", "cloud-src")));
  ASSERT_OK_AND_ASSIGN(MirrorReconcileResult missing, Pass());
  EXPECT_EQ(missing.failed, 1);
  EXPECT_TRUE(missing.retry);
  EXPECT_EQ(projections::FindIdentityNamespace(log_.state(), "team-a")->failure().kind(),
            v1::MIRROR_FAILURE_KIND_SOURCE_NOT_FOUND);

  ASSERT_OK(client_->Create(SecretResource("ops"), SourceSecret(kPassword)));  // the same data
  ASSERT_OK_AND_ASSIGN(MirrorReconcileResult back, Pass());
  EXPECT_EQ(back.created + back.updated + back.adopted + back.failed, 0);
  EXPECT_FALSE(back.retry);
  const v1::IdentityState state = log_.state();
  const v1::IdentityNamespaceState* entry = projections::FindIdentityNamespace(state, "team-a");
  ASSERT_NE(entry, nullptr);
  EXPECT_FALSE(entry->has_failure());
  EXPECT_EQ(entry->credentials_mirrored().status(), "True");
  EXPECT_EQ(entry->credentials_mirrored().reason(), projections::kReasonMirrored);
}

TEST_F(MirrorReconcilerTest, LastUnbindDeletesTheMirror) {
  CreateTwoMirrors();
  Unbind("team-b", c2_);
  const size_t events = log_.events().size();
  ASSERT_OK_AND_ASSIGN(MirrorReconcileResult result, Pass());
  EXPECT_EQ(result.deleted, 1);
  EXPECT_THAT(Mirror("team-b"), StatusIs(absl::StatusCode::kNotFound));
  EXPECT_OK(Mirror("team-a"));
  std::vector<v1::Event> added = EventsSince(events);
  ASSERT_EQ(added.size(), 1u);
  EXPECT_EQ(added[0].mirror_deleted().reason(), v1::MIRROR_DELETION_REASON_UNBOUND);
}

TEST_F(MirrorReconcilerTest, MirrorDeletedBySomeoneElseIsRecordedAndRecreated) {
  CreateTwoMirrors();
  ASSERT_OK_AND_ASSIGN(nlohmann::json before, Mirror("team-a"));
  ASSERT_OK(client_->Delete(SecretResource("team-a", "captf-creds-cloud")));
  const size_t events = log_.events().size();
  ASSERT_OK_AND_ASSIGN(MirrorReconcileResult result, Pass());
  EXPECT_EQ(result.deleted_externally, 1);
  EXPECT_EQ(result.created, 1);
  ASSERT_OK_AND_ASSIGN(nlohmann::json after, Mirror("team-a"));
  std::vector<v1::Event> added = EventsSince(events);
  ASSERT_EQ(added.size(), 2u);
  EXPECT_EQ(added[0].mirror_deleted_externally().secret().uid(), before["metadata"]["uid"]);
  EXPECT_EQ(added[1].mirror_written().kind(), v1::MIRROR_WRITE_KIND_CREATED);
  EXPECT_EQ(added[1].mirror_written().secret().uid(), after["metadata"]["uid"]);
  EXPECT_NE(after["metadata"]["uid"], before["metadata"]["uid"]);
}

TEST_F(MirrorReconcilerTest, MirrorsTheLogDoesNotKnowAreAdoptedWithoutWrites) {
  CreateTwoMirrors();
  // The same identity and bindings, without the outcomes (as after a crash before recording).
  FakeIdentityLog fresh;
  for (const v1::Event& e : log_.events()) {
    if (e.has_identity_created() || e.has_identity_bound()) fresh.Append(e);
  }
  const int64_t version = server_->resource_version();
  MirrorReconciler reconciler(*client_, fresh, nullptr, key_);
  ASSERT_OK_AND_ASSIGN(MirrorReconcileResult result, reconciler.Reconcile(fresh.state(), nullptr));
  EXPECT_EQ(result.adopted, 2);
  EXPECT_EQ(server_->resource_version(), version);
  ASSERT_OK_AND_ASSIGN(nlohmann::json mirror, Mirror("team-b"));
  const v1::IdentityState state = fresh.state();
  EXPECT_EQ(projections::FindIdentityNamespace(state, "team-b")->mirror().secret().uid(),
            mirror["metadata"]["uid"]);
}

TEST_F(MirrorReconcilerTest, WriteFailureInOneNamespaceIsRecordedAndTheOthersProceed) {
  kubeapi::Fault refuse;
  refuse.method = "POST";
  refuse.path_prefix = "/api/v1/namespaces/team-a/secrets";
  refuse.status_code = 500;  // retried by the client, then kUnavailable
  server_->faults().Add(refuse);
  Bind("team-a", "c1");
  Bind("team-b", "c2");
  absl::StatusOr<MirrorReconcileResult> failed = Pass();
  EXPECT_THAT(failed, StatusIs(absl::StatusCode::kUnavailable));
  EXPECT_OK(Mirror("team-b"));
  v1::IdentityState state = log_.state();
  const v1::IdentityNamespaceState* team_a = projections::FindIdentityNamespace(state, "team-a");
  EXPECT_EQ(team_a->failure().kind(), v1::MIRROR_FAILURE_KIND_WRITE_FAILED);
  EXPECT_THAT(team_a->failure().message(), HasSubstr("\"team-a/captf-creds-cloud\""));
  EXPECT_THAT(team_a->failure().message(), HasSubstr("injected fault"));
  EXPECT_TRUE(projections::FindIdentityNamespace(state, "team-b")->has_mirror());

  server_->faults().Clear();
  ASSERT_OK_AND_ASSIGN(MirrorReconcileResult retried, Pass());
  EXPECT_EQ(retried.created, 1);
  EXPECT_OK(Mirror("team-a"));
}

// A restart keeps the key: the mirrors the log records are steady, nothing is written or
// recorded. A restart with a rotated key records the source once more under the new key id
// and adopts every mirror, without writing to the cluster: the annotation stays the plain
// hash (docs/audit.md, "Source fingerprints").
TEST_F(MirrorReconcilerTest, ARestartAdoptsTheMirrorsAndARotatedKeyIsRecordedWithoutWrites) {
  CreateTwoMirrors();
  const int64_t version = server_->resource_version();
  size_t events = log_.events().size();
  ASSERT_OK_AND_ASSIGN(MirrorReconcileResult same_key, Pass());
  EXPECT_EQ(same_key.adopted + same_key.created + same_key.updated, 0);
  EXPECT_EQ(log_.events().size(), events);

  const common::FingerprintKey rotated = *common::FingerprintKey::Generate();
  ASSERT_NE(rotated.key_id(), key_.key_id());
  MirrorReconciler restarted(*client_, log_, nullptr, rotated);
  ASSERT_OK_AND_ASSIGN(MirrorReconcileResult result, restarted.Reconcile(log_.state(), nullptr));
  EXPECT_EQ(result.adopted, 2);
  EXPECT_EQ(result.created + result.updated + result.failed, 0);
  EXPECT_EQ(server_->resource_version(), version);
  const std::string fingerprint = Digest(&rotated).fingerprint;
  EXPECT_THAT(fingerprint, ::testing::StartsWith("hmac-sha256:" + rotated.key_id() + ":"));
  std::vector<v1::Event> added = EventsSince(events);
  ASSERT_EQ(added.size(), 3u);
  EXPECT_EQ(added[0].source_secret_observed().source_fingerprint(), fingerprint);
  for (size_t i = 1; i < added.size(); ++i) {
    EXPECT_EQ(added[i].mirror_written().kind(), v1::MIRROR_WRITE_KIND_ADOPTED);
    EXPECT_EQ(added[i].mirror_written().source_fingerprint(), fingerprint);
  }
  const v1::IdentityState state = log_.state();
  for (const char* ns : {"team-a", "team-b"}) {
    ASSERT_OK_AND_ASSIGN(nlohmann::json mirror, Mirror(ns));
    EXPECT_EQ(mirror["metadata"]["annotations"]["captf.io/source-hash"], SourceHash()) << ns;
    EXPECT_EQ(projections::FindIdentityNamespace(state, ns)->credentials_mirrored().status(),
              "True")
        << ns;
  }
  events = log_.events().size();
  ASSERT_OK(restarted.Reconcile(log_.state(), nullptr).status());
  EXPECT_EQ(log_.events().size(), events);
}

// A log whose source observation and mirror records carry plain hashes (version 1 events)
// gets one SourceSecretObserved and one adoption per mirror under the fingerprint key, and no
// write to the cluster; then it is steady (docs/mirrors.md, "Logs with plain source hashes").
TEST_F(MirrorReconcilerTest, MirrorsRecordedWithPlainHashesAreAdoptedOnceWithoutWrites) {
  CreateTwoMirrors();
  FakeIdentityLog plain;
  for (const v1::Event& e : log_.events())
    plain.Append(::credledger::testing::AsVersion1(e, SourceHash()));
  const v1::IdentityState before = plain.state();
  EXPECT_EQ(projections::FindIdentityNamespace(before, "team-a")->credentials_mirrored().status(),
            "True");
  const int64_t version = server_->resource_version();
  const size_t events = plain.events().size();
  MirrorReconciler reconciler(*client_, plain, nullptr, key_);
  ASSERT_OK_AND_ASSIGN(MirrorReconcileResult result, reconciler.Reconcile(plain.state(), nullptr));
  EXPECT_EQ(result.adopted, 2);
  EXPECT_EQ(server_->resource_version(), version);
  EXPECT_EQ(plain.events().size(), events + 3);
  EXPECT_EQ(plain.state().source().source_fingerprint(), SourceFingerprint());
  ASSERT_OK(reconciler.Reconcile(plain.state(), nullptr).status());
  EXPECT_EQ(plain.events().size(), events + 3);
}

TEST_F(MirrorReconcilerTest, InactiveIdentityReadsAndWritesNothing) {
  // Any read of the source would fail.
  kubeapi::Fault broken;
  broken.path_prefix = "/api/v1/namespaces/ops/secrets";
  broken.status_code = 400;
  server_->faults().Add(broken);
  v1::IdentityState deleted = log_.state();
  deleted.set_phase(v1::IdentityState::PHASE_DELETED);
  MirrorReconciler reconciler(*client_, log_, nullptr, key_);
  ASSERT_OK_AND_ASSIGN(MirrorReconcileResult result, reconciler.Reconcile(deleted, nullptr));
  EXPECT_FALSE(result.source_found);
  EXPECT_TRUE(log_.calls().empty());
  EXPECT_EQ(server_->faults().fired(), 0);
}

TEST_F(MirrorReconcilerTest, NoSecretValueReachesAnyRecordedOutcome) {
  CreateTwoMirrors();
  RotateSource();
  ASSERT_OK(Pass());
  SetSpec(Spec({"team-a"}));
  ASSERT_OK(Pass());
  for (const char* value : {kUser, kPassword, kRotatedPassword}) {
    const std::string encoded = absl::Base64Escape(value);
    for (const v1::Event& e : log_.events()) {
      const std::string bytes = e.SerializeAsString();
      EXPECT_FALSE(absl::StrContains(bytes, value)) << e.DebugString();
      EXPECT_FALSE(absl::StrContains(bytes, encoded)) << e.DebugString();
    }
  }
}

}  // namespace mirror_reconciler_test
}  // namespace credledger::kubebridge
