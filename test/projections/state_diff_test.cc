// Tests of the diff between two points of the log (docs/forensics.md, "What changed between
// 10:00 and 10:05?"): Targets added, removed and replaced by comparing the credential
// projections; conditions compared state to state; credentials, revocations and lifts taken
// from the events in between, so a credential issued and deleted in between still shows;
// filters by namespace and Target. The log is written through the command buses by the
// FleetDriver.
#include "projections/state_diff.h"

#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "projections/proto_time.h"
#include "test/projections/fleet_log.h"
#include "test/support/reference_sha256.h"
#include "test/support/status_matchers.h"

namespace credledger::projections {
namespace state_diff_test {

using ::credledger::testing::ReferenceSha256HexPrefix;
using ::credledger::testing::StatusIs;
using ::testing::ElementsAre;
using ::testing::IsEmpty;

namespace svc = ::credledger::service;

constexpr char kUid1[] = "11111111-1111-4111-8111-111111111111";
constexpr char kUid2[] = "22222222-2222-4222-8222-222222222222";
constexpr char kUid3[] = "33333333-3333-4333-8333-333333333333";
constexpr char kUid4[] = "44444444-4444-4444-8444-444444444444";
constexpr char kUid5[] = "55555555-5555-4555-8555-555555555555";
constexpr char kUid5b[] = "55555555-5555-4555-8555-bbbbbbbbbbbb";

// The credentialTag of the FleetDriver's n-th Secret, computed with OpenSSL directly.
std::string Tag(int n) {
  return ReferenceSha256HexPrefix(absl::StrCat("5ec7e700-0000-4000-8000-00000000000", n), 10);
}

// "<kind> <namespace>/<name> | <Secret> <tag> | <condition> <before> -> <after>".
std::string Row(const v1::StateChange& c) {
  return absl::StrCat(v1::StateChange::Kind_Name(c.kind()), " ", c.namespace_(), "/", c.name(),
                      " | ", c.secret_name(), " ", c.credential_tag(), " | ", c.condition_type(),
                      " ", c.before(), " -> ", c.after());
}

std::vector<std::string> Rows(const std::vector<v1::StateChange>& changes) {
  std::vector<std::string> rows;
  for (const v1::StateChange& c : changes) rows.push_back(Row(c));
  return rows;
}

std::string Credential(const std::string& kind, const std::string& target,
                       const std::string& secret, int n) {
  return absl::StrCat("KIND_CREDENTIAL_", kind, " ", target, " | ", secret, " ", Tag(n),
                      " |   -> ");
}

std::string Event(const std::string& kind, const std::string& target) {
  return absl::StrCat("KIND_", kind, " ", target, " |   |   -> ");
}

std::string Condition(const std::string& target, const std::string& type, const std::string& before,
                      const std::string& after) {
  return absl::StrCat("KIND_CONDITION_CHANGED ", target, " |   | ", type, " ", before, " -> ",
                      after);
}

// The state changes of fleet-b in the history below: edge-3 removed, edge-4 added, and the
// conditions each lost or gained.
std::vector<std::string> FleetBStateChanges() {
  return {Event("TARGET_REMOVED", "fleet-b/edge-3"),
          Condition("fleet-b/edge-3", "AgentCredentialReady", "True/Issued", ""),
          Condition("fleet-b/edge-3", "Reporting", "Unknown/NoReport", ""),
          Condition("fleet-b/edge-3", "PreflightReady", "Unknown/NoChecks", ""),
          Condition("fleet-b/edge-3", "ReleasesReady", "Unknown/NoReleases", ""),
          Event("TARGET_ADDED", "fleet-b/edge-4"),
          Condition("fleet-b/edge-4", "AgentCredentialReady", "", "True/Issued"),
          Condition("fleet-b/edge-4", "Reporting", "", "Unknown/NoReport"),
          Condition("fleet-b/edge-4", "PreflightReady", "", "Unknown/NoChecks"),
          Condition("fleet-b/edge-4", "ReleasesReady", "", "Unknown/NoReleases")};
}

class StateDiffTest : public testing::FleetLogTest {
 protected:
  // The diff between seq `from` and seq `to` of the log, for the selected Targets.
  std::vector<v1::StateChange> Diff(int64_t from, int64_t to, const std::string& ns = "",
                                    const std::string& name = "") {
    CredentialProjection from_credentials, to_credentials;
    StatusProjection from_status, to_status;
    StateDiff diff(ns, name);
    for (const store::RecordedEvent& e : AllEvents()) {
      if (e.seq > to) break;
      EXPECT_OK(to_credentials.Apply(e));
      EXPECT_OK(to_status.Apply(e));
      if (e.seq <= from) {
        EXPECT_OK(from_credentials.Apply(e));
        EXPECT_OK(from_status.Apply(e));
      } else {
        EXPECT_OK(diff.ApplyBetween(e));
      }
    }
    return diff.Finish(from_credentials, from_status, to_credentials, to_status);
  }

