// Mirrors end to end when the cluster changes under them (docs/mirrors.md, "Bindings", "How a
// change propagates" and "Conditions"): bound objects that are gone, the test API server's
// garbage collector (run on demand, as kube-controller-manager's would run) deleting a mirror
// whose owners are gone, and a mirror whose labels someone removed. Each state change is recorded once, never once per pass.
#include <algorithm>
#include <string>
#include <vector>

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "test/integration/mirror_integration_fixture.h"

namespace credledger {
namespace mirror_integration_test {
namespace {

using ::testing::HasSubstr;

class MirrorOwnersTest : public MirrorIntegrationFixture {
 protected:
  // How many events of `type` (short name) the identity's stream holds.
  int Count(const std::string& type) {
    const std::vector<std::string> types = StreamTypes();
    return static_cast<int>(std::count(types.begin(), types.end(), type));
  }
  // Waits until the bridge has nothing to do and no event is being folded.
  void Settle() {
    ASSERT_TRUE(server_->mirror_bridge()->WaitIdle(absl::Seconds(20)));
    projections::IdentityProjector* projector = server_->identity_projector();
    ASSERT_TRUE(projector->WaitForSeq(server_->event_store()->HeadSeq(), absl::Seconds(20)));
  }
  static bool GoneIn(const v1::IdentityState& s, const std::string& ns) {
    const v1::IdentityNamespaceState* entry = Ns(s, ns);
    return entry != nullptr &&
           entry->credentials_mirrored().reason() == projections::kReasonBoundObjectGone;
  }
};

// Regression: on a real cluster, a mirror whose owner was deleted while still bound was
// deleted by the garbage collector and re-created by credledger every second or two, forever,
// while the identity said CredentialsMirrored=True.
TEST_F(MirrorOwnersTest, AnOwnerDeletedWhileBoundEndsItsMirrorOnceAndForAll) {
  ASSERT_TRUE(Create(ListSpec({"team-a", "team-b"})).ok());
  const v1::OwnerReference plan = Job("team-a", "plan");
  ASSERT_TRUE(Bind("team-a", plan).ok());
  ASSERT_TRUE(Bind("team-b", Job("team-b", "plan")).ok());
  const Digests hash = DigestsOf(kAccessKey, kSecretKey);
  WaitFor([&](const auto& s) { return Mirrored(s, "team-a", hash) && Mirrored(s, "team-b", hash); },
          "both mirrors");

  // The Job goes; the garbage collector then deletes the mirror that names it.
  ASSERT_OK(client_->Delete(testing::JobResource("team-a", "plan")));
  EXPECT_EQ(api_->CollectGarbage(), 1);
  v1::IdentityState state = WaitFor([&](const auto& s) { return GoneIn(s, "team-a"); },
                                    "team-a reports its bound object gone");
  const v1::Condition& mirrored = Ns(state, "team-a")->credentials_mirrored();
  EXPECT_EQ(mirrored.status(), "False");
  EXPECT_THAT(mirrored.message(), HasSubstr("namespace team-a"));
  EXPECT_THAT(mirrored.message(), HasSubstr("Job plan (batch/v1, uid " + plan.uid() + ")"));
  EXPECT_TRUE(Ns(state, "team-a")->bindings(0).gone());
  ASSERT_NO_FATAL_FAILURE(Settle());
  EXPECT_TRUE(MirrorIn("team-a").is_null());
  EXPECT_EQ(Count("MirrorDeletedExternally"), 1);
  EXPECT_EQ(Count("BoundObjectGone"), 1);
  EXPECT_EQ(Count("MirrorWritten"), 2);

  // Later passes (each rotation runs one) write nothing there, give the collector nothing
  // to delete, and record nothing new about it.
  Digests after;
  for (int i = 0; i < 3; ++i) {
    const std::string key = absl::StrCat("AKIA-rotated-040", i);
    const std::string secret = absl::StrCat("rotated-secret-040", i);
    RotateSource(key, secret);
    after = DigestsOf(key, secret);
    WaitFor([&](const auto& s) { return Mirrored(s, "team-b", after); }, "team-b rotated");
    ASSERT_NO_FATAL_FAILURE(Settle());
    EXPECT_EQ(api_->CollectGarbage(), 0);
  }
  EXPECT_TRUE(MirrorIn("team-a").is_null());
  EXPECT_EQ(Count("MirrorDeletedExternally"), 1);
  EXPECT_EQ(Count("BoundObjectGone"), 1);
  EXPECT_EQ(Count("MirrorWritten"), 5);

  // Binding the Job that replaced it brings the mirror back, referencing the new uid.
  const v1::OwnerReference successor = Job("team-a", "plan");
  ASSERT_TRUE(Bind("team-a", successor).ok());
  WaitFor([&](const auto& s) { return Mirrored(s, "team-a", after); }, "team-a mirrored again");
  const nlohmann::json refs = MirrorIn("team-a")["metadata"]["ownerReferences"];
  ASSERT_EQ(refs.size(), 1u);
  EXPECT_EQ(refs[0]["uid"], successor.uid());
}

// Regression: an object bound by the uid of an object that no longer exists got a mirror the
// collector deleted at once, over and over.
TEST_F(MirrorOwnersTest, BindingTheUidOfAnObjectThatIsGoneWritesNoMirror) {
  const v1::OwnerReference plan = Job("team-a", "plan");
  ASSERT_OK(client_->Delete(testing::JobResource("team-a", "plan")));
  ASSERT_TRUE(Create(ListSpec({"team-a"})).ok());
  ASSERT_TRUE(Bind("team-a", plan).ok());
  v1::IdentityState state =
      WaitFor([&](const auto& s) { return GoneIn(s, "team-a"); }, "the bound Job reported gone");
  EXPECT_THAT(Ns(state, "team-a")->credentials_mirrored().message(), HasSubstr(plan.uid()));
  for (int i = 0; i < 3; ++i) {
    RotateSource(absl::StrCat("AKIA-rotated-01", i), absl::StrCat("rotated-secret-01", i));
    WaitFor(
        [&](const auto& s) {
          return s.source().source_fingerprint() ==
                 DigestsOf(absl::StrCat("AKIA-rotated-01", i), absl::StrCat("rotated-secret-01", i))
                     .fingerprint;
        },
        "the rotation observed");
    ASSERT_NO_FATAL_FAILURE(Settle());
    EXPECT_EQ(api_->CollectGarbage(), 0);
  }
  EXPECT_TRUE(MirrorIn("team-a").is_null());
  EXPECT_EQ(Count("BoundObjectGone"), 1);
  EXPECT_EQ(Count("MirrorWritten"), 0);
  EXPECT_EQ(Count("MirrorFailed"), 0);
}

// Regression: after `kubectl label secret captf-creds-aws-prod captf.io/managed-`, a rotation
// failed with a conflict (the mirror taken for someone else's Secret), the copy kept the old
// credential, and disallowing the namespace left it there with no MirrorDeleted recorded.
TEST_F(MirrorOwnersTest, AMirrorWithoutItsLabelStaysOursAndIsRotatedAndRevoked) {
  ASSERT_TRUE(Create(ListSpec({"team-a", "team-b"})).ok());
  ASSERT_TRUE(Bind("team-a", Job("team-a", "plan")).ok());
  const Digests hash = DigestsOf(kAccessKey, kSecretKey);
  WaitFor([&](const auto& s) { return Mirrored(s, "team-a", hash); }, "mirror in team-a");
  const std::string name = projections::MirrorSecretName(kIdentity);
  nlohmann::json live = MirrorIn("team-a");
  const std::string uid = StringAt(live, {"metadata", "uid"});
  live["metadata"]["labels"].erase("captf.io/managed");
  ASSERT_OK(client_->Update(kubebridge::SecretResource("team-a", name), live).status());

  RotateSource("AKIA-rotated-0005", "rotated-secret-0005");
  const Digests after = DigestsOf("AKIA-rotated-0005", "rotated-secret-0005");
  WaitFor([&](const auto& s) { return Mirrored(s, "team-a", after); }, "the copy rotated");
  nlohmann::json rotated = MirrorIn("team-a");
  EXPECT_EQ(StringAt(rotated, {"metadata", "uid"}), uid);
  EXPECT_EQ(StringAt(rotated, {"metadata", "labels", "captf.io/managed"}), "true");
  EXPECT_EQ(StringAt(rotated, {"data", "access_key"}), absl::Base64Escape("AKIA-rotated-0005"));

  rotated["metadata"]["labels"].erase("captf.io/managed");
  ASSERT_OK(client_->Update(kubebridge::SecretResource("team-a", name), rotated).status());
  ASSERT_TRUE(Update(ListSpec({"team-b"})).ok());
  WaitFor([&](const auto& s) { return NoMirror(s, "team-a"); }, "the copy deleted");
  EXPECT_TRUE(MirrorIn("team-a").is_null());
  ASSERT_NO_FATAL_FAILURE(Settle());
  EXPECT_EQ(Count("MirrorDeleted"), 1);
  EXPECT_EQ(Count("MirrorDeletedExternally"), 0);
  EXPECT_EQ(Count("MirrorFailed"), 0);
  auto events =
      server_->event_store()->ReadStream(projections::IdentityStream(kIdentity), 0, 10000);
  ASSERT_OK(events.status());
  for (const auto& e : *events) {
    ASSERT_OK_AND_ASSIGN(v1::Event event, store::EventCodec::Default().Decode(e));
    if (event.has_mirror_deleted()) {
      EXPECT_EQ(event.mirror_deleted().secret().uid(), uid);
    }
  }
}

}  // namespace
}  // namespace mirror_integration_test
}  // namespace credledger
