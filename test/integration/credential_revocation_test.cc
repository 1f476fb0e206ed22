// What a revocation appends, end to end inside one process (the fixture is
// credential_bridge_fixture.h): every Secret deleted because of the revocation names the
// TargetRevoked event as its cause, and the Secret of a mint that was in flight when the
// revocation was recorded is filed as this Target's abandoned mint, not as a leftover of
// another Target (docs/credentials.md, "Revocation"; docs/events.md, "Metadata").
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "kubebridge/client/json_util.h"
#include "kubebridge/credentials/agent_objects.h"
#include "kubebridge/credentials/credential_bridge.h"
#include "store/event_codec.h"
#include "test/integration/credential_bridge_fixture.h"
#include "test/support/status_matchers.h"

namespace credledger {
namespace credential_revocation_test {

using ::testing::ElementsAre;
using ::testing::IsEmpty;

using credential_bridge_fixture::kNs;
using credential_bridge_fixture::kTarget;

constexpr char kUid[] = "0b4e3f4a-8c9d-4e2f-a1b2-c3d4e5f60718";

// One event of the Target's stream with its metadata.
struct Logged {
  int64_t seq;
  v1::Event event;
  v1::EventMetadata metadata;
};

class CredentialRevocationTest : public credential_bridge_fixture::CredentialBridgeFixture {
 protected:
  // The Target's stream, decoded.
  std::vector<Logged> Stream() {
    std::vector<Logged> out;
    auto events = store_->ReadStream(projections::TargetStream(kNs, kTarget), 0, 1000);
    EXPECT_OK(events);
    if (!events.ok()) return out;
    for (const store::RecordedEvent& e : *events) {
      auto decoded = store::EventCodec::Default().Decode(e);
      auto metadata = store::EventCodec::DecodeMetadata(e);
      EXPECT_OK(decoded);
      EXPECT_OK(metadata);
      if (decoded.ok() && metadata.ok()) out.push_back({e.seq, *decoded, *metadata});
    }
    return out;
  }

  // Waits until the Target's stream holds a CredentialSecretDeleted event. (The number of
  // credentials cannot tell: a Secret recorded after the revocation is released at once, so
  // the state shows none before the Secret is deleted.)
  void WaitForASecretDeletion() {
    WaitFor(
        [&](const v1::TargetState&) {
          for (const Logged& logged : Stream()) {
            if (logged.event.has_credential_secret_deleted()) return true;
          }
          return false;
        },
        "the deletion of the abandoned mint's Secret");
  }