  void RegisterAndMint(const std::string& ns, const std::string& name, const std::string& uid) {
    ASSERT_OK(driver_->Do(ns, name, svc::RegisterTarget{uid, true}));
    ASSERT_OK(driver_->Reconcile(ns, name));
  }

  // Asks for a rotation, mints it, confirms its rollout and deletes the superseded Secret.
  void RotateAndConfirm(const std::string& ns, const std::string& name, const std::string& value,
                        int new_secret) {
    ASSERT_OK(driver_->Do(ns, name, svc::RequestRotation{value}));
    ASSERT_OK(driver_->Reconcile(ns, name));
    ASSERT_OK(
        driver_->Do(ns, name,
                    svc::ConfirmRollout{absl::StrCat("1.0.0-", driver_->service().connection_hash(),
                                                     "-", Tag(new_secret))}));
    ASSERT_OK(driver_->Reconcile(ns, name));
  }

  void DeleteAndFinalize(const std::string& ns, const std::string& name) {
    ASSERT_OK(driver_->Do(ns, name, svc::DeleteTarget{}));
    ASSERT_OK(driver_->Reconcile(ns, name));
  }

  // Before `from`: four minted Targets (Secrets 1-4) and a report of fleet-a/edge-1. Between
  // `from` and `to`: two confirmed rotations of edge-1 (Secrets 5 and 6; 5 is issued and
  // deleted in between), edge-2 revoked and lifted (Secret 7), fleet-b/edge-3 deleted,
  // fleet-b/edge-4 added (Secret 8), fleet-c/edge-5 deleted and registered again with
  // another uid (Secret 9), and edge-1 marked stale. Returns {from, to}.
  std::pair<int64_t, int64_t> WriteHistory() {
    EXPECT_OK(driver_->SetCredentialsEnabled(true));
    RegisterAndMint("fleet-a", "edge-1", kUid1);
    RegisterAndMint("fleet-a", "edge-2", kUid2);
    RegisterAndMint("fleet-b", "edge-3", kUid3);
    RegisterAndMint("fleet-c", "edge-5", kUid5);
    svc::SubmitReport submit;
    const absl::Time seen = clock_.Now() + absl::Seconds(1);
    *submit.report.mutable_last_report_time() = ToProto(seen);
    v1::ReleaseStatus& release = *submit.report.add_releases();
    release.set_name("podinfo");
    release.set_namespace_("apps");
    release.set_phase(v1::RELEASE_PHASE_READY);
    submit.received_at = seen;
    EXPECT_OK(driver_->DoReport("fleet-a", "edge-1", submit));
    const int64_t from = store_->HeadSeq();

    RotateAndConfirm("fleet-a", "edge-1", "r2", 5);
    RotateAndConfirm("fleet-a", "edge-1", "r3", 6);
    EXPECT_OK(driver_->Do("fleet-a", "edge-2", svc::Revoke{"laptop lost"}));
    EXPECT_OK(driver_->Reconcile("fleet-a", "edge-2"));
    EXPECT_OK(driver_->Do("fleet-a", "edge-2", svc::LiftRevocation{}));
    EXPECT_OK(driver_->Reconcile("fleet-a", "edge-2"));
    DeleteAndFinalize("fleet-b", "edge-3");
    RegisterAndMint("fleet-b", "edge-4", kUid4);
    DeleteAndFinalize("fleet-c", "edge-5");
    RegisterAndMint("fleet-c", "edge-5", kUid5b);
    clock_.Advance(absl::Minutes(11));
    EXPECT_OK(driver_->DoReport("fleet-a", "edge-1", svc::MarkStale{seen, absl::Minutes(10)}));
    return {from, store_->HeadSeq()};
  }
};

TEST_F(StateDiffTest, ShowsEveryKindOfChangeInOrder) {
  const auto [from, to] = WriteHistory();
  const std::vector<v1::StateChange> changes = Diff(from, to);
  std::vector<std::string> expected = {
      Credential("ISSUED", "fleet-a/edge-1", "solar-agent-edge-1-2", 5),
      Credential("DELETED", "fleet-a/edge-1", "solar-agent-edge-1-1", 1),
      Credential("ISSUED", "fleet-a/edge-1", "solar-agent-edge-1-3", 6),
      Credential("DELETED", "fleet-a/edge-1", "solar-agent-edge-1-2", 5),
      Event("REVOKED", "fleet-a/edge-2"),
      Credential("DELETED", "fleet-a/edge-2", "solar-agent-edge-2-1", 2),
      Event("REVOCATION_LIFTED", "fleet-a/edge-2"),
      Credential("ISSUED", "fleet-a/edge-2", "solar-agent-edge-2-1", 7),
      Credential("DELETED", "fleet-b/edge-3", "solar-agent-edge-3-1", 3),
      Credential("ISSUED", "fleet-b/edge-4", "solar-agent-edge-4-1", 8),
      Credential("DELETED", "fleet-c/edge-5", "solar-agent-edge-5-1", 4),
      Credential("ISSUED", "fleet-c/edge-5", "solar-agent-edge-5-1", 9),
      // State to state: edge-2's revocation was lifted, so its condition is as before.
      Condition("fleet-a/edge-1", "Reporting", "True/ReportReceived", "False/Stale")};
  for (const std::string& row : FleetBStateChanges()) expected.push_back(row);
  expected.push_back(Event("TARGET_REMOVED", "fleet-c/edge-5"));
  expected.push_back(Event("TARGET_ADDED", "fleet-c/edge-5"));
  EXPECT_EQ(Rows(changes), expected);

  // Event changes carry their event's seq; state comparisons carry none.
  for (size_t i = 0; i < changes.size(); ++i) {
    if (i < 12) {
      EXPECT_GT(changes[i].seq(), from) << i;
      EXPECT_LE(changes[i].seq(), to) << i;
      if (i > 0) {
        EXPECT_GT(changes[i].seq(), changes[i - 1].seq()) << i;
      }
    } else {
      EXPECT_EQ(changes[i].seq(), 0) << i;
    }
  }
  EXPECT_EQ(changes[1].summary(), "Secret solar-agent-edge-1-1 deleted (superseded)");
  EXPECT_EQ(changes[4].summary(), "revoked: laptop lost");
  EXPECT_THAT(changes[12].summary(),
              ::testing::StartsWith("Reporting changed from True/ReportReceived to False/Stale: "));
  EXPECT_EQ(changes[23].summary(), absl::StrCat("Target removed (uid ", kUid5, ")"));
  EXPECT_EQ(changes[24].summary(), absl::StrCat("Target added (uid ", kUid5b, ")"));
}

TEST_F(StateDiffTest, FiltersByNamespaceAndByTarget) {
  const auto [from, to] = WriteHistory();
  EXPECT_THAT(Rows(Diff(from, to, "fleet-a", "edge-2")),
              ElementsAre(Event("REVOKED", "fleet-a/edge-2"),
                          Credential("DELETED", "fleet-a/edge-2", "solar-agent-edge-2-1", 2),
                          Event("REVOCATION_LIFTED", "fleet-a/edge-2"),
                          Credential("ISSUED", "fleet-a/edge-2", "solar-agent-edge-2-1", 7)));
  std::vector<std::string> fleet_b = {
      Credential("DELETED", "fleet-b/edge-3", "solar-agent-edge-3-1", 3),
      Credential("ISSUED", "fleet-b/edge-4", "solar-agent-edge-4-1", 8)};
  for (const std::string& row : FleetBStateChanges()) fleet_b.push_back(row);
  EXPECT_EQ(Rows(Diff(from, to, "fleet-b", "")), fleet_b);
  EXPECT_THAT(Diff(from, to, "fleet-z", ""), IsEmpty());
  EXPECT_THAT(Diff(to, to), IsEmpty());
}

TEST_F(StateDiffTest, ATargetRegisteredAgainWithTheSameUidIsRemovedAndAdded) {
  ASSERT_OK(driver_->SetCredentialsEnabled(true));
  RegisterAndMint("fleet-a", "edge-1", kUid1);
  const int64_t from = store_->HeadSeq();
  DeleteAndFinalize("fleet-a", "edge-1");
  RegisterAndMint("fleet-a", "edge-1", kUid1);
  EXPECT_THAT(Rows(Diff(from, store_->HeadSeq())),
              ElementsAre(Credential("DELETED", "fleet-a/edge-1", "solar-agent-edge-1-1", 1),
                          Credential("ISSUED", "fleet-a/edge-1", "solar-agent-edge-1-1", 2),
                          Event("TARGET_REMOVED", "fleet-a/edge-1"),
                          Event("TARGET_ADDED", "fleet-a/edge-1")));
}

TEST_F(StateDiffTest, AChangedServiceConfigurationComesFirst) {
  ASSERT_OK(driver_->SetCredentialsEnabled(true));
  RegisterAndMint("fleet-a", "edge-1", kUid1);
  const int64_t from = store_->HeadSeq();
  const std::string hash = driver_->service().connection_hash();
  ASSERT_OK(driver_->SetCredentialsEnabled(false));

  // The service configuration shows under a Target filter too: it changes every Target.
  const std::vector<v1::StateChange> changes = Diff(from, store_->HeadSeq(), "fleet-a", "edge-1");
  EXPECT_THAT(
      Rows(changes),
      ElementsAre(
          absl::StrCat("KIND_SERVICE_CONFIGURED / |   |  credentials enabled, API server "
                       "https://agents.example:6443, CA sha256 "
                       "5d41402abc4b2a76b9719d911017c592, connection hash ",
                       hash, ", token TTL 24h -> credentials disabled, token TTL 24h"),
          Condition("fleet-a/edge-1", "AgentCredentialReady", "True/Issued", "False/Disabled")));
}

TEST(StateDiffFoldTest, OnlySelectedTargetStreamEventsAreDecoded) {
  StateDiff diff("fleet-a", "edge-1");
  store::RecordedEvent garbage;
  garbage.seq = 9;
  garbage.type = "credledger.v1.CredentialIssued";
  garbage.payload = "\xff\xff\xff";
  for (const char* stream :
       {"service", "liveness", "report/fleet-a/edge-1", "target/fleet-a/edge-2"}) {
    garbage.stream = stream;
    EXPECT_TRUE(diff.ApplyBetween(garbage).ok()) << stream;
  }
  garbage.stream = "target/fleet-a/edge-1";
  EXPECT_THAT(diff.ApplyBetween(garbage), StatusIs(absl::StatusCode::kDataLoss));
}

}  // namespace state_diff_test
}  // namespace credledger::projections
