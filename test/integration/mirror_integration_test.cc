// Credential mirrors end to end (docs/mirrors.md, "How a change propagates" and "Conditions"):
// a real credledger Server (SQLite file, gRPC on 127.0.0.1 port 0) whose kube bridge talks to
// the test Kubernetes API server over HTTPS. Identities are created and bound through
// IdentityService; the mirrors are checked in the cluster and the conditions through the API.
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/escaping.h"
#include "absl/strings/match.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "test/integration/mirror_integration_fixture.h"

namespace credledger {
namespace mirror_integration_test {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Not;

using MirrorIntegrationTest = MirrorIntegrationFixture;

TEST_F(MirrorIntegrationTest, BindingMirrorsTheSourceWithLabelsAnnotationsAndOwnerReferences) {
  ASSERT_TRUE(Create(ListSpec({"team-a"})).ok());
  const v1::OwnerReference plan = Job("team-a", "plan");
  ASSERT_TRUE(Bind("team-a", plan).ok());
  const Digests hash = DigestsOf(kAccessKey, kSecretKey);
  v1::IdentityState state =
      WaitFor([&](const auto& s) { return Mirrored(s, "team-a", hash); }, "mirror in team-a");
  EXPECT_EQ(Ns(state, "team-a")->identity_allowed().reason(), "NamespaceAllowed");
  EXPECT_EQ(Ns(state, "team-a")->credentials_mirrored().reason(), "Mirrored");

  nlohmann::json mirror = MirrorIn("team-a");
  ASSERT_TRUE(mirror.is_object());
  EXPECT_EQ(StringAt(mirror, {"type"}), "Opaque");
  EXPECT_EQ(StringAt(mirror, {"metadata", "labels", "captf.io/mirrored"}), "true");
  EXPECT_EQ(StringAt(mirror, {"metadata", "labels", "captf.io/managed"}), "true");
  EXPECT_EQ(StringAt(mirror, {"metadata", "annotations", "captf.io/source-hash"}), hash.hash);
  EXPECT_EQ(StringAt(mirror, {"metadata", "annotations", "captf.io/identity"}), kIdentity);
  EXPECT_EQ(StringAt(mirror, {"data", "access_key"}), absl::Base64Escape(kAccessKey));
  EXPECT_EQ(StringAt(mirror, {"data", "secret_key"}), absl::Base64Escape(kSecretKey));
  const nlohmann::json& refs = mirror["metadata"]["ownerReferences"];
  ASSERT_EQ(refs.size(), 1u);
  EXPECT_EQ(refs[0]["uid"], plan.uid());
  EXPECT_EQ(refs[0]["kind"], "Job");
  EXPECT_FALSE(refs[0].contains("controller"));
  EXPECT_FALSE(refs[0].contains("blockOwnerDeletion"));

  // A second object adds its reference; a re-created object replaces its older uid.
  const v1::OwnerReference apply = Job("team-a", "apply");
  const v1::OwnerReference recreated = Job("team-a", "plan");
  ASSERT_TRUE(Bind("team-a", apply).ok());
  ASSERT_TRUE(Bind("team-a", recreated).ok());
  WaitFor(
      [&](const auto& s) {
        const v1::IdentityNamespaceState* entry = Ns(s, "team-a");
        return entry != nullptr && entry->mirror().owners_size() == 2 &&
               entry->mirror().owners(1).uid() == recreated.uid();
      },
      "two owner references, the newer uid");
  std::vector<std::string> uids;
  const nlohmann::json updated = MirrorIn("team-a");
  for (const auto& ref : updated["metadata"]["ownerReferences"]) {
    uids.push_back(ref["uid"]);
  }
  EXPECT_THAT(uids, ElementsAre(apply.uid(), recreated.uid()));
}

TEST_F(MirrorIntegrationTest, ARotatedSourceReachesEveryMirrorWithinSeconds) {
  ASSERT_TRUE(Create(ListSpec({"team-a", "team-b"})).ok());
  ASSERT_TRUE(Bind("team-a", Job("team-a", "plan")).ok());
  ASSERT_TRUE(Bind("team-b", Job("team-b", "plan")).ok());
  const Digests before = DigestsOf(kAccessKey, kSecretKey);
  WaitFor([&](const auto& s) { return Mirrored(s, "team-a", before) && Mirrored(s, "team-b", before); },
          "both mirrors");

  const absl::Time rotated = absl::Now();
  RotateSource("AKIA-rotated-0002", "rotated-secret-0002");
  const Digests after = DigestsOf("AKIA-rotated-0002", "rotated-secret-0002");
  // The source watch, not the 10-minute resync, carries the change.
  WaitFor([&](const auto& s) { return Mirrored(s, "team-a", after) && Mirrored(s, "team-b", after); },
          "both mirrors rotated");
  EXPECT_LT(absl::Now() - rotated, absl::Seconds(10));
  for (const char* ns : {"team-a", "team-b"}) {
    nlohmann::json mirror = MirrorIn(ns);
    EXPECT_EQ(StringAt(mirror, {"data", "access_key"}), absl::Base64Escape("AKIA-rotated-0002"));
    EXPECT_EQ(StringAt(mirror, {"metadata", "annotations", "captf.io/source-hash"}), after.hash);
  }
}

TEST_F(MirrorIntegrationTest, NarrowingTheListDeletesThatMirrorAndReportsNamespaceNotAllowed) {
  ASSERT_TRUE(Create(ListSpec({"team-a", "team-b"})).ok());
  ASSERT_TRUE(Bind("team-a", Job("team-a", "plan")).ok());
  ASSERT_TRUE(Bind("team-b", Job("team-b", "plan")).ok());
  const Digests hash = DigestsOf(kAccessKey, kSecretKey);
  WaitFor([&](const auto& s) { return Mirrored(s, "team-a", hash) && Mirrored(s, "team-b", hash); },
          "both mirrors");

  ASSERT_TRUE(Update(ListSpec({"team-a"})).ok());
  v1::IdentityState state = WaitFor([&](const auto& s) { return NoMirror(s, "team-b"); },
                                    "team-b's mirror deleted");
  EXPECT_TRUE(MirrorIn("team-b").is_null());
  EXPECT_TRUE(MirrorIn("team-a").is_object());
  ASSERT_NE(Ns(state, "team-b"), nullptr);  // still bound
  EXPECT_EQ(Ns(state, "team-b")->identity_allowed().status(), "False");
  EXPECT_EQ(Ns(state, "team-b")->identity_allowed().reason(), "NamespaceNotAllowed");
  EXPECT_EQ(Ns(state, "team-b")->credentials_mirrored().status(), "False");
}

TEST_F(MirrorIntegrationTest, RelabellingANamespaceOutOfTheSelectorRevokesItsMirror) {
  v1::IdentitySpec spec = ListSpec({});
  v1::Label* env = spec.mutable_allowed_namespaces()->mutable_selector()->add_match_labels();
  env->set_key("env");
  env->set_value("prod");
  Relabel("team-c", {{"env", "prod"}});
  ASSERT_TRUE(Create(spec).ok());
  ASSERT_TRUE(Bind("team-c", Job("team-c", "plan")).ok());
  const Digests hash = DigestsOf(kAccessKey, kSecretKey);
  WaitFor([&](const auto& s) { return Mirrored(s, "team-c", hash); }, "mirror in team-c");

  Relabel("team-c", {{"env", "dev"}});
  v1::IdentityState state = WaitFor([&](const auto& s) { return NoMirror(s, "team-c"); },
                                    "team-c's mirror deleted after relabelling");
  EXPECT_TRUE(MirrorIn("team-c").is_null());
  EXPECT_EQ(Ns(state, "team-c")->identity_allowed().reason(), "NamespaceNotAllowed");
  EXPECT_THAT(StreamTypes(), ::testing::Contains("NamespaceLabelsObserved"));
}

TEST_F(MirrorIntegrationTest, AForeignSecretWithTheMirrorsNameIsNeverTouched) {
  const std::string name = projections::MirrorSecretName(kIdentity);
  ASSERT_OK_AND_ASSIGN(
      nlohmann::json foreign,
      client_->Create(kubebridge::SecretResource("team-d"),
                      {{"apiVersion", "v1"},
                       {"kind", "Secret"},
                       {"metadata", {{"name", name}}},
                       {"data", {{"mine", absl::Base64Escape("keep me")}}}}));
  ASSERT_TRUE(Create(ListSpec({"team-d"})).ok());
  ASSERT_TRUE(Bind("team-d", Job("team-d", "plan")).ok());
  v1::IdentityState state = WaitFor(
      [&](const auto& s) {
        const v1::IdentityNamespaceState* entry = Ns(s, "team-d");
        return entry != nullptr && entry->credentials_mirrored().reason() == "MirrorFailed";
      },
      "MirrorFailed in team-d");
  EXPECT_EQ(Ns(state, "team-d")->credentials_mirrored().status(), "False");
  EXPECT_THAT(Ns(state, "team-d")->credentials_mirrored().message(), HasSubstr("rename or remove"));
  nlohmann::json live = MirrorIn("team-d");
  EXPECT_EQ(live["metadata"]["resourceVersion"], foreign["metadata"]["resourceVersion"]);
  EXPECT_EQ(StringAt(live, {"data", "mine"}), absl::Base64Escape("keep me"));

  // Unbinding does not delete it either.
  ASSERT_TRUE(Unbind("team-d", testing::JobOwner("plan", "")).ok());
  WaitFor([&](const auto& s) { return Ns(s, "team-d") == nullptr; }, "team-d dropped");
  ASSERT_TRUE(server_->mirror_bridge()->WaitIdle(absl::Seconds(10)));
  EXPECT_TRUE(MirrorIn("team-d").is_object());
}

TEST_F(MirrorIntegrationTest, TheLastUnbindRemovesTheMirrorAndOnlyThenMayTheIdentityGo) {
  ASSERT_TRUE(Create(ListSpec({"team-a"})).ok());
  ASSERT_TRUE(Bind("team-a", Job("team-a", "plan")).ok());
  const v1::OwnerReference apply = Job("team-a", "apply");
  ASSERT_TRUE(Bind("team-a", apply).ok());
  const Digests hash = DigestsOf(kAccessKey, kSecretKey);
  WaitFor([&](const auto& s) { return Mirrored(s, "team-a", hash); }, "mirror");

  grpc::Status refused = Delete();
  EXPECT_EQ(refused.error_code(), grpc::StatusCode::FAILED_PRECONDITION);
  EXPECT_THAT(refused.error_message(), HasSubstr("team-a"));

  ASSERT_TRUE(Unbind("team-a", testing::JobOwner("plan", "")).ok());
  WaitFor([&](const auto& s) { return Ns(s, "team-a")->mirror().owners_size() == 1; },
          "one owner left");
  EXPECT_TRUE(MirrorIn("team-a").is_object());
  ASSERT_TRUE(Unbind("team-a", apply).ok());
  WaitFor([&](const auto& s) { return Ns(s, "team-a") == nullptr; }, "mirror deleted");
  EXPECT_TRUE(MirrorIn("team-a").is_null());

  EXPECT_TRUE(Delete().ok());
  EXPECT_THAT(StreamTypes(), ::testing::Contains("MirrorDeleted"));
  EXPECT_EQ(StreamTypes().back(), "IdentityDeleted");
}

TEST_F(MirrorIntegrationTest, ACallerWhoMayNotReadTheSourceIsRefusedAndNothingIsAppended) {
  const int64_t head = server_->event_store()->HeadSeq();
  grpc::Status denied = Create(ListSpec({"team-a"}), "mallory");
  EXPECT_EQ(denied.error_code(), grpc::StatusCode::PERMISSION_DENIED);
  EXPECT_THAT(denied.error_message(), HasSubstr("mallory-k8s"));
  EXPECT_THAT(denied.error_message(), HasSubstr("captf-system/aws-keys"));
  EXPECT_EQ(server_->event_store()->HeadSeq(), head);

  // The same spec by a caller the cluster lets read the Secret is accepted, and the review
  // is recorded with the event.
  ASSERT_TRUE(Create(ListSpec({"team-a"})).ok());
  v1::IdentityState state = Get();
  EXPECT_EQ(state.access_review().user(), "alice-k8s");
  EXPECT_THAT(state.access_review().groups(), ElementsAre("platform"));
  EXPECT_TRUE(state.access_review().allowed());
}

// Reads a whole file (empty when it does not exist).
std::string Slurp(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream bytes;
  bytes << in.rdbuf();
  return bytes.str();
}

TEST_F(MirrorIntegrationTest, SourceDataNeverReachesTheLogTheExportOrTheApi) {
  ASSERT_TRUE(Create(ListSpec({"team-a"})).ok());
  ASSERT_TRUE(Bind("team-a", Job("team-a", "plan")).ok());
  const Digests hash = DigestsOf(kAccessKey, kSecretKey);
  WaitFor([&](const auto& s) { return Mirrored(s, "team-a", hash); }, "mirror");
  RotateSource("AKIA-rotated-0003", "rotated-secret-0003");
  WaitFor(
      [&](const auto& s) {
        return Mirrored(s, "team-a", DigestsOf("AKIA-rotated-0003", "rotated-secret-0003"));
      },
      "rotated");

  std::string api_text;
  v1::ListMirrorsResponse mirrors;
  ASSERT_TRUE(Call(&v1::IdentityService::Stub::ListMirrors, v1::ListMirrorsRequest(), &mirrors)
                  .ok());
  api_text = mirrors.SerializeAsString() + Get().SerializeAsString();

  auto audit = v1::AuditService::NewStub(channel_);
  grpc::ClientContext context;
  context.AddMetadata("credledger-actor", "alice");
  v1::ExportEventsRequest request;
  std::unique_ptr<grpc::ClientReader<v1::ExportEventsResponse>> reader =
      audit->ExportEvents(&context, request);
  std::string exported;
  v1::ExportEventsResponse item;
  while (reader->Read(&item)) exported += item.SerializeAsString();
  ASSERT_TRUE(reader->Finish().ok());
  // The log names the data by its fingerprint; the plain hash stays in the cluster.
  EXPECT_THAT(exported, HasSubstr(hash.fingerprint));
  EXPECT_THAT(exported, Not(HasSubstr(hash.hash)));
  EXPECT_THAT(api_text, Not(HasSubstr(hash.hash)));

  server_->Shutdown();
  const std::filesystem::path db = dir_.path() / "var" / "credledger.db";
  const std::string log = Slurp(db) + Slurp(db.string() + "-wal");
  ASSERT_FALSE(log.empty());
  for (const std::string& value : {std::string(kAccessKey), std::string(kSecretKey),
                                   std::string("AKIA-rotated-0003"),
                                   std::string("rotated-secret-0003"),
                                   absl::Base64Escape(kSecretKey)}) {
    EXPECT_FALSE(absl::StrContains(log, value)) << value;
    EXPECT_FALSE(absl::StrContains(exported, value)) << value;
    EXPECT_FALSE(absl::StrContains(api_text, value)) << value;
  }
}

}  // namespace mirror_integration_test
}  // namespace credledger
