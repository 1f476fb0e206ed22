// Tests of the credential lifetimes read model (docs/forensics.md, "Which tokens could have
// been used at 10:02?"): a credential is valid from its issue time (inclusive) until its expiry
// or its Secret's deletion (exclusive); an external deletion counts from when it was observed,
// even when recorded later; a new incarnation does not revive old credentials; ValidAt filters
// by namespace and Target. The log is written through the command buses by the FleetDriver on a
// fake clock; expectations come from the events and the Target states.
#include "projections/credential_lifetimes.h"

#include <set>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "projections/proto_time.h"
#include "projections/target_state.h"
#include "test/projections/fleet_log.h"
#include "test/support/status_matchers.h"

namespace credledger::projections {
namespace credential_lifetimes_test {

using ::credledger::testing::StatusIs;
using ::testing::ElementsAre;
using ::testing::IsEmpty;
using ::testing::SizeIs;

namespace svc = ::credledger::service;

constexpr char kNs[] = "fleet-a";
constexpr char kTarget[] = "edge-1";
constexpr char kUidA[] = "11111111-1111-4111-8111-111111111111";
constexpr char kUidB[] = "22222222-2222-4222-8222-bbbbbbbbbbbb";
constexpr absl::Duration kMicro = absl::Microseconds(1);

// "<namespace>/<name>/<Secret name>/<Secret uid>" of each credential.
std::vector<std::string> Ids(const std::vector<v1::CredentialLifetime>& lifetimes) {
  std::vector<std::string> out;
  for (const v1::CredentialLifetime& c : lifetimes) {
    out.push_back(
        absl::StrCat(c.namespace_(), "/", c.name(), "/", c.secret().name(), "/", c.secret().uid()));
  }
  return out;
}

std::string Id(const std::string& ns, const std::string& name, const v1::SecretRef& secret) {
  return absl::StrCat(ns, "/", name, "/", secret.name(), "/", secret.uid());
}

class CredentialLifetimesTest : public testing::FleetLogTest {
 protected:
  // Every event of the log folded.
  CredentialLifetimes Fold() {
    CredentialLifetimes lifetimes;
    for (const store::RecordedEvent& e : AllEvents()) EXPECT_OK(lifetimes.Apply(e));
    return lifetimes;
  }

  // Registers `ns`/`name` with `uid` and mints its first credential (enabling credentials
  // first if needed); returns it.
  v1::CredentialRecord RegisterAndMint(const std::string& ns, const std::string& name,
                                       const std::string& uid) {
    if (!driver_->service().credentials_enabled()) EXPECT_OK(driver_->SetCredentialsEnabled(true));
    EXPECT_OK(driver_->Do(ns, name, svc::RegisterTarget{uid, true}));
    EXPECT_OK(driver_->Reconcile(ns, name));
    return Current(ns, name);
  }

  v1::CredentialRecord Current(const std::string& ns, const std::string& name) {
    absl::StatusOr<v1::TargetState> state = driver_->State(ns, name);
    EXPECT_OK(state);
    const v1::CredentialRecord* current = state.ok() ? CurrentCredential(*state) : nullptr;
    EXPECT_NE(current, nullptr) << ns << "/" << name << " has no current credential";
    return current != nullptr ? *current : v1::CredentialRecord();
  }