  // Starts a bridge again after a test stopped the fixture's.
  void RestartBridge() {
    kubebridge::CredentialBridgeOptions options;
    options.token_ttl = absl::Hours(24);
    bridge_ = kubebridge::CredentialBridge::Start(client_.get(), sink_.get(), projector_.get(),
                                                  &clock_, options);
  }
};

TEST_F(CredentialRevocationTest, EverySecretDeletedByARevocationNamesTheRevocationAsItsCause) {
  ASSERT_OK(Run(service::RegisterTarget{kUid, true}, "reg-1"));
  WaitFor([](const v1::TargetState& s) { return CurrentName(s) == "solar-agent-edge-1-1"; },
          "mint 1");
  for (int i = 2; i <= 4; ++i) {
    ASSERT_OK(Run(service::RequestRotation{absl::StrCat("r", i)}, absl::StrCat("rot-", i)));
    const std::string name = absl::StrCat("solar-agent-edge-1-", i);
    WaitFor([&](const v1::TargetState& s) { return CurrentName(s) == name; }, name);
  }
  ASSERT_EQ(SecretNames().size(), 4u);

  ASSERT_OK(Run(service::Revoke{"lost device"}, "rev-1"));
  WaitFor([](const v1::TargetState& s) { return s.credentials_size() == 0; }, "revocation");
  EXPECT_THAT(SecretNames(), IsEmpty());

  int64_t revoked_seq = 0;
  std::vector<int64_t> causes;
  for (const Logged& logged : Stream()) {
    if (logged.event.has_target_revoked()) revoked_seq = logged.seq;
    if (!logged.event.has_credential_secret_deleted()) continue;
    EXPECT_EQ(logged.event.credential_secret_deleted().reason(),
              v1::SECRET_DELETION_REASON_REVOKED);
    causes.push_back(logged.metadata.causation_seq());
  }
  ASSERT_NE(revoked_seq, 0);
  EXPECT_THAT(causes, ElementsAre(revoked_seq, revoked_seq, revoked_seq, revoked_seq));
}

// The bridge created the Secret of attempt m1 and stopped before recording it (the crash
// point after the create); the revocation was recorded meanwhile. The next pass finds a
// Secret with this incarnation's uid and the attempt's annotation.
TEST_F(CredentialRevocationTest, TheSecretOfAMintInFlightIsRecordedAsTheAbandonedMint) {
  bridge_->Stop();
  ASSERT_OK(Run(service::RegisterTarget{kUid, true}, "reg-1"));
  ASSERT_OK(client_->Create(kubebridge::SecretResource(kNs),
                            kubebridge::CredentialSecretObject(kNs, kTarget, kUid, 1, "m1", "")));
  ASSERT_OK(Run(service::Revoke{"lost device"}, "rev-1"));
  RestartBridge();

  WaitForASecretDeletion();
  EXPECT_THAT(SecretNames(), IsEmpty());
  std::vector<std::string> types;
  for (const Logged& logged : Stream()) {
    types.push_back(logged.event.GetDescriptor()
                        ->FindFieldByNumber(logged.event.kind_case())
                        ->message_type()
                        ->name());
    if (logged.event.has_credential_secret_created()) {
      EXPECT_EQ(logged.event.credential_secret_created().attempt_id(), "m1");
      EXPECT_EQ(logged.event.credential_secret_created().secret().name(), "solar-agent-edge-1-1");
      EXPECT_EQ(logged.event.credential_secret_created().suffix(), 1);
    }
    if (logged.event.has_credential_secret_deleted()) {
      EXPECT_EQ(logged.event.credential_secret_deleted().secret().name(), "solar-agent-edge-1-1");
      EXPECT_EQ(logged.event.credential_secret_deleted().reason(),
                v1::SECRET_DELETION_REASON_MINT_ABANDONED);
    }
  }
  EXPECT_THAT(types,
              ElementsAre("TargetRegistered", "CredentialMintRequested", "CredentialMintAbandoned",
                          "TargetRevoked", "CredentialSecretCreated", "CredentialSecretDeleted"));
}

// As above, but the bridge recorded the Secret (after the revocation, so the record was
// released at once as the abandoned mint's) and stopped before deleting it: the revoke pass
// deletes it as the abandoned mint's Secret too.
TEST_F(CredentialRevocationTest, ARecordedSecretOfAnAbandonedMintIsDeletedAsTheAbandonedMints) {
  bridge_->Stop();
  ASSERT_OK(Run(service::RegisterTarget{kUid, true}, "reg-1"));
  ASSERT_OK_AND_ASSIGN(
      nlohmann::json created,
      client_->Create(kubebridge::SecretResource(kNs),
                      kubebridge::CredentialSecretObject(kNs, kTarget, kUid, 1, "m1", "")));
  ASSERT_OK(Run(service::Revoke{"lost device"}, "rev-1"));
  v1::SecretRef ref;
  ref.set_name("solar-agent-edge-1-1");
  ref.set_uid(kubebridge::StringAt(created, {"metadata", "uid"}));
  ASSERT_OK(Run(kubebridge::RecordSecretCreated{"m1", ref, 1}, "created-m1"));
  RestartBridge();

  WaitForASecretDeletion();
  EXPECT_THAT(SecretNames(), IsEmpty());
  std::vector<v1::SecretDeletionReason> reasons;
  for (const Logged& logged : Stream()) {
    if (logged.event.has_credential_secret_deleted()) {
      reasons.push_back(logged.event.credential_secret_deleted().reason());
    }
  }
  EXPECT_THAT(reasons, ElementsAre(v1::SECRET_DELETION_REASON_MINT_ABANDONED));
}

}  // namespace credential_revocation_test
}  // namespace credledger
