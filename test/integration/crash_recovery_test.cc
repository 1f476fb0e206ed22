// Crash recovery of a mint through the real binaries: killing the process at each step of a
// mint and restarting on the same database leaves exactly one current credential, no Secret
// without a token, and every Secret explained by the log (docs/architecture.md,
// "After a crash"; docs/testing.md, "Fault points").
//
// For each fault point of CredentialMinter (the mint.* points of
// test/integration/fault_point_list.h), `credledger serve` runs with
// CREDLEDGER_FAULT_POINTS=<point> against the test API server (a separate process, so the
// cluster survives), `target register` starts the first mint, and the process kills itself
// there. Serve is restarted on the same database without faults and must finish the mint;
// then the same point is armed again for a rotation (`target rotate`), and the restart must
// finish that one too. After each recovery, serve is stopped and the cluster is compared
// with the log.
#include <map>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_replace.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "kubebridge/client/json_util.h"
#include "kubebridge/credentials/agent_objects.h"
#include "kubebridge/credentials/credential_minter.h"
#include "projections/target_state.h"
#include "store/event_codec.h"
#include "test/integration/fault_point_list.h"
#include "test/integration/live_processes.h"
#include "test/support/status_matchers.h"

namespace credledger::testing {
namespace crash_recovery_test {

using kubebridge::StringAt;

constexpr char kTarget[] = "edge-1";

// A mutating CLI call during which serve may kill itself: either it was answered, or the
// connection was cut (the command was still committed before the mint began).
void ExpectAnsweredOrCutOff(const RunResult& run) {
  if (run.exit_code == 0) return;
  EXPECT_EQ(run.exit_code, 1);
  EXPECT_THAT(run.err, ::testing::HasSubstr("UNAVAILABLE")) << run.err;
}

// What the log says about the mints it records.
struct MintCounts {
  int requested = 0;  // CredentialMintRequested
  int failed = 0;     // CredentialMintFailed
  int adopted = 0;    // CredentialIssued with adopted = true
};

class CrashRecoveryTest : public LiveProcessTest,
                          public ::testing::WithParamInterface<std::string> {
 protected:
  // With serve stopped: the log's projection has exactly one current credential, Secret
  // solar-agent-edge-1-<current_suffix>, and `credentials` credential records, none waiting
  // for its token and no mint open; the cluster holds exactly the Secrets the projection
  // holds (same names and uids), each with a token and each created according to a
  // CredentialSecretCreated event; the current Secret's token has the recorded fingerprint
  // and authenticates as the Target's ServiceAccount. Returns the mint counts of the log.
  MintCounts ExpectLogExplainsCluster(int64_t current_suffix, int credentials) {
    const std::vector<store::RecordedEvent> log = ReadLog();
    std::set<std::string> created_uids;
    MintCounts counts;
    for (const store::RecordedEvent& e : log) {
      absl::StatusOr<v1::Event> event = store::EventCodec::Default().Decode(e);
      EXPECT_TRUE(event.ok()) << "seq " << e.seq << ": " << event.status();
      if (!event.ok()) continue;
      if (event->has_credential_secret_created()) {
        created_uids.insert(event->credential_secret_created().secret().uid());
      }
      if (event->has_credential_mint_requested()) ++counts.requested;
      if (event->has_credential_mint_failed()) ++counts.failed;
      if (event->has_credential_issued() && event->credential_issued().adopted()) ++counts.adopted;
    }
    const std::optional<v1::TargetState> state = Fold(log).Get(kLiveNamespace, kTarget);
    EXPECT_TRUE(state.has_value());
    if (!state.has_value()) return counts;

    // The log: one current credential, nothing half-done.
    EXPECT_FALSE(state->has_open_attempt()) << state->DebugString();
    EXPECT_FALSE(state->has_last_failure()) << state->DebugString();
    const v1::CredentialRecord* current = projections::CurrentCredential(*state);
    EXPECT_NE(current, nullptr) << state->DebugString();
    if (current == nullptr) return counts;
    EXPECT_EQ(current->secret().name(), kubebridge::CredentialSecretName(kTarget, current_suffix));
    EXPECT_EQ(state->credentials_size(), credentials) << state->DebugString();
    std::map<std::string, std::string> recorded;  // Secret name -> uid
    int at_top = 0;
    for (const v1::CredentialRecord& c : state->credentials()) {
      EXPECT_EQ(c.phase(), v1::CredentialRecord::PHASE_ISSUED) << c.DebugString();
      EXPECT_TRUE(recorded.emplace(c.secret().name(), c.secret().uid()).second)
          << "two credential records name " << c.secret().name();
      if (c.suffix() == current->suffix()) ++at_top;
    }
    EXPECT_EQ(at_top, 1) << "more than one credential at the current suffix";

    // The cluster: every Secret has a token and is explained by the log.
    std::map<std::string, std::string> live;  // Secret name -> uid
    for (const nlohmann::json& secret : CredentialSecrets(kTarget)) {
      const std::string name = StringAt(secret, {"metadata", "name"});
      const std::string uid = StringAt(secret, {"metadata", "uid"});
      EXPECT_TRUE(live.emplace(name, uid).second) << "two live Secrets named " << name;
      const std::string token = TokenOf(secret);
      EXPECT_FALSE(token.empty()) << "Secret " << name << " has no token";
      EXPECT_EQ(created_uids.count(uid), 1u)
          << "Secret " << name << " (uid " << uid << ") has no CredentialSecretCreated event";
      if (name == current->secret().name()) {
        EXPECT_EQ(uid, current->secret().uid());
        EXPECT_EQ(kubebridge::TokenFingerprint(token), current->token_fingerprint());
        EXPECT_EQ(ReviewedUser(token), "system:serviceaccount:demo:solar-agent-edge-1");
      }
    }
    EXPECT_EQ(live, recorded);
    return counts;
  }
};

TEST_P(CrashRecoveryTest, KillAtTheMintStepThenRestartLeavesOneCurrentCredentialTheLogExplains) {
  const std::string point = GetParam();
  // Only a token found in the Secret without its CredentialIssued event is adopted.
  const int adoptions_per_crash = point == "mint.after_secret_update" ? 1 : 0;

  StartServe(point);
  ExpectAnsweredOrCutOff(Cli({"target", "register", "demo/edge-1", "--request-id", "reg-1"}));
  ExpectServeKilledByFaultPoint(point);
  StartServe();
  ASSERT_FALSE(WaitForCurrentCredential(kTarget, 1).is_null());
  StopServe();
  KeepDatabaseFiles("after the first recovery");
  MintCounts first = ExpectLogExplainsCluster(/*current_suffix=*/1, /*credentials=*/1);
  // The killed mint was resumed and finished, not failed and replaced by another attempt.
  EXPECT_EQ(first.requested, 1);
  EXPECT_EQ(first.failed, 0);
  EXPECT_EQ(first.adopted, adoptions_per_crash);

  // The rotation path, killed at the same step.
  StartServe(point);
  ExpectAnsweredOrCutOff(Cli({"target", "rotate", "demo/edge-1", "--request-id", "rot-1"}));
  ExpectServeKilledByFaultPoint(point);
  StartServe();
  ASSERT_FALSE(WaitForCurrentCredential(kTarget, 2).is_null());
  StopServe();
  KeepDatabaseFiles("after the second recovery");
  MintCounts second = ExpectLogExplainsCluster(/*current_suffix=*/2, /*credentials=*/2);
  EXPECT_EQ(second.requested, 2);
  EXPECT_EQ(second.failed, 0);
  EXPECT_EQ(second.adopted, 2 * adoptions_per_crash);

  // Tokens requested before a kill, stored or not, never reach the log or any output.
  KeepProcessOutputs();
  ExpectNotFoundAnywhere({std::begin(kJwtMarkers), std::end(kJwtMarkers)});
}

// The minter's points of the list of every fault point.
std::vector<std::string> MintFaultPoints() {
  std::vector<std::string> points;
  for (const char* point : kFaultPoints) {
    if (absl::StartsWith(point, "mint.")) points.push_back(point);
  }
  return points;
}

INSTANTIATE_TEST_SUITE_P(EveryFaultPoint, CrashRecoveryTest, ::testing::ValuesIn(MintFaultPoints()),
                         [](const ::testing::TestParamInfo<std::string>& info) {
                           return absl::StrReplaceAll(info.param, {{".", "_"}});
                         });

}  // namespace crash_recovery_test
}  // namespace credledger::testing