  // Recorded time and seq of the last event of `type` ("CredentialSecretDeleted", ...).
  std::pair<absl::Time, int64_t> Last(const std::string& type) {
    std::pair<absl::Time, int64_t> found{absl::InfinitePast(), 0};
    for (const store::RecordedEvent& e : AllEvents()) {
      if (e.type == "credledger.v1." + type) {
        found = {absl::FromUnixMicros(e.recorded_at_us), e.seq};
      }
    }
    EXPECT_NE(found.second, 0) << "no " << type;
    return found;
  }
};

TEST_F(CredentialLifetimesTest, ACredentialIsValidFromItsIssueTimeUntilItsExpiry) {
  const v1::CredentialRecord record = RegisterAndMint(kNs, kTarget, kUidA);
  const absl::Time issued = FromProto(record.issued_at());
  const absl::Time expires = FromProto(record.expires_at());
  const CredentialLifetimes lifetimes = Fold();

  const std::string id = Id(kNs, kTarget, record.secret());
  EXPECT_THAT(Ids(lifetimes.ValidAt(issued - kMicro, "", "")), IsEmpty());
  EXPECT_THAT(Ids(lifetimes.ValidAt(issued, "", "")), ElementsAre(id));
  EXPECT_THAT(Ids(lifetimes.ValidAt(expires - kMicro, "", "")), ElementsAre(id));
  EXPECT_THAT(Ids(lifetimes.ValidAt(expires, "", "")), IsEmpty());

  ASSERT_EQ(lifetimes.All().size(), 1u);
  const v1::CredentialLifetime c = lifetimes.All()[0];
  EXPECT_EQ(c.target_uid(), kUidA);
  EXPECT_EQ(c.credential_tag(), record.credential_tag());
  EXPECT_EQ(c.token_fingerprint(), record.token_fingerprint());
  EXPECT_EQ(c.issued_seq(), Last("CredentialIssued").second);
  EXPECT_FALSE(c.has_deleted_at());
  EXPECT_EQ(c.deleted_reason(), "");
  EXPECT_EQ(c.deleted_seq(), 0);
}

TEST_F(CredentialLifetimesTest, ACredentialStopsBeingValidWhenCredledgerDeletesItsSecret) {
  const v1::CredentialRecord first = RegisterAndMint(kNs, kTarget, kUidA);
  ASSERT_OK(driver_->Do(kNs, kTarget, svc::RequestRotation{"r2"}));
  ASSERT_OK(driver_->Reconcile(kNs, kTarget));
  const v1::CredentialRecord second = Current(kNs, kTarget);
  ASSERT_OK(
      driver_->Do(kNs, kTarget,
                  svc::ConfirmRollout{absl::StrCat("1.0.0-", driver_->service().connection_hash(),
                                                   "-", second.credential_tag())}));
  ASSERT_OK(driver_->Reconcile(kNs, kTarget));  // deletes the first Secret (superseded)
  const auto [deleted, deleted_seq] = Last("CredentialSecretDeleted");
  ASSERT_LT(deleted, FromProto(first.expires_at()));
  const CredentialLifetimes lifetimes = Fold();

  // Both at once until the deletion, ordered by issue.
  EXPECT_THAT(Ids(lifetimes.ValidAt(deleted - kMicro, kNs, kTarget)),
              ElementsAre(Id(kNs, kTarget, first.secret()), Id(kNs, kTarget, second.secret())));
  EXPECT_THAT(Ids(lifetimes.ValidAt(deleted, kNs, kTarget)),
              ElementsAre(Id(kNs, kTarget, second.secret())));
  ASSERT_EQ(lifetimes.All().size(), 2u);
  const v1::CredentialLifetime c = lifetimes.All()[0];
  EXPECT_EQ(FromProto(c.deleted_at()), deleted);
  EXPECT_EQ(c.deleted_reason(), "superseded");
  EXPECT_EQ(c.deleted_seq(), deleted_seq);
}

TEST_F(CredentialLifetimesTest, AnExternalDeletionCountsFromWhenItWasObserved) {
  const v1::CredentialRecord record = RegisterAndMint(kNs, kTarget, kUidA);
  clock_.Advance(absl::Minutes(5));
  const absl::Time observed = clock_.Now() - absl::Seconds(30);
  ASSERT_GT(observed, FromProto(record.issued_at()));
  ASSERT_OK(
      driver_->Do(kNs, kTarget, svc::RecordSecretDeletedExternally{record.secret(), observed}));
  const auto [recorded, seq] = Last("CredentialSecretDeletedExternally");
  ASSERT_GT(recorded, observed + absl::Seconds(10));
  const CredentialLifetimes lifetimes = Fold();

  EXPECT_THAT(Ids(lifetimes.ValidAt(observed - kMicro, kNs, "")),
              ElementsAre(Id(kNs, kTarget, record.secret())));
  // Between the observed deletion and its recording the log already knows it was gone.
  EXPECT_THAT(Ids(lifetimes.ValidAt(observed, kNs, "")), IsEmpty());
  EXPECT_THAT(Ids(lifetimes.ValidAt(observed + absl::Seconds(10), kNs, "")), IsEmpty());
  ASSERT_EQ(lifetimes.All().size(), 1u);
  EXPECT_EQ(FromProto(lifetimes.All()[0].deleted_at()), observed);
  EXPECT_EQ(lifetimes.All()[0].deleted_reason(), "deleted externally");
  EXPECT_EQ(lifetimes.All()[0].deleted_seq(), seq);
}

TEST_F(CredentialLifetimesTest, ATargetRegisteredAgainDoesNotReviveTheOldIncarnation) {
  const v1::CredentialRecord old = RegisterAndMint(kNs, kTarget, kUidA);
  ASSERT_OK(driver_->Do(kNs, kTarget, svc::DeleteTarget{}));
  ASSERT_OK(driver_->Reconcile(kNs, kTarget));  // deletes the Secret, then finalizes
  const absl::Time deleted = Last("CredentialSecretDeleted").first;
  const v1::CredentialRecord fresh = RegisterAndMint(kNs, kTarget, kUidB);
  ASSERT_LT(FromProto(fresh.issued_at()), FromProto(old.expires_at()));
  const CredentialLifetimes lifetimes = Fold();

  EXPECT_THAT(Ids(lifetimes.ValidAt(deleted - kMicro, kNs, kTarget)),
              ElementsAre(Id(kNs, kTarget, old.secret())));
  const std::vector<v1::CredentialLifetime> now = lifetimes.ValidAt(clock_.Now(), kNs, kTarget);
  EXPECT_THAT(Ids(now), ElementsAre(Id(kNs, kTarget, fresh.secret())));
  ASSERT_EQ(now.size(), 1u);
  EXPECT_EQ(now[0].target_uid(), kUidB);
  ASSERT_EQ(lifetimes.All().size(), 2u);
  EXPECT_EQ(lifetimes.All()[0].deleted_reason(), "target deleted");
}

// The finalization pass deletes every labelled Secret and the ServiceAccount: a credential
// whose deletion was not recorded on its own ends there, listed or not.
TEST_F(CredentialLifetimesTest, FinalizationEndsTheIncarnationsCredentialsStillAlive) {
  const v1::CredentialRecord first = RegisterAndMint(kNs, kTarget, kUidA);
  ASSERT_OK(driver_->Do(kNs, kTarget, svc::RequestRotation{"r2"}));
  ASSERT_OK(driver_->Reconcile(kNs, kTarget));
  const v1::CredentialRecord second = Current(kNs, kTarget);
  RegisterAndMint(kNs, "edge-2", kUidB);
  ASSERT_OK(driver_->Do(kNs, kTarget, svc::DeleteTarget{}));
  ASSERT_OK(driver_->Do(kNs, kTarget,
                        svc::RecordTargetFinalized{{absl::StrCat("Secret/", second.secret().name()),
                                                    "ServiceAccount/solar-agent-edge-1"}}));
  const auto [finalized, seq] = Last("TargetFinalized");
  const CredentialLifetimes lifetimes = Fold();

  EXPECT_THAT(Ids(lifetimes.ValidAt(finalized - kMicro, kNs, kTarget)),
              ElementsAre(Id(kNs, kTarget, first.secret()), Id(kNs, kTarget, second.secret())));
  EXPECT_THAT(Ids(lifetimes.ValidAt(finalized, kNs, kTarget)), IsEmpty());
  EXPECT_THAT(Ids(lifetimes.ValidAt(finalized, kNs, "edge-2")), SizeIs(1));
  for (const v1::CredentialLifetime& c : lifetimes.All()) {
    if (c.name() != kTarget) continue;
    EXPECT_EQ(c.deleted_reason(), "target finalized");
    EXPECT_EQ(c.deleted_seq(), seq);
  }
}

TEST_F(CredentialLifetimesTest, AStaleCredentialDeletionEndsTheSecretItNames) {
  const v1::CredentialRecord record = RegisterAndMint(kNs, kTarget, kUidA);
  ASSERT_OK(driver_->Do(kNs, kTarget,
                        svc::RecordStaleCredentialsDeleted{"", {record.secret()}, {kUidB}}));
  const auto [deleted, seq] = Last("StaleCredentialsDeleted");
  const CredentialLifetimes lifetimes = Fold();

  EXPECT_THAT(Ids(lifetimes.ValidAt(deleted - kMicro, kNs, kTarget)), SizeIs(1));
  EXPECT_THAT(Ids(lifetimes.ValidAt(deleted, kNs, kTarget)), IsEmpty());
  ASSERT_EQ(lifetimes.All().size(), 1u);
  EXPECT_EQ(lifetimes.All()[0].deleted_reason(), "stale credential");
  EXPECT_EQ(lifetimes.All()[0].deleted_seq(), seq);
}

TEST_F(CredentialLifetimesTest, ValidAtFiltersByNamespaceAndTargetAndOrdersByTarget) {
  ASSERT_OK(driver_->RunPhaseOne());
  const absl::Time now = clock_.Now();
  // Expected from the Target states: the issued credentials whose Secret still exists and
  // that have not expired.
  std::vector<std::string> expected_all, expected_b, expected_edge2;
  for (const auto& [ns, name] :
       std::vector<std::pair<std::string, std::string>>{{"fleet-a", "edge-1"},
                                                        {"fleet-a", "edge-2"},
                                                        {"fleet-b", "edge-3"},
                                                        {"fleet-b", "edge-4"}}) {
    ASSERT_OK_AND_ASSIGN(v1::TargetState state, driver_->State(ns, name));
    for (const v1::CredentialRecord& c : state.credentials()) {
      if (c.credential_tag().empty() || FromProto(c.expires_at()) <= now) continue;
      expected_all.push_back(Id(ns, name, c.secret()));
      if (ns == "fleet-b") expected_b.push_back(Id(ns, name, c.secret()));
      if (name == "edge-2") expected_edge2.push_back(Id(ns, name, c.secret()));
    }
  }
  ASSERT_EQ(expected_b.size(), 2u);
  ASSERT_FALSE(expected_edge2.empty());
  const CredentialLifetimes lifetimes = Fold();

  EXPECT_EQ(Ids(lifetimes.ValidAt(now, "", "")), expected_all);
  EXPECT_EQ(Ids(lifetimes.ValidAt(now, "fleet-b", "")), expected_b);
  EXPECT_EQ(Ids(lifetimes.ValidAt(now, "fleet-a", "edge-2")), expected_edge2);
  EXPECT_THAT(Ids(lifetimes.ValidAt(now, "fleet-c", "")), IsEmpty());
}

TEST(CredentialLifetimesFoldTest, OnlyTargetStreamEventsAreDecoded) {
  CredentialLifetimes lifetimes;
  store::RecordedEvent garbage;
  garbage.seq = 3;
  garbage.type = "credledger.v1.CredentialIssued";
  garbage.payload = "\xff\xff\xff";
  for (const char* stream : {"service", "liveness", "report/fleet-a/edge-1"}) {
    garbage.stream = stream;
    EXPECT_TRUE(lifetimes.Apply(garbage).ok()) << stream;
  }
  garbage.stream = "target/fleet-a/edge-1";
  EXPECT_THAT(lifetimes.Apply(garbage), StatusIs(absl::StatusCode::kDataLoss));
  EXPECT_THAT(lifetimes.All(), IsEmpty());
}

TEST(DeletionReasonWordsTest, NamesEveryReason) {
  EXPECT_EQ(DeletionReasonWords(v1::SECRET_DELETION_REASON_SUPERSEDED), "superseded");
  EXPECT_EQ(DeletionReasonWords(v1::SECRET_DELETION_REASON_EXPIRED), "expired");
  EXPECT_EQ(DeletionReasonWords(v1::SECRET_DELETION_REASON_REVOKED), "revoked");
  EXPECT_EQ(DeletionReasonWords(v1::SECRET_DELETION_REASON_TARGET_DELETED), "target deleted");
  EXPECT_EQ(DeletionReasonWords(v1::SECRET_DELETION_REASON_MINT_ABANDONED), "mint abandoned");
  EXPECT_EQ(DeletionReasonWords(v1::SECRET_DELETION_REASON_UNSPECIFIED), "unspecified");
}

}  // namespace credential_lifetimes_test
}  // namespace credledger::projections
